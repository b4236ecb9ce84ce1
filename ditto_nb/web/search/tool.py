"""The ``web_search`` tool the Interaction Worker dispatches (``INTERACTION.ACT.TOOL``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ditto_nb.web.search.base import WebSearchProvider

SearchTool = Callable[..., Awaitable[list[dict[str, Any]]]]


def create_web_search_tool(provider: WebSearchProvider) -> SearchTool:
    """Wrap a provider as an async tool ``web_search(query: str, limit: int = 5) -> list[dict]``.

    Args:
        provider: any :class:`WebSearchProvider`.

    Returns:
        The tool. Each dict is ``SearchHit.model_dump()`` (``query, rank, title, url, origin,
        snippet, discovery_only, provider``). Errors of the provider propagate unchanged
        (``SearchProviderError`` for a total failure, ``InvalidRequest`` for bad arguments).
    """

    async def web_search(query: str, limit: int = 5) -> list[dict[str, Any]]:
        """Search the web; return at most ``limit`` hits as dicts (discovery metadata only)."""
        hits = await provider.search(query, limit)
        return [hit.model_dump() for hit in hits]

    web_search.provider = provider  # type: ignore[attr-defined]
    return web_search


__all__ = ["SearchTool", "create_web_search_tool"]
