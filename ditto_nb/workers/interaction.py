"""The Interaction Worker: ``INTERACTION.ACT.TOOL`` dispatches named async tools.

Every I/O of a job (search, page read, snapshot check, publish, ...) goes through a tool
registered here, so the Runtime's trace and the ``dispatches`` counter see all of it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ditto_nb.errors import InvalidRequest, ToolFailed, ToolNotFound
from ditto_nb.runtime.capabilities import INTERACTION_ACT_TOOL

Tool = Callable[..., Awaitable[Any]]
"""An async callable taking keyword arguments."""


class InteractionWorker:
    """Dispatches ``{"tool": name, "args": {...}}`` to ``await tools[name](**args)``.

    Attributes:
        tools: the registry, name → async callable.
        dispatches: how many times each tool was dispatched (also counting failed calls;
            unknown names are not counted).
    """

    capabilities: frozenset[str] = frozenset({INTERACTION_ACT_TOOL})

    def __init__(self, tools: Mapping[str, Tool]) -> None:
        self.tools: dict[str, Tool] = dict(tools)
        self.dispatches: Counter[str] = Counter()

    def register(self, name: str, tool: Tool) -> None:
        """Add or replace a tool.

        Args:
            name: the tool's name.
            tool: an async callable taking keyword arguments.
        """
        self.tools[name] = tool

    async def execute(self, capability: str, input: Any) -> Any:
        """Dispatch one tool call.

        Args:
            capability: ``INTERACTION.ACT.TOOL``.
            input: ``{"tool": name, "args": {...}}`` (``args`` optional).

        Returns:
            Whatever the tool returns.

        Raises:
            InvalidRequest: another capability, or malformed input.
            ToolNotFound: no tool of that name.
            ToolFailed: the tool raised (any exception, including DittoErrors); the original
                is ``.cause`` and ``__cause__``. Cancellation is not wrapped.
        """
        if capability != INTERACTION_ACT_TOOL:
            raise InvalidRequest(f"the Interaction Worker does not serve {capability!r}")
        if not isinstance(input, Mapping) or not isinstance(input.get("tool"), str):
            raise InvalidRequest("INTERACTION.ACT.TOOL input must be {'tool': name, 'args': {...}}")
        name: str = input["tool"]
        args = input.get("args") or {}
        if not isinstance(args, Mapping):
            raise InvalidRequest(f"INTERACTION.ACT.TOOL args for {name!r} must be a mapping")
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            raise ToolNotFound(f"no tool named {name!r} (registered: {known})")
        self.dispatches[name] += 1
        try:
            return await tool(**args)
        except Exception as exc:
            raise ToolFailed(name, exc) from exc

    async def close(self) -> None:
        """Nothing to release: tools own their resources."""


def create_interaction_worker(tools: Mapping[str, Tool]) -> InteractionWorker:
    """Create the Interaction Worker.

    Args:
        tools: name → async callable taking keyword arguments.

    Returns:
        A Worker serving ``INTERACTION.ACT.TOOL``.
    """
    return InteractionWorker(tools)


__all__ = ["InteractionWorker", "Tool", "create_interaction_worker"]
