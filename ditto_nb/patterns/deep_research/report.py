"""The research report: model, quote checking of a draft, and the Markdown rendering.

The report cites only exact quotes of selected chunks (at most eight); conflicts show every
side's quote and pick no winner; what the caps left out and the remaining gaps are disclosed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from ditto_nb.evidence import Chunk, verify_quote
from ditto_nb.evidence.citation import Citation, citation_fields
from ditto_nb.patterns.common.records import EvidenceItem, FailureItem, OmittedItem
from ditto_nb.patterns.common.report_records import (
    ComparedAnswer,
    ConclusionItem,
    ConflictItem,
    ConflictSide,
    CoverageItem,
    ReviewSummary,
    RoundItem,
    WithheldFinding,
)
from ditto_nb.patterns.deep_research.schemas import STATEMENT_CHARS, DraftDump
from ditto_nb.patterns.deep_research.request import StopReason
from ditto_nb.text import uncut


ReportStatus = Literal["complete", "partial", "needs-clarification"]
"""``complete`` (no gaps), ``partial`` (gaps, honestly stated) or ``needs-clarification``."""


class CitedConclusion(Citation):
    """One conclusion with its verified quote: a :class:`~ditto_nb.evidence.citation.Citation`
    plus the sub-question number, the statement and the short evidence id."""

    index: int = Field(description="1-based sub-question number")
    statement: str
    evidence_id: str


class ResearchReport(BaseModel):
    """A finished research task (also the content of ``output/report.json``).

    Attributes:
        status: ``complete`` (no gaps), ``partial`` (gaps, honestly stated) or
            ``needs-clarification``.
        stop_reason: one of ``STOP_REASONS``.
        coverage: per sub-question ``{"index", "question", "status", "evidence_ids", "gap",
            "next_queries"}`` after the last assessment.
        rounds: per round ``{"round", "queries", "reads", "new_evidence", "coverage"}``.
        conflicts: per conflicting sub-question ``{"index", "question", "sides": [{"evidence_id",
            "origin", "final_url", "quote"}]}``.
        omitted: evidence left out (``reason`` ``evidence-cap`` or ``chunk-cap``).
        omitted_urls: candidate URLs not read (``reason`` ``page-budget`` or ``max-pages``).
        withheld: findings not published because their quote does not support them (code-side
            support check or the review's "not stated" verdict, after the one repair):
            ``{"index", "statement", "quote", "evidence_id", "title", "reasons"}``.
        budgets: ``{name: {"used", "limit", "unused"}}`` (``unused`` = limit − used: the budget
            left when research stopped).
        review: ``{"ok", "problems", "repaired", "model_checked", "dropped"?}``; ``dropped``
            lists findings whose quote did not verify and were left out.
        compared: a comparison topic's answer side by side (``answer``, ``decided_by``, and per
            side ``side``, ``value``, ``quote``, ``evidence_id``, ``title``), or None
            (:mod:`ditto_nb.patterns.deep_research.compared`).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str
    research_type: str
    audience: str
    scope: str
    goal: str
    sub_questions: list[str]
    status: ReportStatus
    stop_reason: StopReason
    clarification_questions: list[str] = Field(default_factory=list)
    summary: str
    conclusions: list[CitedConclusion] = Field(default_factory=list)
    withheld: list[WithheldFinding] = Field(default_factory=list)
    conflicts: list[ConflictItem] = Field(default_factory=list)
    unknowns: list[str] = Field(default_factory=list)
    coverage: list[CoverageItem] = Field(default_factory=list)
    rounds: list[RoundItem] = Field(default_factory=list)
    cited_chunks: list[EvidenceItem] = Field(default_factory=list)
    omitted: list[OmittedItem] = Field(default_factory=list)
    omitted_urls: list[OmittedItem] = Field(default_factory=list)
    failures: list[FailureItem] = Field(default_factory=list)
    budgets: dict[str, dict[str, int]] = Field(default_factory=dict)
    review: ReviewSummary = Field(default_factory=lambda: ReviewSummary())
    generated_at: str
    compared: ComparedAnswer | None = None


def check_draft(
    draft: DraftDump, selected: Sequence[EvidenceItem]
) -> tuple[list[ConclusionItem], list[str]]:
    """Verify every conclusion's quote against the chunk it names (one finding, one quote).

    The ONE quote rule of :mod:`ditto_nb.evidence.quotes` applies: the quote must be found in
    the selected chunk the conclusion names (by evidence id ``E3`` or chunk id); it is never
    re-attributed to another chunk that contains it.

    Args:
        draft: ``DraftOutput`` dump.
        selected: the selected evidence items (``id``, ``text``, citation fields).

    Returns:
        ``(conclusions, problems)``: cited conclusions (``CitedConclusion`` dumps) for the quotes
        that verified, and one problem string per quote that did not.
    """
    chunks: dict[str, Chunk] = {}
    ids: dict[str, str] = {}
    for item in selected:
        chunk = Chunk.model_validate({name: value for name, value in item.items() if name in Chunk.model_fields})
        chunks[str(item["id"])] = chunks[chunk.chunk_id] = chunk
        ids[str(item["id"])] = ids[chunk.chunk_id] = str(item["id"])
    out: list[ConclusionItem] = []
    problems: list[str] = []
    for n, row in enumerate(draft.get("conclusions", []), start=1):
        ref = str(row.get("chunk_id", "")).strip().strip("[]")
        check = verify_quote(ref, str(row.get("quote", "")), chunks)
        if not check.ok:
            problems.append(f"conclusion {n}: {check.reason} ({ref})")
            continue
        out.append(cast(ConclusionItem, CitedConclusion(
            index=int(row.get("index", 0) or 0), statement=uncut(str(row.get("statement", "")), STATEMENT_CHARS),
            evidence_id=ids[ref],
            **citation_fields(check),  # type: ignore[arg-type]
        ).model_dump()))
    return out, problems


def conflict_sides(
    coverage: Sequence[CoverageItem], conclusions: Sequence[ConclusionItem],
    evidence: Sequence[EvidenceItem],
) -> list[ConflictItem]:
    """Both (all) sides of each conflicting sub-question, each with an exact quote.

    A side's quote is the draft's verified quote from that chunk when there is one, else the
    chunk's whole paragraph (trivially exact). No winner is picked.

    Args:
        coverage: final coverage rows.
        conclusions: verified conclusions.
        evidence: the accumulated evidence.

    Returns:
        ``[{"index", "question", "sides": [...]}]``.
    """
    by_id = {str(item["id"]): item for item in evidence}
    quoted = {str(c["evidence_id"]): str(c["quote"]) for c in conclusions}
    out: list[ConflictItem] = []
    for row in coverage:
        if row["status"] != "conflict":
            continue
        sides: list[ConflictSide] = []
        for eid in row["evidence_ids"]:
            item = by_id[eid]
            sides.append({"evidence_id": eid, "origin": item["origin"], "final_url": item["final_url"],
                          "quote": quoted.get(eid, str(item["text"]))})
        out.append({"index": row["index"], "question": row["question"], "sides": sides})
    return out


def render_markdown(report: ResearchReport) -> str:
    """Render a report as Markdown (the text of ``output/report.md``).

    Args:
        report: the report; a stored dump (``stage/report``, ``output/report.json``) is read
            back with ``ResearchReport.model_validate`` first.

    Returns:
        The Markdown text, ending with a newline.
    """
    lines = [f"# {report.question}", "",
             f"- Type: {report.research_type} · Audience: {report.audience}",
             f"- Status: **{report.status}** · Stop reason: `{report.stop_reason}`",
             f"- Generated: {report.generated_at}", ""]
    if report.goal:
        lines += [f"**Goal:** {report.goal}", ""]
    if report.clarification_questions:
        lines += ["## Clarification needed", ""] + [f"- {q}" for q in report.clarification_questions] + [""]
    lines += ["## Summary", "", report.summary, ""]
    if report.coverage:
        lines += ["## Coverage", "", "| # | Sub-question | Status | Evidence | Gap |", "|---|---|---|---|---|"]
        for row in report.coverage:
            lines.append(f"| {row['index']} | {row['question']} | {row['status']} | "
                         f"{', '.join(row['evidence_ids'])} | {row['gap']} |")
        lines.append("")
    if report.conclusions:
        lines += ["## Conclusions", ""]
        for c in report.conclusions:
            lines += [f"- {c.statement} [{c.evidence_id}]", f"  > \"{c.quote}\"",
                      f"  — [{c.title or c.final_url}]({c.final_url}), paragraph {c.paragraph_index}, "
                      f"chars {c.start}–{c.end}, retrieved {c.fetched_at}, sha256 {c.sha256[:12]}"]
        lines.append("")
    for conflict in report.conflicts:
        lines += [f"## Conflict on sub-question {conflict['index']}: {conflict['question']}", ""]
        lines += [f"- {s['origin']} ({s['final_url']}): \"{s['quote']}\"" for s in conflict["sides"]]
        lines += ["", "No side is picked; the sources disagree.", ""]
    dropped = report.review.get("dropped") or []
    if dropped:
        lines += ["## Findings dropped (quote not verified)", ""] + [f"- {d}" for d in dropped] + [""]
    if report.withheld:
        lines += ["## Withheld (not supported by their quotes)", ""]
        lines += [f"- {w['statement']} [{w['evidence_id']}] — {'; '.join(w['reasons'])}" for w in report.withheld]
        lines.append("")
    if report.unknowns:
        lines += ["## Unknowns and remaining gaps", ""] + [f"- {u}" for u in report.unknowns] + [""]
    if report.omitted or report.omitted_urls:
        lines += ["## Left out", ""]
        lines += [f"- {o.get('chunk_id')} from {o.get('final_url')}: {o['reason']}" for o in report.omitted]
        lines += [f"- {o['url']}: {o['reason']}" for o in report.omitted_urls]
        lines.append("")
    if report.failures:
        lines += ["## Failures", ""] + [f"- {f.get('source')}: {f.get('error')}" for f in report.failures] + [""]
    if report.budgets:
        lines += ["## Budgets", ""] + [f"- {k}: {v['used']} / {v['limit']}"
                                       + (f" ({v['unused']} unused)" if v.get("unused") else "")
                                       for k, v in report.budgets.items()]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


__all__ = ["CitedConclusion", "ReportStatus", "ResearchReport", "check_draft", "conflict_sides",
           "render_markdown"]
