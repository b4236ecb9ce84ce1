"""The Web QA plan: one Loop over the stage graphs (pure orchestration, no I/O).

Graphs of one complete run: ``resume`` → ``plan`` → ``searched`` → ``read`` → ``selected`` →
``report`` (answer + quote verification + grounding review) → optional ``repair`` (repair +
verification + regrade) → ``report:commit`` → ``publish``. A completed task replays as ``resume``
+ ``publish`` only: no model and no network call.

The report stage's answer goes through the shared grounded-answer component
(:mod:`~ditto_nb.patterns.web_qa.grounded` on :func:`ditto_nb.patterns.common.grounding.ground`):
the answer call with its quote verification and grounding review, the answer-rule layer, then at
most one repair (or, for a comparison declined or one-sided, the compare step); failed claims are
withheld with their reasons (:mod:`ditto_nb.patterns.web_qa.withheld`: Memory ``withheld``;
``answer.withheld`` of the report stage, left out of the published files), and an
``insufficient-evidence`` answer gets a fixed text (:data:`INSUFFICIENT_TEXT`), so nothing
unverified is published. The published status is decided by code from the checked claims and the
verified conflicts (:func:`ditto_nb.patterns.web_qa.evaluate.decide_status`); the model's status
is a hint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from typing_extensions import NotRequired, TypedDict

from ditto_nb.errors import InvalidRequest
from ditto_nb.patterns.common import TaskScope, add_stage_commit, binding_for, build_resume_graph, read_resume, run_step
from ditto_nb.patterns.common.binding import canonical_json
from ditto_nb.patterns.common.ledger import COUNTERS, Ledger, now_iso
from ditto_nb.patterns.common.records import CitationJson, WithheldClaim
from ditto_nb.patterns.common.stage import PatternSpec, ReplayPolicy, Stage, run_stages
from ditto_nb.patterns.web_qa.stage_models import (
    AnswerJson,
    PlanJson,
    PlanStage,
    ReadJson,
    ReadStage,
    ReportConflict,
    SearchedJson,
    SearchedStage,
    SelectedJson,
    SelectedStage,
    WebQaReportJson,
    WebQaStages,
)
from ditto_nb.patterns.web_qa import prompts
from ditto_nb.patterns.common.retrieval import comparison_entities
from ditto_nb.patterns.web_qa.rule_set import RULE_NAMES
from ditto_nb.patterns.web_qa.rules import RuleContext, rules_off
from ditto_nb.patterns.common.compare.side_by_side import missing_sides
from ditto_nb.patterns.web_qa.grounded import grounded_answer
from ditto_nb.patterns.web_qa.hop import first_hop_plan, hop_read_stage, hop_searched_stage, merge_hop
from ditto_nb.patterns.common.citations import chunk_citation
from ditto_nb.patterns.web_qa.report import WebQaReport, published_report, render_markdown
from ditto_nb.patterns.web_qa.withheld import add_withheld
from ditto_nb.patterns.web_qa.request import WebQaRequest
from ditto_nb.patterns.web_qa.selection import selected_stage
from ditto_nb.patterns.web_qa.stages import RunState, Step, plan_stage, read_stage, searched_stage
from ditto_nb.runtime.capabilities import CONTEXT_LOAD, INTERACTION_ACT_TOOL
from ditto_nb.runtime.graph import NodeOutputs, graph

INSUFFICIENT_TEXT = "The pages read do not state a verifiable answer to this question."
"""Answer text published when the repair concluded ``insufficient-evidence`` but a claim still failed."""

class WebQaInput(TypedDict):
    """The Web QA loop's input: the request (model or JSON) and ``{"provider", "model"}``."""

    request: WebQaRequest | Mapping[str, object]
    model: NotRequired[Mapping[str, str]]


class WebQaOptions(TypedDict, total=False):
    """The Web QA loop's options: where to stop, model calls per run, hits per query, answer rules
    switched off by name (:data:`~ditto_nb.patterns.web_qa.rule_set.RULE_NAMES`)."""

    stop_after: str | None
    max_model_calls: int
    results_per_query: int
    rules_off: list[str]


def _report_stage(run: RunState, plan: PlanJson, read: ReadJson,
                  selected: SelectedJson) -> Step[WebQaReportJson]:
    req = run.request
    question = req.question  # the question as asked (a small model's restatement may drop a hop)
    chunks = [c for c in selected["candidates"] if c["chunk_id"] in set(selected["selected"])]
    labels = {prompts.label(i): c["chunk_id"] for i, c in enumerate(chunks)}
    conflicts_out: list[ReportConflict] = []
    index = {c["chunk_id"]: c for c in chunks}
    for conflict in selected["conflicts"]:
        sides: list[CitationJson] = []
        for side in conflict["sides"]:
            citation = chunk_citation(index[side["chunk_id"]], side["quote"])
            assert citation is not None  # the selection stage kept only verified conflicts
            sides.append(citation)
        conflicts_out.append({"topic": conflict["topic"], "sides": sides})
    repaired = False
    withheld: list[WithheldClaim] = []
    answer: AnswerJson = {}
    if plan["needs_clarification"]:
        answer = {"status": "needs-clarification",
                  "text": plan["clarification"] or "The question is unclear; please clarify it.", "claims": []}
    elif not chunks:
        answer = {"status": "insufficient-evidence",
                  "text": "No page that was read contains evidence for this question.", "claims": []}
    else:
        compared = comparison_entities(question)
        hop_searched: SearchedJson = run.stages.get("hop-searched") or {"results": []}
        bridges = [str(r.get("query", "")) for r in hop_searched.get("results") or []]
        context = RuleContext(question=question, compared=tuple(compared), chunks=tuple(chunks), bridges=tuple(bridges))
        answer, withheld, repaired = yield from grounded_answer(run, context, chunks, labels, selected, conflicts_out,
                                                                read["pages"])
        claims = answer["claims"]
        if answer["status"] == "insufficient-evidence":
            # status and text never disagree: no model answer text under insufficient-evidence
            count = len(answer.get("withheld") or [])
            missing = missing_sides(compared, claims)
            answer["text"] = INSUFFICIENT_TEXT + (f" ({count} unverified claim(s) withheld.)" if count else "") + (
                f" No verified quote states the compared fact about {' or '.join(missing)}." if missing else "")
    no_hop: SearchedJson = {"results": []}
    hop_results = list((run.stages.get("hop-searched") or no_hop).get("results") or [])
    report: WebQaReportJson = {
        "task_id": req.id,
        "question": req.question,
        "normalized_question": plan["normalized_question"],
        "queries": list(plan["queries"]) + [str(r.get("query", "")) for r in hop_results],
        "searches": [
            {"query": r.get("query", ""), "ok": bool(r.get("ok")), "failure": r.get("failure"),
             "hits": [{"rank": h.get("rank"), "title": h.get("title"), "url": h.get("url"),
                       "snippet": h.get("snippet"), "discovery_only": h.get("discovery_only")}
                      for h in r.get("hits") or []]}
            for r in [*run.stages["searched"]["results"], *hop_results]
        ],
        "selection": {"selected": list(selected["selected"]), "missing": list(selected["missing"]),
                      "conflicts": conflicts_out, "omitted": list(selected.get("omitted") or [])},
        "evidence": chunks,
        "answer": answer,
        "failures": list(read["failures"]),
        "omitted_urls": list(read["omitted"]),
        "repaired": repaired,
        "budget": {
            "model_calls": run.model_calls + sum(1 for key, row in run.ledger.rows.items()
                                                 if key.startswith("model:") and row.get("status") == "done"),
            "model_calls_limit": run.max_model_calls,
            "queries": len(run.stages["searched"]["results"]) + len(hop_results), "queries_limit": req.max_queries,
            "pages": len(read["pages"]), "pages_limit": req.max_pages,
        },
        "generated_at": now_iso(),
    }
    validated = cast(WebQaReportJson, WebQaReport.model_validate(report).model_dump(mode="json"))
    g = graph("report:commit")
    if withheld:
        add_withheld(g, run.task, withheld, str(answer["status"]))
    commit = add_stage_commit(g, run.task, stage="report", output=WebQaReport, value=lambda _o: validated, after=(),
                              context=lambda v: {"status": v["answer"]["status"]})
    yield from run_step(g)
    return cast(WebQaReportJson, dict(commit.value))


def req_question(run: RunState) -> str:
    """The question as asked (second-hop chunks are ranked against it)."""
    return run.request.question


def _publish(run: RunState, report: WebQaReportJson) -> Step[None]:
    report = published_report(report)
    markdown = render_markdown(WebQaReport.model_validate(report))
    g = graph("publish")
    g.node("publish", INTERACTION_ACT_TOOL, {"tool": "publish", "args": {"report": dict(report), "markdown": markdown}})
    g.node("context:published", CONTEXT_LOAD,
           {"scope": run.task.scope, "namespace": run.task.namespace, "update": {"stage": "published"}},
           after=("publish",))
    yield from run_step(g)


def _report_with_hop(run: RunState, s: WebQaStages) -> Step[WebQaReportJson]:
    """Stage ``report``, on the selection extended with the second hop's pages, if any."""
    read, selected = s["read"], s["selected"]
    hop_read = s.get("hop-read")
    if hop_read is not None and hop_read.get("pages"):
        selected = merge_hop(req_question(run), s["selected"], first_hop_plan(run, s), hop_read)
        read = {**read, "pages": [*read["pages"], *hop_read["pages"]],
                "failures": [*read["failures"], *hop_read["failures"]],
                "omitted": [*read["omitted"], *hop_read["omitted"]]}
    return (yield from _report_stage(run, s["plan"], read, selected))


WEB_QA = PatternSpec(
    name="web_qa",
    stages=(
        Stage("plan", PlanStage, lambda run, s: plan_stage(run)),
        Stage("searched", SearchedStage, lambda run, s: searched_stage(run, s["plan"])),
        Stage("read", ReadStage, lambda run, s: read_stage(run, s["searched"])),
        Stage("selected", SelectedStage, lambda run, s: selected_stage(run, s["plan"], s["read"])),
        Stage("hop-searched", SearchedStage, lambda run, s: hop_searched_stage(run, cast(WebQaStages, s))),
        Stage("hop-read", ReadStage, lambda run, s: hop_read_stage(run, cast(WebQaStages, s))),
        Stage("report", WebQaReport, lambda run, s: _report_with_hop(run, cast(WebQaStages, s))),
    ),
    replay=ReplayPolicy(reuse_failed_dispatches=False),
)
"""Web QA declared as stages: failed searches/reads are retried while their stage is open."""

STAGES = WEB_QA.names
"""Stage names accepted by ``stop_after``, in order: plan, searched, read, selected, hop-searched,
hop-read, report."""


def run_web_qa_loop(input: WebQaInput, options: WebQaOptions | None = None) -> Step[WebQaReportJson | dict[str, str]]:
    """The Web QA plan, for ``runtime.loop(run_web_qa_loop, [input, options], signal=..., on_graph=...)``.

    Args:
        input: ``{"request": WebQaRequest | dict, "model": {"provider", "model"}}``.
        options: ``{"stop_after": stage | None, "max_model_calls": 6, "results_per_query": 5,
            "rules_off": [rule name, ...]}``.

    Returns:
        ``{"status": "checkpoint", "stage": name}`` when stopped, else the report as JSON.

    Raises:
        InvalidRequest: a bad request, model selection, ``stop_after`` or rule name.
        RequestChanged, PermissionRevoked, SnapshotCorrupted: found by the resume graph.
        BudgetExceeded: a seventh model call in one run would be needed.
        SearchFailed, ReadFailed: total (or, without ``allow_partial``, any) failure.
        UngroundedAnswer: the draft failed verification after the one repair; nothing published.
    """
    opts: WebQaOptions = options or {}
    stop_after = opts.get("stop_after")
    if stop_after is not None and stop_after not in STAGES:
        raise InvalidRequest(f"stop_after must be one of {', '.join(STAGES)}, not {stop_after!r}")
    request = WebQaRequest.parse(input["request"])
    model = input.get("model") or {}
    if not model.get("provider") or not model.get("model"):
        raise InvalidRequest("input.model needs 'provider' and 'model'")
    task = TaskScope(namespace=request.namespace, scope=request.scope)
    binding = binding_for(request.model_dump(mode="json"))
    outputs = yield from run_step(build_resume_graph(task, binding))
    state = read_resume(outputs, binding)
    ledger = Ledger(rows=dict(state.ledger), used={k: int(state.budget.get(k, 0)) for k in COUNTERS},
                    reuse_failed=WEB_QA.replay.reuse_failed_dispatches)
    run = RunState(request=request, task=task, model=dict(model), ledger=ledger,
                   max_model_calls=int(opts.get("max_model_calls", 6)),
                   results_per_query=int(opts.get("results_per_query", 5)),
                   rules_off=rules_off(opts.get("rules_off") or [], RULE_NAMES),
                   stages=cast(WebQaStages, dict(state.stages)))
    s = run.stages
    stopped = yield from run_stages(WEB_QA, run, cast(dict[str, object], s), stop_after)
    if stopped is not None:
        return {"status": "checkpoint", "stage": stopped[0]}
    yield from _publish(run, s["report"])
    return s["report"].copy()


__all__ = ["INSUFFICIENT_TEXT", "STAGES", "WEB_QA", "WebQaInput", "WebQaOptions", "canonical_json", "run_web_qa_loop"]
