"""run_sync: the sync facade outside and inside a running event loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from ditto_nb.runtime import MEMORY_GET, create_ditto, graph, graph_step, run_sync
from tests.runtime.workers import EchoWorker


def _plan(value: int) -> Any:
    out = yield graph_step(graph("g").node("x", MEMORY_GET, value))
    return out["x"] + 1


async def _where() -> tuple[int, int]:
    return threading.get_ident(), id(asyncio.get_running_loop())


def test_run_sync_outside_a_loop() -> None:
    runtime = create_ditto(workers=[EchoWorker()])
    assert run_sync(runtime.loop(_plan, (41,))) == 42
    thread, _ = run_sync(_where())
    assert thread == threading.get_ident()  # no thread needed without a running loop


async def test_run_sync_inside_a_running_loop() -> None:
    runtime = create_ditto(workers=[EchoWorker()])
    assert run_sync(runtime.loop(_plan, (1,))) == 2
    thread, loop_id = run_sync(_where())
    assert thread != threading.get_ident()  # a private loop in a worker thread
    assert loop_id != id(asyncio.get_running_loop())


async def test_run_sync_propagates_errors_unchanged() -> None:
    error = RuntimeError("inner")

    async def fail() -> None:
        raise error

    with pytest.raises(RuntimeError) as caught:
        run_sync(fail())
    assert caught.value is error
