"""Search values and the provider protocol shared by every search backend.

Search results are *discovery metadata only* (SPEC §2): a hit says where to look, never what a
page says. Evidence comes only from pages that were fetched and stored.
"""

from __future__ import annotations

import warnings
from typing import Protocol, runtime_checkable

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning
from pydantic import BaseModel, ConfigDict, Field

from ditto_nb.errors import InvalidRequest
from ditto_nb.text import normalize_text


class SearchHit(BaseModel):
    """One search result (frozen).

    Attributes:
        query: the query that found it.
        rank: 1-based position in the provider's result list.
        title: result title (plain text).
        url: absolute URL of the result page.
        origin: ``scheme://host:port`` of ``url`` (see :func:`ditto_nb.web.policy.origin_of`).
        snippet: plain-text snippet (HTML stripped, entities unescaped, normalized); never evidence.
        discovery_only: always True: a snippet is not evidence.
        provider: provider name (``mediawiki``, ``brave``, ...).
    """

    model_config = ConfigDict(frozen=True)

    query: str
    rank: int = Field(ge=1)
    title: str
    url: str
    origin: str
    snippet: str = ""
    discovery_only: bool = True
    provider: str


@runtime_checkable
class WebSearchProvider(Protocol):
    """A search backend: ``await provider.search(query, limit)`` → at most ``limit`` hits.

    A provider that fails entirely raises :class:`~ditto_nb.errors.SearchProviderError`; a
    successful search with no results returns ``[]``.
    """

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """Search ``query``; return at most ``limit`` hits, best first."""
        ...


def strip_html(fragment: str | None) -> str:
    """Return the plain text of an HTML fragment (tags removed, entities unescaped, normalized).

    Parsed with BeautifulSoup (``html.parser``), never with regular expressions; the result is
    normalized with :func:`ditto_nb.text.normalize_text`.

    Args:
        fragment: HTML such as ``a <strong>b</strong> &amp; c`` (None → ``""``).

    Returns:
        e.g. ``a b & c``.
    """
    if not fragment:
        return ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        text = BeautifulSoup(fragment, "html.parser").get_text()
    return normalize_text(text)


def check_search_args(query: str, limit: int) -> str:
    """Validate search arguments; return the stripped query.

    Args:
        query: search text (must contain a non-space character).
        limit: number of hits wanted (1–100).

    Returns:
        The query, stripped.

    Raises:
        InvalidRequest: blank query or limit outside 1–100.
    """
    if not isinstance(query, str) or not query.strip():
        raise InvalidRequest("search query must not be blank")
    if not isinstance(limit, int) or not 1 <= limit <= 100:
        raise InvalidRequest(f"search limit must be between 1 and 100, got {limit!r}")
    return query.strip()


__all__ = ["SearchHit", "WebSearchProvider", "check_search_args", "strip_html"]
