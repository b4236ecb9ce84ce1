"""The Loop: drive a plan generator, run each yielded graph, record a trace.

A *plan* is a generator function. ``run_loop`` calls ``plan(*args)``, and for every
:class:`~ditto_nb.runtime.graph.GraphStep` it yields: checks the graph budget (128 graphs per
loop), validates the graph, runs it (nodes whose dependencies are done run concurrently as
asyncio tasks), reports a :class:`GraphRecord` to ``on_graph`` and sends ``{node_id: output}``
back. The generator's return value is the loop's result.
"""

from __future__ import annotations

import asyncio
import graphlib
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from ditto_nb.errors import GraphBudgetExceeded, GraphError, LoopCancelled
from ditto_nb.runtime.graph import Graph, GraphStep, Node, validate_graph
from ditto_nb.runtime.signal import Signal

MAX_GRAPHS_PER_LOOP = 128
"""At most this many graphs run in one loop; the next one raises ``GraphBudgetExceeded``."""

R = TypeVar("R")

Outcome = Literal["ok", "failed", "cancelled"]
Plan = Callable[..., Generator[GraphStep, dict[str, Any], R]]
"""A generator function yielding graph steps, receiving ``{node_id: output}``, returning R."""


@runtime_checkable
class Worker(Protocol):
    """Anything that serves capabilities: ``capabilities`` plus ``async execute()``.

    An optional ``async close()`` is called by :meth:`ditto_nb.runtime.Runtime.close`.
    """

    @property
    def capabilities(self) -> frozenset[str]:
        """The capability names this worker serves (a plain attribute satisfies this)."""
        ...

    async def execute(self, capability: str, input: Any) -> Any:
        """Perform one call of ``capability`` with ``input`` and return its output."""
        ...


@dataclass(frozen=True)
class GraphRecord:
    """Trace record of one executed graph.

    Attributes:
        index: 0-based position of the graph in its loop.
        name: the graph's (stage) name.
        node_ids: node ids in declaration order.
        started_at: UTC time the graph started.
        ended_at: UTC time it finished, failed or was cancelled.
        seconds: wall time (seconds, monotonic clock).
        outcome: ``"ok"``, ``"failed"`` (a node raised) or ``"cancelled"`` (signal or task
            cancellation).
        error: ``"ErrorType: message"`` of the failure, or the cancel reason; None when ok.
    """

    index: int
    name: str
    node_ids: tuple[str, ...]
    started_at: datetime
    ended_at: datetime
    seconds: float
    outcome: Outcome
    error: str | None = None


OnGraph = Callable[[GraphRecord], None]


async def _run_node(node: Node, worker: Worker, outputs: Mapping[str, Any]) -> Any:
    value = node.resolve_input(outputs)
    return await worker.execute(node.capability, value)


async def _cancel_all(tasks: Sequence[asyncio.Task[Any]]) -> None:
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.gather(*tasks, return_exceptions=True)


async def run_graph(g: Graph, routes: Mapping[str, Worker], signal: Signal | None = None) -> dict[str, Any]:
    """Run one (already validated) graph to completion.

    Args:
        g: the graph; validate it first with :func:`~ditto_nb.runtime.graph.validate_graph`.
        routes: capability → Worker.
        signal: aborting it cancels the running nodes.

    Returns:
        ``{node_id: output}`` for every node.

    Raises:
        LoopCancelled: the signal aborted; all running nodes were cancelled (and awaited).
        Exception: the first node error, unchanged, after the other running nodes were
            cancelled; a note names the graph and node.
    """
    nodes = {node.id: node for node in g.nodes}
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for node in g.nodes:
        sorter.add(node.id, *node.after)
    sorter.prepare()
    outputs: dict[str, Any] = {}
    running: dict[asyncio.Task[Any], str] = {}
    watcher: asyncio.Task[None] | None = None
    if signal is not None:
        watcher = asyncio.ensure_future(signal.wait())
    try:
        while sorter.is_active():
            for node_id in sorter.get_ready():
                node = nodes[node_id]
                task = asyncio.ensure_future(_run_node(node, routes[node.capability], outputs))
                running[task] = node_id
            waiting: set[asyncio.Future[Any]] = set(running)
            if watcher is not None:
                waiting.add(watcher)
            done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if signal is not None and signal.aborted:
                raise LoopCancelled(f"loop cancelled during graph {g.name!r}: {signal.reason}")
            finished = sorted((running.pop(task), task) for task in done if task in running)
            errors = [(node_id, task.exception()) for node_id, task in finished]  # retrieves all
            for node_id, error in errors:
                if error is not None:
                    capability = nodes[node_id].capability
                    error.add_note(f"raised by node {node_id!r} ({capability}) of graph {g.name!r}")
                    raise error
            for node_id, task in finished:
                outputs[node_id] = task.result()
                sorter.done(node_id)
        return {node.id: outputs[node.id] for node in g.nodes}
    finally:
        pending = list(running)
        if watcher is not None:
            pending.append(watcher)
        await _cancel_all(pending)


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


async def run_loop(
    plan: Plan[R],
    args: Sequence[Any],
    routes: Mapping[str, Worker],
    *,
    signal: Signal | None = None,
    on_graph: OnGraph | None = None,
) -> R:
    """Drive a plan to completion. See :meth:`ditto_nb.runtime.Runtime.loop`."""
    generator = plan(*args)
    if not isinstance(generator, Generator):
        raise GraphError(f"a plan must be a generator function; {plan!r} returned {type(generator).__name__}")
    index = 0
    reply: dict[str, Any] | None = None
    error_in: BaseException | None = None
    try:
        while True:
            if signal is not None:
                signal.raise_if_aborted()
            try:
                if error_in is not None:
                    pending_error, error_in = error_in, None
                    step = generator.throw(pending_error)
                elif reply is None:
                    step = next(generator)
                else:
                    step = generator.send(reply)
            except StopIteration as stop:
                result: R = stop.value
                return result
            if not isinstance(step, GraphStep):
                raise GraphError(f"a plan must yield graph_step(graph); it yielded {type(step).__name__}")
            if index >= MAX_GRAPHS_PER_LOOP:
                raise GraphBudgetExceeded(
                    f"graph {step.graph.name!r} would be graph {index + 1} of this loop; "
                    f"the limit is {MAX_GRAPHS_PER_LOOP}"
                )
            validate_graph(step.graph, routes)
            if signal is not None:
                signal.raise_if_aborted()
            try:
                reply = await _run_traced(step.graph, index, routes, signal, on_graph)
            except (LoopCancelled, GraphError, asyncio.CancelledError):
                raise
            except Exception as exc:  # a node's own error: offer it to the plan, unchanged
                error_in = exc
            index += 1
    finally:
        generator.close()


async def _run_traced(
    g: Graph, index: int, routes: Mapping[str, Worker], signal: Signal | None, on_graph: OnGraph | None
) -> dict[str, Any]:
    started_at = datetime.now(UTC)
    start = time.perf_counter()
    outcome: Outcome = "failed"
    error: str | None = None
    try:
        outputs = await run_graph(g, routes, signal)
        outcome = "ok"
        return outputs
    except LoopCancelled:
        outcome, error = "cancelled", str(signal.reason if signal is not None else "cancelled")
        raise
    except asyncio.CancelledError:
        outcome, error = "cancelled", "task cancelled"
        raise
    except BaseException as exc:
        error = _describe(exc)
        raise
    finally:
        if on_graph is not None:
            on_graph(
                GraphRecord(
                    index=index,
                    name=g.name,
                    node_ids=g.node_ids,
                    started_at=started_at,
                    ended_at=datetime.now(UTC),
                    seconds=time.perf_counter() - start,
                    outcome=outcome,
                    error=error,
                )
            )


__all__ = ["MAX_GRAPHS_PER_LOOP", "GraphRecord", "OnGraph", "Outcome", "Plan", "Worker", "run_graph", "run_loop"]
