"""Graph validation: every invalid graph is rejected before any of its nodes runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ditto_nb.errors import ConfigError, GraphError
from ditto_nb.runtime import (
    INFER_REASONING_SAMPLE,
    INTERACTION_ACT_TOOL,
    MEMORY_GET,
    Graph,
    GraphRecord,
    create_ditto,
    graph,
    graph_step,
)
from tests.runtime.workers import EchoWorker, SleepWorker

T = INTERACTION_ACT_TOOL


def _tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, **extra}


INVALID_GRAPHS: dict[str, tuple[Callable[[], Graph], str]] = {
    "duplicate id": (
        lambda: graph("g").node("a", T, _tool("a")).node("a", T, _tool("a2")),
        "duplicate node id 'a'",
    ),
    "unknown dependency": (
        lambda: graph("g").node("a", T, _tool("a")).node("b", T, _tool("b"), after=["zz"]),
        "unknown node 'zz'",
    ),
    "self dependency": (
        lambda: graph("g").node("a", T, _tool("a"), after=["a"]),
        "depends on itself",
    ),
    "cycle": (
        lambda: graph("g")
        .node("ok", T, _tool("ok"))
        .node("a", T, _tool("a"), after=["c"])
        .node("b", T, _tool("b"), after=["a"])
        .node("c", T, _tool("c"), after=["b"]),
        "cycle",
    ),
    "capability without worker": (
        lambda: graph("g").node("ok", T, _tool("ok")).node("m", INFER_REASONING_SAMPLE, {}),
        "INFER.REASONING.SAMPLE",
    ),
    "graph as input": (
        lambda: graph("g").node("ok", T, _tool("ok")).node("x", MEMORY_GET, graph("inner")),
        "Graph as input",
    ),
    "graph nested in input": (
        lambda: graph("g").node("x", MEMORY_GET, {"steps": [1, graph("inner")]}),
        "Graph as input",
    ),
    "empty node id": (
        lambda: graph("g").node("", T, _tool("a")),
        "non-empty",
    ),
}


@pytest.mark.parametrize("case", sorted(INVALID_GRAPHS))
async def test_invalid_graph_raises_and_nothing_runs(case: str) -> None:
    build, message = INVALID_GRAPHS[case]
    sleeper, echo = SleepWorker(), EchoWorker()
    runtime = create_ditto(workers=[sleeper, echo])
    records: list[GraphRecord] = []
    reached_after_yield = False

    def plan() -> Any:
        nonlocal reached_after_yield
        first = yield graph_step(graph("before").node("p", T, _tool("p")))
        assert first["p"]["name"] == "p"
        yield graph_step(build())
        reached_after_yield = True
        return "unreachable"

    with pytest.raises(GraphError, match=message):
        await runtime.loop(plan, (), on_graph=records.append)
    # The first (valid) graph ran; none of the rejected graph's nodes did, and it has no record.
    assert [call.name for call in sleeper.calls] == ["p"]
    assert echo.count == 0
    assert [record.name for record in records] == ["before"]
    assert not reached_after_yield


async def test_callable_input_returning_graph_is_rejected() -> None:
    runtime = create_ditto(workers=[SleepWorker(), EchoWorker()])

    def plan() -> Any:
        yield graph_step(
            graph("g").node("a", T, _tool("a")).node("b", MEMORY_GET, lambda deps: graph("x"), after=["a"])
        )

    with pytest.raises(GraphError, match="returned a Graph"):
        await runtime.loop(plan)


async def test_plan_must_be_generator_and_yield_graph_steps() -> None:
    runtime = create_ditto(workers=[SleepWorker()])

    def not_a_generator() -> int:
        return 1

    def yields_a_graph() -> Any:
        yield graph("g").node("a", T, _tool("a"))  # forgot graph_step()

    with pytest.raises(GraphError, match="generator"):
        await runtime.loop(not_a_generator)  # type: ignore[arg-type]
    with pytest.raises(GraphError, match="graph_step"):
        await runtime.loop(yields_a_graph)
    with pytest.raises(GraphError, match="needs a Graph"):
        graph_step("g")  # type: ignore[arg-type]


def test_two_workers_with_one_capability_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="INTERACTION.ACT.TOOL"):
        create_ditto(workers=[SleepWorker(), SleepWorker()])


def test_object_without_execute_is_not_a_worker() -> None:
    class NoExecute:
        capabilities = frozenset({MEMORY_GET})

    with pytest.raises(ConfigError, match="not a Worker"):
        create_ditto(workers=[NoExecute()])  # type: ignore[list-item]


def test_runtime_routes_by_capability() -> None:
    sleeper, echo = SleepWorker(), EchoWorker()
    runtime = create_ditto(workers=[sleeper, echo])
    assert runtime.routes[T] is sleeper
    assert runtime.routes[MEMORY_GET] is echo
    assert runtime.capabilities == frozenset({T, MEMORY_GET})
