"""Research synthesis: report, independent review, at most one repair (no I/O).

Findings are atomic (one statement, one quote), so unverifiable ones are dropped and disclosed
when another verifies; only a draft with no verifiable finding (or a failed review) gets the
single repair. Quotes are checked by THE rule of :mod:`ditto_nb.evidence.quotes`.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, cast

from ditto_nb.errors import UngroundedAnswer
from ditto_nb.patterns.deep_research import prompts
from ditto_nb.patterns.deep_research.evidence import select_for_report
from ditto_nb.patterns.deep_research.report import (
    CitedConclusion,
    ReportStatus,
    ResearchReport,
    check_draft,
    conflict_sides,
)
from ditto_nb.patterns.deep_research.request import STOP_REASONS, StopReason
from ditto_nb.patterns.deep_research.run_state import Plan, ResearchState, model_call

def checked_findings(
    draft: dict[str, Any], selected: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Quote-check a draft; findings are atomic (one statement, one quote), so when at least one
    verifies, the unverifiable ones are dropped (and disclosed) instead of failing the draft.

    Returns:
        ``(conclusions, problems, dropped)``: ``problems`` is non-empty only when the draft has
        findings and none verified.
    """
    conclusions, problems = check_draft(draft, selected)
    if conclusions:
        return conclusions, [], problems
    return conclusions, problems, []


def _reviewed(draft: dict[str, Any], conclusions: list[dict[str, Any]]) -> dict[str, Any]:
    """What the independent review sees: the summary, the verified findings, the unknowns."""
    return {"summary": draft.get("summary", ""), "unknowns": draft.get("unknowns", []),
            "conclusions": [{"statement": c["statement"], "quote": c["quote"]} for c in conclusions]}


def synthesize(st: ResearchState, model: dict[str, Any], plan: dict[str, Any], evidence: list[dict[str, Any]],
                coverage: list[dict[str, Any]], rounds: list[dict[str, Any]], omitted: list[dict[str, Any]],
                omitted_urls: list[dict[str, Any]], failures: list[dict[str, Any]], stop_reason: str) -> Plan:
    """Report, independent review, at most one repair; returns the report dump."""
    request = st.request
    selected, left_out = select_for_report(evidence, coverage, [request.question, *plan["sub_questions"]])
    gaps = [f"{row['question']}: {row['gap']}" for row in coverage if row["status"] == "gap"]
    view = [{"id": c["id"], "origin": c["origin"], "text": c["text"]} for c in selected]
    review: dict[str, Any] = {"ok": True, "problems": [], "repaired": False, "model_checked": False}
    conclusions: list[dict[str, Any]] = []
    if stop_reason == "clarification":
        draft: dict[str, Any] = {"summary": "The topic is too vague to research; please answer the clarification "
                                            "questions and start a new task.", "unknowns": []}
    elif not selected:
        draft = {"summary": "No usable evidence was found within the budgets; nothing is concluded.",
                 "unknowns": gaps}
    else:
        draft = yield from model_call(st, "model:report", "report",
                                  prompts.report_messages(request, plan["sub_questions"], view, gaps),
                                  prompts.DraftOutput, model)
        conclusions, problems, dropped = checked_findings(draft, selected)
        verdict: dict[str, Any] = {"ok": False, "problems": []}
        if not problems:
            verdict = yield from model_call(st, "model:review", "review",
                                        prompts.review_messages(_reviewed(draft, conclusions), coverage, gaps),
                                        prompts.ReviewOutput, model)
        if problems or not verdict["ok"]:
            draft = yield from model_call(st, "model:repair", "repair",
                                      prompts.repair_messages(draft, problems + verdict["problems"], view, gaps),
                                      prompts.DraftOutput, model)
            conclusions, problems, dropped = checked_findings(draft, selected)
            if problems:
                raise UngroundedAnswer(f"the repaired report still has unverifiable quotes: {'; '.join(problems)}")
            verdict = yield from model_call(st, "model:review-2", "review",
                                        prompts.review_messages(_reviewed(draft, conclusions), coverage, gaps),
                                        prompts.ReviewOutput, model)
            if not verdict["ok"]:
                raise UngroundedAnswer(f"the repaired report failed review: {'; '.join(verdict['problems'])}")
            review["repaired"] = True
        review.update(ok=True, problems=list(verdict["problems"]), model_checked=True, dropped=dropped)
    cited = {c["evidence_id"] for c in conclusions}
    conflicts = conflict_sides(coverage, conclusions, evidence)
    cited |= {side["evidence_id"] for conflict in conflicts for side in conflict["sides"]}
    unknowns = list(dict.fromkeys([*draft.get("unknowns", []), *gaps]))
    status: ReportStatus
    if stop_reason == "clarification":
        status = "needs-clarification"
    else:
        status = "complete" if coverage and all(row["status"] != "gap" for row in coverage) else "partial"
    if stop_reason not in STOP_REASONS:
        raise ValueError(f"unknown stop reason {stop_reason!r}")
    report = ResearchReport(
        id=request.id, question=request.question, research_type=request.research_type, audience=request.audience,
        scope=request.scope, goal=plan["goal"], sub_questions=plan["sub_questions"], status=status,
        stop_reason=cast(StopReason, stop_reason), clarification_questions=plan["clarification_questions"],
        summary=str(draft.get("summary", "")), conclusions=[CitedConclusion.model_validate(c) for c in conclusions],
        conflicts=conflicts, unknowns=unknowns,
        coverage=coverage, rounds=rounds,
        cited_chunks=[{k: v for k, v in c.items()} for c in selected if c["id"] in cited],
        omitted=omitted + left_out, omitted_urls=omitted_urls, failures=failures,
        budgets={**st.budgets(), "rounds": {"used": len(rounds), "limit": request.max_rounds}},
        review=review, generated_at=datetime.fromtimestamp(st.now, timezone.utc).isoformat(),
    )
    return report.model_dump(mode="json")


__all__ = ["checked_findings", "synthesize"]
