"""The research plan: one generator that a single ``runtime.loop`` drives through every stage.

Research is declared as stages (:data:`RESEARCH`: ``plan``, the repeated ``round``, ``evidence``,
``report``) and run by the runner Web QA uses too
(:func:`~ditto_nb.patterns.common.stage.run_stages`); each stage output is committed through
:func:`~ditto_nb.patterns.common.add_stage_commit` in the next graph. Graphs: ``resume``,
``plan``, then per round ``search:rN``, ``read:rN``, ``assess:rN`` (:mod:`.rounds`), then
``report``, ``review``, ``repair``, ``review-2`` and ``publish``. The plan
performs no I/O: time comes from the ``clock`` tool node of each graph, state from Memory.
Everything a stage computes is a pure function of the ledger, so a resumed run rebuilds the same
evidence (same ids) without re-dispatching anything that is ``done``.

Decisions taken by code, not the model (so small local models get through; verification, the
independent review and the budgets are unchanged): a plan with sub-questions but no
clarification question is researched even if the model said ``clear=false``; a round that added
no new evidence spends no assessment call (``no-progress``); findings are atomic (one statement,
one quote), so unverifiable ones are dropped and disclosed when another verifies; the single
repair goes to a draft with a rejected finding, with no verifiable finding, or with a failed
review (:mod:`~ditto_nb.patterns.deep_research.synthesis`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar, cast

from pydantic import BaseModel
from typing_extensions import NotRequired, TypedDict

from ditto_nb.patterns.common import run_step
from ditto_nb.patterns.common.retrieval import clarification_needed
from ditto_nb.patterns.common.records import PublishedFiles
from ditto_nb.patterns.common.stage import PatternSpec, Repeat, Stage, run_stages
from ditto_nb.patterns.deep_research import prompts, schemas
from ditto_nb.patterns.deep_research.prompts import Message
from ditto_nb.patterns.deep_research.schemas import PlanDump
from ditto_nb.patterns.deep_research.report import ResearchReport, render_markdown
from ditto_nb.patterns.deep_research.request import ResearchRequest, parse_request
from ditto_nb.patterns.deep_research.rounds import more_rounds, round_stage, stops_here
from ditto_nb.patterns.deep_research.run_state import Plan, ResearchState, after_pending, model_call, run_graph
from ditto_nb.patterns.deep_research.stage_models import (
    RESEARCH_REPLAY,
    EvidenceStage,
    ResearchPlan,
    RoundRecord,
    stage_row,
)
from ditto_nb.patterns.deep_research.stages import resume_graph
from ditto_nb.patterns.deep_research.sub_questions import topic_sub_questions
from ditto_nb.patterns.deep_research.synthesis import synthesize
from ditto_nb.patterns.deep_research.tools import TOOL_PUBLISH, TOOL_SNAPSHOTS
from ditto_nb.runtime.capabilities import INTERACTION_ACT_TOOL
from ditto_nb.runtime.graph import graph


M = TypeVar("M", bound=BaseModel)


class LoopInput(TypedDict):
    """The research loop's input: the request, the model choice ``{"provider", "model"}`` and
    where to stop (None, ``plan``, ``round`` or ``report``)."""

    request: ResearchRequest | Mapping[str, object]
    model: dict[str, str]
    stop_after: NotRequired[str | None]


class LoopResult(TypedDict, total=False):
    """``{"status": "checkpoint", "stage", "round", "budgets"}`` or ``{"status": "done",
    "report", "published"}``."""

    status: str
    stage: str
    round: int
    budgets: dict[str, dict[str, int]]
    report: Mapping[str, object]
    published: PublishedFiles


def _normalize_plan(request: ResearchRequest, raw: PlanDump) -> PlanDump:
    """Checked plan. The topic is unclear only when the model says so AND the topic names nothing
    to search for (:func:`clarification_needed`) AND the model asks something or gave no plan;
    ``clear=false`` with sub-questions or queries but no clarification question is researched
    (missing evidence is never disguised as an unclear request, SPEC §4). The sub-questions kept
    are distinct and name only what the topic names (:func:`topic_sub_questions`)."""
    subs = [s.strip() for s in raw.get("sub_questions", []) if s.strip()][: request.max_queries]
    queries = [q.strip() for q in raw.get("queries", []) if q.strip()]
    questions = [q.strip() for q in raw.get("clarification_questions", []) if q.strip()]
    unclear = clarification_needed(request.question, not bool(raw.get("clear", True)))
    clear = not unclear or (not questions and bool(subs or queries))
    if clear:
        # distinct, and naming only what the topic names (an invented entity is not researched)
        subs = topic_sub_questions(request.question, subs)
    queries = list(dict.fromkeys(queries + subs))[: request.max_queries]
    if not clear and not questions:
        questions = ["Which aspect, place and period of the topic should the research cover?"]
    return {"clear": clear, "goal": raw.get("goal", "") or request.question,
            "sub_questions": subs, "queries": queries, "clarification_questions": [] if clear else questions}


def plan_stage(st: ResearchState, _stages: object) -> Plan[PlanDump]:
    """Stage ``plan``: one ``research-plan`` call, checked by :func:`_normalize_plan`."""
    raw_plan = yield from model_call(st, "model:plan", "research-plan", prompts.plan_messages(st.request),
                                     schemas.PlanOutput, st.model)
    plan = cast(PlanDump, stage_row("plan", _normalize_plan(st.request, cast(PlanDump, raw_plan.model_dump()))))
    st.commit("plan", plan)
    return plan


def evidence_stage(st: ResearchState, _stages: object) -> Plan[Mapping[str, object]]:
    """Stage ``evidence``: the rounds' accumulated evidence items and what the caps left out."""
    yield from ()  # a stage builder is a generator; this stage runs no graph of its own
    p = st.progress
    row = stage_row("evidence", {"items": p.evidence, "omitted": p.omitted})
    st.commit("evidence", row)
    return row


def report_stage(st: ResearchState, stages: Mapping[str, object]) -> Plan[Mapping[str, object]]:
    """Stage ``report``: synthesis, quote and support checks, review, at most one repair
    (:func:`~ditto_nb.patterns.deep_research.synthesis.synthesize`)."""
    p = st.progress

    def ask(key: str, purpose: str, messages: list[Message], schema: type[M]) -> Plan[M]:
        return (yield from model_call(st, key, purpose, messages, schema, st.model))

    report = (yield from synthesize(ask, st.request, cast(PlanDump, stages["plan"]), p.evidence, p.coverage, p.rounds,
                                    p.omitted, p.omitted_urls, p.failures, p.stop_reason or "no-progress",
                                    st.budgets, lambda: st.now)).model_dump(mode="json")
    st.commit("report", report)
    return cast(Mapping[str, object], report)


RESEARCH = PatternSpec(
    name="deep_research",
    stages=(
        Stage("plan", ResearchPlan, plan_stage),
        Stage("round", RoundRecord, round_stage, repeat=Repeat(more_rounds, stops_here)),
        Stage("evidence", EvidenceStage, evidence_stage),
        Stage("report", ResearchReport, report_stage),
    ),
    replay=RESEARCH_REPLAY,
)
"""Deep research declared as stages, run by :func:`~ditto_nb.patterns.common.stage.run_stages`."""

STAGES = ("plan", "round", "report")
"""Stage names accepted by ``stop_after`` (``evidence`` runs no graph of its own)."""


def run_research_loop(inp: LoopInput) -> Plan[LoopResult]:
    """The research plan (a generator for ``runtime.loop``): ``resume``, the declared stages
    (:data:`RESEARCH`), then ``publish``.

    Args:
        inp: ``{"request": ResearchRequest | dict, "model": {"provider", "model"},
            "stop_after": None | "plan" | "round" | "report"}``.

    Returns:
        ``{"status": "checkpoint", "stage", "round"?}`` or ``{"status": "done", "report": dict,
        "published": dict}``.

    Raises:
        RequestChanged, PermissionRevoked, SnapshotCorrupted (from ``resume``), SearchFailed,
        ReadFailed, BudgetExceeded, and Worker errors unchanged.
    """
    request = parse_request(inp["request"])
    st = ResearchState(request, (yield from run_step(resume_graph(request))), inp["model"])
    stopped = yield from run_stages(RESEARCH, st, st.stages, inp.get("stop_after"))
    if stopped is not None:
        stage, instance = stopped
        number = instance if stage == "round" else len(st.progress.rounds) if stage == "report" else 0
        return (yield from _checkpoint(st, stage, number))
    return (yield from _publish(st, st.stages["report"]))


def _checkpoint(st: ResearchState, stage: str, round_number: int) -> Plan[LoopResult]:
    if st.pending:
        yield from run_graph(st, graph(f"checkpoint:{stage}"), stage, round_number)
    return {"status": "checkpoint", "stage": stage, "round": round_number, "budgets": st.budgets()}


def _publish(st: ResearchState, report: Mapping[str, object]) -> Plan[LoopResult]:
    """Check the cited snapshots, then publish ``report.json`` and ``report.md``.

    ``report`` is the :class:`ResearchReport` JSON as stored in Memory (``stage/report``); it is
    published as stored, so a report written by earlier code republishes byte-identically, and
    read back with ``ResearchReport.model_validate`` for the Markdown. Returns ``{"status":
    "done", "report", "published"}``.
    """
    model = ResearchReport.model_validate(report)
    g = graph("publish")
    cited = sorted({c["sha256"] for c in model.cited_chunks})
    g.node("verify", INTERACTION_ACT_TOOL, {"tool": TOOL_SNAPSHOTS, "args": {"sha256s": cited}}, after=after_pending(st))
    g.node("publish", INTERACTION_ACT_TOOL,
           {"tool": TOOL_PUBLISH, "args": {"report": report, "markdown": render_markdown(model)}}, after=("verify",))
    out = yield from run_graph(st, g, "publish")
    return {"status": "done", "report": report, "published": out["publish"]}


__all__ = ["RESEARCH", "STAGES", "LoopInput", "LoopResult", "evidence_stage", "plan_stage", "report_stage",
           "run_research_loop"]
