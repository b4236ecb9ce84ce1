"""The Loop: concurrency, dependency outputs, the trace, the graph budget, node errors."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pytest

from ditto_nb.errors import GraphBudgetExceeded
from ditto_nb.runtime import (
    INTERACTION_ACT_TOOL,
    MAX_GRAPHS_PER_LOOP,
    MEMORY_GET,
    GraphRecord,
    create_ditto,
    graph,
    graph_step,
)
from tests.runtime.workers import EchoWorker, SleepWorker

T = INTERACTION_ACT_TOOL


async def test_independent_nodes_run_concurrently() -> None:
    sleeper = SleepWorker()
    runtime = create_ditto(workers=[sleeper])

    def plan() -> Any:
        out = yield graph_step(
            graph("pair").node("a", T, {"name": "a", "seconds": 0.2}).node("b", T, {"name": "b", "seconds": 0.2})
        )
        return out

    start = time.perf_counter()
    result = await runtime.loop(plan)
    elapsed = time.perf_counter() - start
    assert result == {"a": {"name": "a", "value": None}, "b": {"name": "b", "value": None}}
    assert 0.2 <= elapsed < 0.38, elapsed  # sequential would take >= 0.4 s
    a, b = sleeper.by_name("a"), sleeper.by_name("b")
    assert b.started < a.ended  # type: ignore[operator]  # overlapping


async def test_dependents_wait_and_receive_only_their_dependencies_outputs() -> None:
    sleeper, echo = SleepWorker(), EchoWorker()
    runtime = create_ditto(workers=[sleeper, echo])
    seen: list[dict[str, Any]] = []

    def combine(deps: dict[str, Any]) -> dict[str, Any]:
        seen.append(dict(deps))
        return {"sum": deps["a"]["value"] + deps["b"]["value"]}

    def plan(x: int, y: int) -> Any:
        out = yield graph_step(
            graph("diamond")
            .node("a", T, {"name": "a", "seconds": 0.05, "value": x})
            .node("b", T, {"name": "b", "seconds": 0.1, "value": y})
            .node("z", T, {"name": "z", "value": "unrelated"})
            .node("c", MEMORY_GET, combine, after=["a", "b"])
            .node("d", T, lambda deps: {"name": "d", "value": deps["c"]["sum"] * 10}, after="c")
        )
        return out["c"], out["d"]["value"], list(out)

    c, d, keys = await runtime.loop(plan, (2, 3))
    assert c == {"sum": 5}
    assert d == 50
    assert keys == ["a", "b", "z", "c", "d"]  # outputs in declaration order
    assert seen == [{"a": {"name": "a", "value": 2}, "b": {"name": "b", "value": 3}}]
    assert sleeper.by_name("d").started >= sleeper.by_name("b").ended  # type: ignore[operator]


async def test_plan_return_value_and_yield_from_sub_generators() -> None:
    runtime = create_ditto(workers=[EchoWorker()])

    def stage(n: int) -> Any:
        out = yield graph_step(graph(f"stage-{n}").node("x", MEMORY_GET, n))
        return out["x"] * 2

    def plan(count: int) -> Any:
        totals = []
        for n in range(count):
            totals.append((yield from stage(n)))
        return totals

    assert await runtime.loop(plan, [4]) == [0, 2, 4, 6]


async def test_trace_records_every_executed_graph() -> None:
    runtime = create_ditto(workers=[SleepWorker(), EchoWorker()])
    records: list[GraphRecord] = []

    def plan() -> Any:
        yield graph_step(graph("search").node("q1", T, {"name": "q1", "seconds": 0.05}).node("q2", MEMORY_GET, 1))
        yield graph_step(graph("read").node("r", T, {"name": "r"}))
        return "done"

    before = datetime.now(UTC)
    assert await runtime.loop(plan, (), on_graph=records.append) == "done"
    after = datetime.now(UTC)
    assert [(r.index, r.name, r.node_ids, r.outcome, r.error) for r in records] == [
        (0, "search", ("q1", "q2"), "ok", None),
        (1, "read", ("r",), "ok", None),
    ]
    first, second = records
    assert before <= first.started_at <= first.ended_at <= second.started_at <= second.ended_at <= after
    assert first.started_at.tzinfo is not None and first.started_at.utcoffset() == UTC.utcoffset(None)
    assert 0.05 <= first.seconds < 0.5
    with pytest.raises(AttributeError):
        first.name = "changed"  # type: ignore[misc]  # frozen


async def test_128_graphs_run_and_the_129th_raises_before_running() -> None:
    echo = EchoWorker()
    runtime = create_ditto(workers=[echo])
    records: list[GraphRecord] = []

    def plan(limit: int) -> Any:
        for n in range(limit):
            yield graph_step(graph(f"g{n}").node("x", MEMORY_GET, n))
        return limit

    assert MAX_GRAPHS_PER_LOOP == 128
    assert await runtime.loop(plan, (128,), on_graph=records.append) == 128
    assert echo.count == 128 and len(records) == 128

    records.clear()
    echo.count = 0
    with pytest.raises(GraphBudgetExceeded, match="129"):
        await runtime.loop(plan, (200,), on_graph=records.append)
    assert echo.count == 128  # the 129th graph's node never ran
    assert len(records) == 128 and records[-1].name == "g127"


async def test_node_error_propagates_unchanged_and_cancels_siblings() -> None:
    sleeper = SleepWorker()
    runtime = create_ditto(workers=[sleeper])
    records: list[GraphRecord] = []
    boom = ValueError("boom")

    def plan() -> Any:
        yield graph_step(
            graph("stage")
            .node("slow", T, {"name": "slow", "seconds": 5})
            .node("bad", T, {"name": "bad", "seconds": 0.05, "fail": boom})
            .node("later", T, {"name": "later"}, after=["bad"])
        )
        return "unreachable"

    start = time.perf_counter()
    with pytest.raises(ValueError) as caught:
        await runtime.loop(plan, (), on_graph=records.append)
    assert time.perf_counter() - start < 1.0
    assert caught.value is boom
    assert any("'bad'" in note and "'stage'" in note for note in caught.value.__notes__)
    slow = sleeper.by_name("slow")
    assert slow.cancelled and slow.finally_ran
    assert [call.name for call in sleeper.calls] == ["slow", "bad"]  # 'later' never started
    assert [(r.outcome, r.error) for r in records] == [("failed", "ValueError: boom")]


async def test_plan_may_handle_a_node_error_and_continue() -> None:
    runtime = create_ditto(workers=[SleepWorker(), EchoWorker()])
    records: list[GraphRecord] = []

    def plan() -> Any:
        try:
            yield graph_step(graph("fragile").node("bad", T, {"name": "bad", "fail": KeyError("missing")}))
        except KeyError as exc:
            recovered = yield graph_step(graph("fallback").node("x", MEMORY_GET, str(exc)))
            return recovered["x"]
        return "no error?"

    assert await runtime.loop(plan, (), on_graph=records.append) == "'missing'"
    assert [(r.name, r.outcome) for r in records] == [("fragile", "failed"), ("fallback", "ok")]


async def test_error_in_input_callable_propagates() -> None:
    runtime = create_ditto(workers=[SleepWorker(), EchoWorker()])

    def plan() -> Any:
        yield graph_step(
            graph("g").node("a", MEMORY_GET, 1).node("b", MEMORY_GET, lambda deps: deps["a"] / 0, after=["a"])
        )

    with pytest.raises(ZeroDivisionError):
        await runtime.loop(plan)


async def test_close_closes_workers() -> None:
    sleeper = SleepWorker()
    async with create_ditto(workers=[sleeper, EchoWorker()]) as runtime:
        assert runtime.workers[0] is sleeper
    assert sleeper.closed


async def test_simultaneous_failures_raise_one_error_and_record_failed() -> None:
    runtime = create_ditto(workers=[SleepWorker()])
    records: list[GraphRecord] = []
    first, second = OSError("first"), OSError("second")

    def plan() -> Any:
        yield graph_step(
            graph("both").node("x1", T, {"name": "x1", "fail": first}).node("x2", T, {"name": "x2", "fail": second})
        )

    with pytest.raises(OSError) as caught:
        await runtime.loop(plan, (), on_graph=records.append)
    assert caught.value is first  # the first failed node, by node id
    assert [(r.outcome, r.error) for r in records] == [("failed", "OSError: first")]


async def test_empty_graph_runs_with_no_outputs() -> None:
    runtime = create_ditto(workers=[EchoWorker()])
    records: list[GraphRecord] = []

    def plan() -> Any:
        out = yield graph_step(graph("nothing-to-do"))
        return out

    assert await runtime.loop(plan, (), on_graph=records.append) == {}
    assert [(r.name, r.node_ids, r.outcome) for r in records] == [("nothing-to-do", (), "ok")]
