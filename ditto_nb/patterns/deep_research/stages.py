"""Stage graph builders of the research plan: flat DAGs of Worker nodes.

What comes from :mod:`ditto_nb.patterns.common` unchanged: the ``resume`` graph
(:func:`~ditto_nb.patterns.common.build_resume_graph`: request binding and ``RequestChanged``,
``stage/``/``ledger/``/``budget/`` rows, Context load/rebuild, ``policy_check`` and
``snapshot_check`` of every page the task used), ``now_iso`` and ``run_step``.

Budgeted dispatch is the common one (:func:`~ditto_nb.patterns.common.add_ledgered_call`,
counters ``budget/model|search|read``, replay by :class:`~ditto_nb.patterns.common.Ledger` with
the policy flag ``reuse_failed=True``: a round's URL list is frozen, so a resumed round rebuilds
the same evidence from recorded failures too).

What research adds, as policy rather than copies:

- **Clock and persisted start time.** ``research_seconds`` counts from the task's first start,
  pauses included (SPEC §4), and the plan may not read the clock itself. :func:`resume_graph`
  therefore adds, to the common graph, a ``clock`` node (tool ``clock``), a ``start`` write of
  ``started_at`` (only if absent) and reads of the research-only rows (``round/<n>/...`` frozen
  round plans and the saved ``stage/report``). Every other stage graph also ends with a ``clock``.
- **Queued stage rows.** The plan queues its ``stage/``, ``round/`` rows and writes them in one
  ``persist`` node of the next stage graph (one transaction with that stage's first charge), as
  the round loop (plan → search → read → assess, each resumable on its own) commits several
  stages per graph.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from ditto_nb.patterns.common import TaskScope, binding_for, build_resume_graph, check_binding
from ditto_nb.patterns.common.records import MemoryCall, ModelPayload
from ditto_nb.patterns.deep_research.request import ResearchRequest
from ditto_nb.patterns.deep_research.tools import TOOL_CLOCK
from ditto_nb.runtime.capabilities import (
    CONTEXT_LOAD,
    INTERACTION_ACT_TOOL,
    MEMORY_GET,
    MEMORY_WRITE,
)
from ditto_nb.runtime.graph import Graph, NodeOutputs

STARTED_KEY = "started_at"
"""Memory key of the persisted start time (seconds since the epoch, written once)."""

REPORT_KEY = "stage/report"
"""Memory key of the final report (both patterns; research used ``report`` before issue 11)."""

RESUME_ROW_NODES = ("stages", "ledger", "budget", "rounds")
"""Resume-graph nodes whose outputs are ``[[key, value], ...]`` Memory rows."""


def task_scope(request: ResearchRequest) -> TaskScope:
    """The task's Memory namespace and Context scope.

    Args:
        request: the validated request.

    Returns:
        ``TaskScope(research:{id}, research:{tenant}:{principal}:{id})``.
    """
    return request.task_scope


def add_clock(g: Graph, after: tuple[str, ...] = ()) -> Graph:
    """Add the ``clock`` node (tool ``clock``; output: seconds since the epoch).

    Args:
        g: the graph.
        after: nodes that must finish first.

    Returns:
        ``g``.
    """
    return g.node("clock", INTERACTION_ACT_TOOL, {"tool": TOOL_CLOCK, "args": {}}, after=after)


def add_persist(g: Graph, namespace: str, writes: list[tuple[str, Any]]) -> None:
    """Add a ``persist`` node writing ``writes`` (key, value) in one transaction, if any.

    Args:
        g: the graph.
        namespace: the task's Memory namespace.
        writes: ``(key, JSON value)`` pairs queued by the plan.
    """
    if writes:
        g.node(
            "persist",
            MEMORY_WRITE,
            {"writes": [{"namespace": namespace, "key": key, "value": value} for key, value in writes]},
        )


def model_payload(
    model: Mapping[str, str], purpose: str, messages: list[dict[str, str]], schema: type[BaseModel],
    max_tokens: int | None = None,
) -> ModelPayload:
    """The ``INFER.REASONING.SAMPLE`` input of one research model call.

    Args:
        model: ``{"provider", "model"}``.
        purpose: the call's purpose (``Task: <purpose>``).
        messages: chat messages.
        schema: the output schema.
        max_tokens: completion token limit (tokens); None keeps the provider's default.

    Returns:
        The Infer Worker input.
    """
    payload: ModelPayload = {
        "provider": model["provider"],
        "model": model["model"],
        "messages": messages,
        "output_schema": schema,
        "purpose": purpose,
    }
    if max_tokens is not None:
        payload["max_tokens"] = max_tokens
    return payload


def resume_graph(request: ResearchRequest) -> Graph:
    """The ``resume`` graph run first on every call: the common one plus the research rows.

    Added to :func:`~ditto_nb.patterns.common.build_resume_graph`: ``clock``; ``start`` (write
    ``started_at`` = the clock, only if absent); ``started`` (read it back); ``rounds`` (the
    ``round/`` rows); ``report`` (the saved ``stage/report``, if any). ``started``/``rounds``/``report`` run
    after ``binding`` and refuse a changed request with ``RequestChanged`` like the common nodes.

    Args:
        request: the request of this call.

    Returns:
        The graph.
    """
    task = task_scope(request)
    ns = task.namespace
    binding = binding_for(request.model_dump(mode="json"))
    g = build_resume_graph(task, binding)
    add_clock(g)

    def checked(make: Callable[[NodeOutputs], MemoryCall]) -> Callable[[NodeOutputs], MemoryCall]:
        def compute(deps: NodeOutputs) -> MemoryCall:
            check_binding(deps["binding"], binding)
            return make(deps)

        return compute

    g.node("start", MEMORY_WRITE,
           checked(lambda deps: {"namespace": ns, "key": STARTED_KEY, "value": deps["clock"], "if_absent": True}),
           after=("clock", "binding"))
    g.node("started", MEMORY_GET, checked(lambda _: {"namespace": ns, "key": STARTED_KEY}), after=("start", "binding"))
    g.node("rounds", MEMORY_GET, checked(lambda _: {"namespace": ns, "prefix": "round/"}), after=("binding",))
    g.node("report", MEMORY_GET, checked(lambda _: {"namespace": ns, "key": REPORT_KEY}), after=("binding",))
    return g


def context_node(
    g: Graph, request: ResearchRequest, update: Mapping[str, str | int], after: tuple[str, ...] = ()
) -> None:
    """Add a ``context`` node writing the working set ``update`` to the task's Context.

    Args:
        g: the graph.
        request: the request (scope and namespace).
        update: Context fields to write.
        after: nodes that must finish first.
    """
    g.node("context", CONTEXT_LOAD, {"scope": request.scope_key, "namespace": request.namespace,
                                     "update": update}, after=after)


__all__ = [
    "REPORT_KEY",
    "RESUME_ROW_NODES",
    "STARTED_KEY",
    "add_clock",
    "add_persist",
    "context_node",
    "model_payload",
    "resume_graph",
    "task_scope",
]
