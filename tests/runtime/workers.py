"""Tiny in-test Workers (plain classes, no model): they sleep, echo, record and fail on demand."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from ditto_nb.runtime import INTERACTION_ACT_TOOL, MEMORY_GET


@dataclass
class Call:
    name: str
    input: Any
    started: float
    ended: float | None = None
    cancelled: bool = False
    finally_ran: bool = False


@dataclass
class SleepWorker:
    """Serves INTERACTION.ACT.TOOL: ``{"name", "seconds"=0, "value"=None, "fail"=None}``.

    Sleeps ``seconds``, then raises ``fail`` if given, else returns ``{"name", "value"}``.
    Every call is recorded, including whether it was cancelled and whether its finally ran.
    """

    capabilities: frozenset[str] = frozenset({INTERACTION_ACT_TOOL})
    calls: list[Call] = field(default_factory=list)
    closed: bool = False

    async def execute(self, capability: str, input: Any) -> Any:
        assert capability == INTERACTION_ACT_TOOL
        call = Call(name=input["name"], input=input, started=time.perf_counter())
        self.calls.append(call)
        try:
            await asyncio.sleep(input.get("seconds", 0))
            if input.get("fail") is not None:
                raise input["fail"]
            return {"name": input["name"], "value": input.get("value")}
        except asyncio.CancelledError:
            call.cancelled = True
            raise
        finally:
            call.ended = time.perf_counter()
            call.finally_ran = True

    async def close(self) -> None:
        self.closed = True

    def by_name(self, name: str) -> Call:
        matches = [call for call in self.calls if call.name == name]
        assert len(matches) == 1, f"{name} was called {len(matches)} times"
        return matches[0]


@dataclass
class EchoWorker:
    """Serves MEMORY.GET: returns its input unchanged (and counts calls)."""

    capabilities: frozenset[str] = frozenset({MEMORY_GET})
    count: int = 0

    async def execute(self, capability: str, input: Any) -> Any:
        self.count += 1
        return input
