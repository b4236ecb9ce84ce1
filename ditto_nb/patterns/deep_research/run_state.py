"""What the research run knows while it runs, and its three graph helpers (no I/O).

:class:`ResearchState` (the ``run`` object handed to every research stage builder) holds the
Memory rows read by the ``resume`` graph, the committed stage outputs, the one
:class:`~ditto_nb.patterns.common.Ledger` (replay policy ``RESEARCH_REPLAY``), the budget
counters, the clock, and the :class:`Progress` the rounds carry from one to the next;
:func:`run_graph` finishes and yields one stage graph (queued stage outputs are committed there
through :func:`~ditto_nb.patterns.common.add_stage_commit`, frozen round decisions through one
``persist`` write); :func:`model_call` is one budgeted model call and :func:`tool_calls` one
round's budgeted tool calls, each through the one ledgered dispatch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from ditto_nb.patterns.common import Ledger, add_ledgered_call, add_stage_commit, run_step
from ditto_nb.patterns.common.ledger import STAGE_PREFIX, Plan
from ditto_nb.patterns.common.records import EvidenceItem, FailureItem, OmittedItem
from ditto_nb.patterns.common.report_records import CoverageItem, RoundItem
from ditto_nb.patterns.deep_research import schemas
from ditto_nb.patterns.deep_research.prompts import Message
from ditto_nb.patterns.deep_research.queries import Spec, first_round
from ditto_nb.patterns.deep_research.request import ResearchRequest
from ditto_nb.patterns.deep_research.schemas import PlanDump
from ditto_nb.patterns.deep_research.stage_models import RESEARCH_REPLAY, STAGE_OUTPUTS
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


@dataclass
class Progress:
    """What the rounds carry from one to the next (rebuilt from the ledger on resume).

    Attributes:
        subs: the plan's sub-questions.
        queries: the next round's search specs.
        coverage: the latest coverage rows (one per sub-question).
        stop_reason: why the rounds stopped (None: another round may run).
        evidence: the accumulated evidence items; ``omitted``: items the caps left out;
            ``omitted_urls``: URLs not read (``max-pages``, ``page-budget``); ``failures``:
            per-source search/read failures; ``rounds``: the round records so far.
        asked: every query text asked; ``tried``: those plus the relaxed forms searches tried.
        seen_urls: URLs read or scheduled; ``empty``: consecutive rounds without new evidence;
        round: the number of the last round built.
    """

    subs: list[str]
    queries: list[Spec]
    coverage: list[CoverageItem]
    stop_reason: str | None
    evidence: list[EvidenceItem] = field(default_factory=list)
    omitted: list[OmittedItem] = field(default_factory=list)
    omitted_urls: list[OmittedItem] = field(default_factory=list)
    failures: list[FailureItem] = field(default_factory=list)
    rounds: list[RoundItem] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)
    seen_urls: set[str] = field(default_factory=set)
    empty: int = 0
    round: int = 0

    @classmethod
    def start(cls, request: ResearchRequest, plan: PlanDump) -> Progress:
        """Progress before round one: every sub-question a gap, the first round's specs."""
        subs = list(plan["sub_questions"])
        coverage: list[CoverageItem] = [
            {"index": i, "question": q, "status": "gap", "evidence_ids": [], "gap": "not researched yet",
             "next_queries": []} for i, q in enumerate(subs, start=1)]
        return cls(subs=subs, queries=first_round(request.question, subs, list(plan["queries"]), request.max_queries),
                   coverage=coverage, stop_reason=None if plan["clear"] else "clarification")


class ResearchState:
    """The research run: Memory rows from ``resume``, committed stage outputs (``stages``: name →
    JSON, rounds as ``round/<n>``), the ledger and counters, the clock, the model and the rounds'
    :attr:`progress`."""

    def __init__(self, request: ResearchRequest, resumed: NodeOutputs, model: Mapping[str, str]) -> None:
        self.request = request
        self.model: dict[str, str] = dict(model)
        # Memory rows as read back (any JSON: stage and round objects, ledger rows, budget counts).
        self.rows: dict[str, Any] = {str(k): v for node in RESUME_ROW_NODES for k, v in resumed[node] or []}
        if resumed["report"] is not None:
            self.rows[STAGE_PREFIX + "report"] = resumed["report"]
        self.stages: dict[str, Any] = {k.removeprefix(STAGE_PREFIX): v for k, v in self.rows.items()
                                       if k.startswith(STAGE_PREFIX)}
        limits = {kind: int(getattr(request, field)) for kind, field in BUDGET_LIMITS.items()}
        # Research freezes each round's URL list, so a recorded failure is reused, not retried.
        self.ledger = Ledger.from_resume(resumed["ledger"], resumed["budget"], limits,
                                         reuse_failed=RESEARCH_REPLAY.reuse_failed_dispatches)
        self.used = self.ledger.used
        self.started_at = float(resumed["started"])
        self.now = float(resumed["clock"])
        self.pending: list[tuple[str, Any]] = []
        self.worked = False
        self._progress: Progress | None = None

    @property
    def progress(self) -> Progress:
        """The rounds' progress, started from the committed ``plan`` stage on first use.

        Raises:
            KeyError: the plan stage is not committed yet.
        """
        if self._progress is None:
            self._progress = Progress.start(self.request, self.stages["plan"])
        return self._progress

    def commit(self, stage: str, value: Any) -> None:
        """Queue the commit of stage output ``value`` (``stage/<stage>``) for the next graph,
        unless that output is already recorded (a resumed run keeps it as recorded)."""
        if STAGE_PREFIX + stage not in self.rows:
            self.pending.append((STAGE_PREFIX + stage, value))

    def done(self, key: str, kind: str, name: str) -> Any | None:
        return self.ledger.reuse(key, kind, name)

    def elapsed(self) -> float:
        return self.now - self.started_at

    def budgets(self) -> dict[str, dict[str, int]]:
        return self.ledger.budgets()


def _stage_output(stage: str) -> type[BaseModel]:
    """The declared output model of a research stage output key (``round/3`` → the round's)."""
    return STAGE_OUTPUTS[stage.split("/", 1)[0]]


def _constant(value: Any) -> Callable[[NodeOutputs], Any]:
    return lambda _outputs: value


def run_graph(st: ResearchState, g: Graph, stage: str, round_number: int = 0) -> Plan[NodeOutputs]:
    """Finish ``g`` (queued stage commits and writes, Context update, clock), run it, and return
    its outputs."""
    commits = [(key.removeprefix(STAGE_PREFIX), value) for key, value in st.pending if key.startswith(STAGE_PREFIX)]
    add_persist(g, st.request.namespace, [(key, value) for key, value in st.pending if not key.startswith(STAGE_PREFIX)])
    for name, value in commits:
        add_stage_commit(g, st.request.task_scope, stage=name, value=_constant(value), after=(),
                         output=_stage_output(name))
    context_node(g, st.request, {"stage": stage, "round": round_number},
                 after=tuple(f"context:{name}" for name, _ in commits))
    add_clock(g)
    out = yield from run_step(g)
    st.pending = []
    st.now = float(out["clock"])
    st.worked = True
    return out


def after_pending(st: ResearchState) -> tuple[str, ...]:
    """The nodes that write the queued rows (a stage's first dispatch runs after them)."""
    nodes = [f"commit:{key.removeprefix(STAGE_PREFIX)}" for key, _ in st.pending if key.startswith(STAGE_PREFIX)]
    if any(not key.startswith(STAGE_PREFIX) for key, _ in st.pending):
        nodes.insert(0, "persist")
    return tuple(nodes)


class Ask(Protocol):
    """``ask(ledger_key, purpose, messages, schema)``: one budgeted model call (the output validated
    by ``schema``), as the report stage gives it to the synthesis."""

    def __call__(self, key: str, purpose: str, messages: list[Message], schema: type[M], /) -> Plan[M]: ...


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


__all__ = ["BUDGET_LIMITS", "Ask", "Plan", "Progress", "ResearchState", "after_pending", "model_call", "run_graph", "tool_calls"]
