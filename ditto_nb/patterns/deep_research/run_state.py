"""What the research loop knows while it runs, and its three graph helpers (no I/O).

:class:`ResearchState` holds the Memory rows read by the ``resume`` graph, the one
:class:`~ditto_nb.patterns.common.Ledger` (replay policy ``RESEARCH.replay``), the budget
counters and the clock; :func:`run_graph` finishes and yields one stage graph; :func:`model_call`
is one budgeted model call and :func:`tool_calls` one round's budgeted tool calls, each through
the one ledgered dispatch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from ditto_nb.patterns.common import Ledger, add_ledgered_call, run_step
from ditto_nb.patterns.common.ledger import Plan
from ditto_nb.patterns.deep_research import schemas
from ditto_nb.patterns.deep_research.prompts import Message
from ditto_nb.patterns.deep_research.request import ResearchRequest
from ditto_nb.patterns.deep_research.stage_models import RESEARCH
from ditto_nb.patterns.deep_research.stages import (
    RESUME_ROW_NODES,
    add_clock,
    add_persist,
    context_node,
    model_payload,
    task_scope,
)
from ditto_nb.runtime.capabilities import INFER_REASONING_SAMPLE, INTERACTION_ACT_TOOL
from ditto_nb.runtime.graph import Graph, NodeOutputs, graph

M = TypeVar("M", bound=BaseModel)

BUDGET_LIMITS = {"search": "max_searches", "read": "max_read_pages", "model": "max_model_calls"}


class ResearchState:
    """What the plan knows: Memory rows from ``resume``, the ledger and counters, the clock."""

    def __init__(self, request: ResearchRequest, resumed: NodeOutputs) -> None:
        self.request = request
        # Memory rows as read back (any JSON: stage and round objects, ledger rows, budget counts).
        self.rows: dict[str, Any] = {str(k): v for node in RESUME_ROW_NODES for k, v in resumed[node] or []}
        if resumed["report"] is not None:
            self.rows["report"] = resumed["report"]
        limits = {kind: int(getattr(request, field)) for kind, field in BUDGET_LIMITS.items()}
        # Research freezes each round's URL list, so a recorded failure is reused, not retried.
        self.ledger = Ledger.from_resume(resumed["ledger"], resumed["budget"], limits,
                                         reuse_failed=RESEARCH.replay.reuse_failed_dispatches)
        self.used = self.ledger.used
        self.started_at = float(resumed["started"])
        self.now = float(resumed["clock"])
        self.pending: list[tuple[str, Any]] = []
        self.worked = False

    def done(self, key: str, kind: str, name: str) -> Any | None:
        return self.ledger.reuse(key, kind, name)

    def elapsed(self) -> float:
        return self.now - self.started_at

    def budgets(self) -> dict[str, dict[str, int]]:
        return self.ledger.budgets()


def run_graph(st: ResearchState, g: Graph, stage: str, round_number: int = 0) -> Plan[NodeOutputs]:
    """Finish ``g`` (queued writes, Context update, clock), run it, and return its outputs."""
    add_persist(g, st.request.namespace, st.pending)
    context_node(g, st.request, {"stage": stage, "round": round_number})
    add_clock(g)
    out = yield from run_step(g)
    st.pending = []
    st.now = float(out["clock"])
    st.worked = True
    return out


def after_pending(st: ResearchState) -> tuple[str, ...]:
    return ("persist",) if st.pending else ()


def model_call(st: ResearchState, key: str, purpose: str, messages: list[Message], schema: type[M],
           model: Mapping[str, str], round_number: int = 0) -> Plan[M]:
    """One budgeted model call (reused from the ledger when done); returns the validated output."""
    output = st.done(key, "model", purpose)
    if output is None:
        st.ledger.charge("model")
        g = graph(key.removeprefix("model:"))
        add_ledgered_call(g, task_scope(st.request), key=key, kind="model", name=purpose,
                          capability=INFER_REASONING_SAMPLE,
                          input=model_payload(model, purpose, messages, schema, schemas.MAX_TOKENS.get(purpose)),
                          after=after_pending(st))
        out = yield from run_graph(st, g, purpose, round_number)
        output = out[key]
    return schema.model_validate(output["output"])


def tool_calls(st: ResearchState, kind: str, round_number: int, tool: str,
               calls: Sequence[tuple[str, str, Mapping[str, object]]],
               over_budget: Callable[[str], None] | None = None) -> Plan[list[Any]]:
    """One round's ``kind`` (``search``/``read``) tool calls in one graph ``<kind>:r<round_number>``.

    Args:
        st: the research state.
        kind: the ledger kind, budget and stage name (``search`` or ``read``).
        round_number: the 1-based round.
        tool: the Interaction tool every call runs.
        calls: ``(ledger key, ledger name, tool args)`` in order.
        over_budget: told the ledger name of each call skipped because the budget is spent.

    Returns:
        The outputs (ledger reuse or new dispatch) of the calls that have one, in call order; a
        call skipped for the budget has none.
    """
    outputs: list[Any] = []
    g = graph(f"{kind}:r{round_number}")
    after = after_pending(st)
    scheduled: dict[int, str] = {}
    for i, (key, name, args) in enumerate(calls):
        done = st.done(key, kind, name)
        outputs.append(done)
        if done is not None:
            continue
        if not st.ledger.can_charge(kind):
            if over_budget is not None:
                over_budget(name)
            continue
        st.ledger.charge(kind)
        add_ledgered_call(g, task_scope(st.request), key=key, kind=kind, name=name, capability=INTERACTION_ACT_TOOL,
                          input={"tool": tool, "args": args}, after=after)
        scheduled[i] = key
    if scheduled:
        out = yield from run_graph(st, g, kind, round_number)
        for index, node in scheduled.items():
            outputs[index] = out[node]
    return [output for output in outputs if output is not None]


__all__ = ["BUDGET_LIMITS", "Plan", "ResearchState", "after_pending", "model_call", "run_graph", "tool_calls"]
