"""Abort and timeout: running nodes are cancelled, nothing more is scheduled."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from ditto_nb.errors import LoopCancelled
from ditto_nb.runtime import INTERACTION_ACT_TOOL, GraphRecord, Signal, create_ditto, graph, graph_step
from tests.runtime.workers import SleepWorker

T = INTERACTION_ACT_TOOL


class ThreeStagePlan:
    """fast graph → slow graph (two 5 s nodes) → a third graph that must never start."""

    def __init__(self) -> None:
        self.after_slow = False
        self.closed = False

    def __call__(self) -> Any:
        try:
            yield graph_step(graph("fast").node("f", T, {"name": "f"}))
            yield graph_step(
                graph("slow").node("s1", T, {"name": "s1", "seconds": 5}).node("s2", T, {"name": "s2", "seconds": 5})
            )
            self.after_slow = True
            yield graph_step(graph("never").node("n", T, {"name": "n"}))
            return "finished"
        finally:
            self.closed = True


def _assert_cancelled_mid_graph(
    sleeper: SleepWorker, plan: ThreeStagePlan, records: list[GraphRecord], elapsed: float
) -> None:
    assert elapsed < 1.0, elapsed
    assert [(r.name, r.outcome) for r in records] == [("fast", "ok"), ("slow", "cancelled")]
    assert not plan.after_slow  # no later graph was scheduled
    assert plan.closed  # the plan generator was closed
    assert [call.name for call in sleeper.calls] == ["f", "s1", "s2"]
    for name in ("s1", "s2"):
        call = sleeper.by_name(name)
        assert call.cancelled and call.finally_ran  # no node left running
    assert not sleeper.by_name("f").cancelled


async def test_abort_mid_graph_cancels_nodes_and_schedules_nothing() -> None:
    sleeper, plan = SleepWorker(), ThreeStagePlan()
    records: list[GraphRecord] = []
    runtime = create_ditto(workers=[sleeper])
    signal = Signal()
    asyncio.get_running_loop().call_later(0.2, signal.abort, "user pressed stop")
    start = time.perf_counter()
    with pytest.raises(LoopCancelled, match="user pressed stop"):
        await runtime.loop(plan, (), signal=signal, on_graph=records.append)
    _assert_cancelled_mid_graph(sleeper, plan, records, time.perf_counter() - start)
    assert records[1].error == "user pressed stop"
    assert signal.aborted and signal.reason == "user pressed stop"


async def test_abort_from_another_thread() -> None:
    sleeper, plan = SleepWorker(), ThreeStagePlan()
    records: list[GraphRecord] = []
    runtime = create_ditto(workers=[sleeper])
    signal = Signal()
    timer = threading.Timer(0.2, signal.abort)
    timer.start()
    start = time.perf_counter()
    try:
        with pytest.raises(LoopCancelled, match="aborted"):
            await runtime.loop(plan, (), signal=signal, on_graph=records.append)
    finally:
        timer.cancel()
    _assert_cancelled_mid_graph(sleeper, plan, records, time.perf_counter() - start)


async def test_timeout_mid_graph() -> None:
    sleeper, plan = SleepWorker(), ThreeStagePlan()
    records: list[GraphRecord] = []
    runtime = create_ditto(workers=[sleeper])
    signal = Signal.timeout(0.3)
    assert not signal.aborted
    start = time.perf_counter()
    with pytest.raises(LoopCancelled, match="timeout after 0.3 s"):
        await runtime.loop(plan, (), signal=signal, on_graph=records.append)
    elapsed = time.perf_counter() - start
    assert elapsed >= 0.25
    _assert_cancelled_mid_graph(sleeper, plan, records, elapsed)


async def test_already_aborted_signal_runs_nothing() -> None:
    sleeper, plan = SleepWorker(), ThreeStagePlan()
    records: list[GraphRecord] = []
    runtime = create_ditto(workers=[sleeper])
    signal = Signal()
    signal.abort()
    signal.abort("second reason is ignored")
    assert signal.reason == "aborted"
    with pytest.raises(LoopCancelled):
        await runtime.loop(plan, (), signal=signal, on_graph=records.append)
    assert sleeper.calls == [] and records == []


async def test_abort_between_graphs_stops_before_the_next_graph() -> None:
    sleeper = SleepWorker()
    runtime = create_ditto(workers=[sleeper])
    signal = Signal()
    records: list[GraphRecord] = []

    def plan() -> Any:
        yield graph_step(graph("one").node("a", T, {"name": "a"}))
        signal.abort("stop after one")  # the plan itself decides to stop (e.g. a widget callback)
        yield graph_step(graph("two").node("b", T, {"name": "b"}))

    with pytest.raises(LoopCancelled, match="stop after one"):
        await runtime.loop(plan, (), signal=signal, on_graph=records.append)
    assert [call.name for call in sleeper.calls] == ["a"]
    assert [r.name for r in records] == ["one"]


def test_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Signal.timeout(0)
