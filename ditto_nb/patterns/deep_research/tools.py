"""Tool names of the research plan and the research-only tools.

The shared adapters (``web_search``, ``page_read``, ``snapshot_check``, ``policy_check``,
``verify_quotes``, ``publish``) come from :func:`ditto_nb.patterns.common.build_task_tools`;
research adds ``clock`` so the plan can measure ``research_seconds`` without reading the clock
itself (the plan does no I/O).
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ditto_nb.patterns.common import SearchSetup, build_task_tools

Tool = Callable[..., Awaitable[Any]]

TOOL_SEARCH = "web_search"
TOOL_READ = "page_read"
TOOL_SNAPSHOTS = "snapshot_check"
TOOL_POLICY = "policy_check"
TOOL_CLOCK = "clock"
TOOL_PUBLISH = "publish"


def make_clock(clock: Callable[[], float] = time.time) -> Tool:
    """Build the ``clock`` tool.

    Args:
        clock: seconds since the epoch (``time.time`` by default; tests may pass their own).

    Returns:
        An async tool ``clock() -> float`` (seconds since the epoch).
    """

    async def clock_tool() -> float:
        return float(clock())

    return clock_tool


def build_research_tools(
    directory: str | os.PathLike[str],
    allowed_origins: tuple[str, ...] | list[str],
    search: SearchSetup,
    *,
    clock: Callable[[], float] = time.time,
    provider: Any | None = None,
) -> dict[str, Tool]:
    """The research task's tools: the shared adapters plus ``clock``.

    Args:
        directory: the task directory.
        allowed_origins: the request's allowed origins.
        search: search provider setup and fetch-policy extras.
        clock: time source for the ``clock`` tool (seconds since the epoch).
        provider: an already-built search provider (optional).

    Returns:
        ``{tool name: async callable}``.
    """
    tools = build_task_tools(directory, allowed_origins, search, provider=provider)
    tools[TOOL_CLOCK] = make_clock(clock)
    return tools


__all__ = [
    "TOOL_CLOCK",
    "TOOL_POLICY",
    "TOOL_PUBLISH",
    "TOOL_READ",
    "TOOL_SEARCH",
    "TOOL_SNAPSHOTS",
    "build_research_tools",
    "make_clock",
]
