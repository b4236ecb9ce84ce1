"""The fixed capability names a Worker can declare.

A Runtime routes every graph node to the one Worker that declared the node's capability.
The names are part of the product contract (``SPEC.md`` §2) and never change.
"""

from __future__ import annotations

from typing import Final

CONTEXT_LOAD: Final = "CONTEXT.LOAD"
"""Load (and optionally update) a task's working set in Redis."""

MEMORY_GET: Final = "MEMORY.GET"
"""Read durable state from the task's MemoryStore."""

MEMORY_WRITE: Final = "MEMORY.WRITE"
"""Write durable state to the task's MemoryStore."""

INFER_REASONING_SAMPLE: Final = "INFER.REASONING.SAMPLE"
"""One structured-output model call through an OpenAI-compatible chat API."""

INTERACTION_ACT_TOOL: Final = "INTERACTION.ACT.TOOL"
"""Dispatch one named tool (search, page read, publish, ...)."""

ALL_CAPABILITIES: Final[frozenset[str]] = frozenset(
    {CONTEXT_LOAD, MEMORY_GET, MEMORY_WRITE, INFER_REASONING_SAMPLE, INTERACTION_ACT_TOOL}
)
"""Every capability name defined by the product contract."""

__all__ = [
    "ALL_CAPABILITIES",
    "CONTEXT_LOAD",
    "INFER_REASONING_SAMPLE",
    "INTERACTION_ACT_TOOL",
    "MEMORY_GET",
    "MEMORY_WRITE",
]
