"""Synthesis: report draft → code-side checks → independent review → at most one repair, run
through the shared grounded-answer component (:func:`ditto_nb.patterns.common.grounding.ground`:
the first attempt is the ``report`` call with its checks, the second the ``repair`` call with
``review-2``).

Order of the checks on every draft (the first and the repaired one):

1. **Quotes** (:func:`~ditto_nb.patterns.deep_research.report.check_draft`): exact substrings of a
   selected chunk; findings whose quote does not verify are dropped and disclosed.
2. **Support** (:func:`ditto_nb.evidence.support.check_support`, the same check Web QA uses):
   every number, date and name of the statement in its quote (its sentence, its page title), and
   most content words; a finding that fails is *rejected* with the check's reasons.
3. **Review** (the model, independent of the draft): statement and quote side by side, one verdict
   per finding; :data:`~ditto_nb.patterns.deep_research.schemas.NOT_STATED` is enforced by code
   (the finding is rejected with the review's reason) through the one review rule
   (:func:`ditto_nb.patterns.common.grounding.review_passes`, policy ``refusal``).

Rejected findings of the first draft, and a failed review, go to the one repair with their
reasons; findings still rejected after it are dropped and listed as *withheld* (never published as
conclusions; the report lists them with their reasons); findings the first review passed stay published when the repaired draft leaves them
out (the repair rewrites the whole draft); a second failed review publishes only the findings it explicitly called supported. Coverage is then recomputed from what is published
(:func:`~ditto_nb.patterns.deep_research.published.published_coverage`). A finding that orders a
comparison topic's two sides ("A is older than B") is withheld: an ordering is published only as
the side-by-side answer, from one quoted value per side
(:func:`~ditto_nb.patterns.deep_research.compared.orders_sides`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import cast

from typing_extensions import TypedDict

from ditto_nb.evidence.quote_pick import quote_for
from ditto_nb.evidence.restate import restate_cited
from ditto_nb.evidence.support import check_support, verbatim_excerpt
from ditto_nb.patterns.common.grounding import Attempt, ground, review_passes
from ditto_nb.patterns.common.records import EvidenceItem, FailureItem, OmittedItem, PromptEvidence
from ditto_nb.patterns.common.report_records import (
    ConclusionItem,
    CoverageItem,
    ReviewSummary,
    RoundItem,
    WithheldFinding,
)
from ditto_nb.patterns.deep_research import prompts, schemas
from ditto_nb.patterns.deep_research.schemas import DraftDump, FindingDump, PlanDump, ReviewDump
from ditto_nb.patterns.deep_research.evidence import entity_pages, select_for_report
from ditto_nb.patterns.deep_research.answers import decide_coverage
from ditto_nb.patterns.deep_research.compared import ORDERING_WITHHELD, Compared, answer_side_by_side, orders_sides
from ditto_nb.patterns.deep_research.published import distinct, published_coverage, summary_of
from ditto_nb.patterns.deep_research.report import (
    CitedConclusion,
    ReportStatus,
    ResearchReport,
    check_draft,
    conflict_sides,
)
from ditto_nb.patterns.deep_research.request import STOP_REASONS, ResearchRequest, StopReason
from ditto_nb.patterns.deep_research.run_state import Ask, Plan

def support_split(
    conclusions: Sequence[ConclusionItem], selected: Sequence[EvidenceItem]
) -> tuple[list[ConclusionItem], list[WithheldFinding]]:
    """Split quote-verified conclusions by the lexical support check.

    Args:
        conclusions: ``CitedConclusion`` dumps.
        selected: the selected evidence (``id``, ``text``, ``title``).

    Returns:
        ``(supported, rejected)``; rejected items are ``{"index", "statement", "quote",
        "evidence_id", "title", "reasons"}``.
    """
    by_id = {str(item["id"]): item for item in selected}
    kept: list[ConclusionItem] = []
    rejected: list[WithheldFinding] = []
    for c in conclusions:
        chunk: EvidenceItem = by_id.get(str(c["evidence_id"]), {})
        check = check_support(str(c["statement"]), str(c["quote"]), paragraph=str(chunk.get("text", "")),
                              title=str(c.get("title", "")))
        if check.ok:
            kept.append(c.copy())
        else:
            rejected.append(_withheld(c, list(check.reasons)))
    return kept, rejected


def _withheld(c: ConclusionItem | WithheldFinding, reasons: list[str]) -> WithheldFinding:
    return {"index": c.get("index", 0), "statement": str(c["statement"]), "quote": str(c["quote"]),
            "evidence_id": str(c.get("evidence_id", "")), "title": str(c.get("title", "")), "reasons": reasons}


def apply_verdicts(
    conclusions: Sequence[ConclusionItem], verdict: ReviewDump
) -> tuple[list[ConclusionItem], list[WithheldFinding]]:
    """Enforce the review's per-finding verdicts: ``not stated`` rejects the finding, unless the
    statement is a word-for-word excerpt of its quote (:func:`ditto_nb.evidence.support.verbatim_excerpt`).

    Args:
        conclusions: the findings the review saw, in the order shown (finding ``n`` = position n).
        verdict: ``ReviewOutput`` dump.

    Returns:
        ``(kept, rejected)`` (rejected as in :func:`support_split`).
    """
    verdicts = {int(v["n"]): v for v in verdict.get("verdicts", [])}
    kept: list[ConclusionItem] = []
    rejected: list[WithheldFinding] = []
    refused = {n: str(v.get("reason") or "") for n, v in verdicts.items()}
    for n, c in enumerate(conclusions, start=1):
        given = verdicts.get(n)
        if not review_passes(str(given.get("verdict")) if given else None, c["statement"], c["quote"], "refusal"):
            reason = "the review found the quote does not state this" + (f" ({refused[n]})" if refused[n] else "")
            rejected.append(_withheld(c, [reason]))
        else:
            kept.append(c.copy())
    return kept, rejected


def _reviewed(draft: DraftDump, conclusions: Sequence[ConclusionItem]) -> DraftDump:
    """What the independent review sees: the summary, the checked findings, the unknowns."""
    return {"summary": draft.get("summary", ""), "unknowns": draft.get("unknowns", []),
            "conclusions": [{"statement": c["statement"], "quote": c["quote"]} for c in conclusions]}


def _reasons(rejected: Sequence[WithheldFinding]) -> list[str]:
    return [f"finding \"{w['statement']}\" ({w['evidence_id']}): {'; '.join(w['reasons'])}" for w in rejected]


class _Checked(TypedDict):
    """The outcome of :func:`_check` on one draft."""

    kept: list[ConclusionItem]
    rejected: list[WithheldFinding]
    refused: list[WithheldFinding]
    problems: list[str]
    verdict: ReviewDump
    reviewed: bool
    vouched: list[ConclusionItem]
    """Findings the review passed (all kept ones when it was ok, else those it explicitly called
    ``supported``); carried over a repair that dropped them."""


_ASKED_LABEL = re.compile(r"^[^?]{3,}\?[:\s]+(?=\S)")


def asked_label(statement: str) -> str:
    """``statement`` without a leading question it was labelled with: "Where was the film shot?:
    Big Stone Gap is a 2014 … film" states only what follows the label (measured on a held-out
    topic: the label's words made code decide the sub-question ``covered`` by a sentence that does
    not say where the film was shot). A statement that is only a question is kept as it is (the
    support check rejects it)."""
    return _ASKED_LABEL.sub("", statement, count=1)


def complete_quotes(draft: DraftDump, selected: Sequence[EvidenceItem]) -> DraftDump:
    """The draft with a quote picked by code for every finding that has none (pure, deterministic).

    The local model's grammar has no ``quote`` field: a finding names its evidence id and states
    the fact, and :func:`ditto_nb.evidence.quote_pick.pick_quote` takes the sentence(s) of that
    item's paragraph that state it (from another shown item when the cited one names none of the
    names it names: :func:`ditto_nb.evidence.quote_pick.best_source`). A finding that names its
    subject by a description its quote does not name is restated as the quote's sentence
    (:func:`ditto_nb.evidence.restate.restatement`). A statement copied up to a shown chunk's cut
    (ending in its ``…``) becomes its quote when it is a word-for-word excerpt of it
    (:func:`ditto_nb.evidence.support.verbatim_excerpt`; measured: "… was voted the IFFHS World's …"
    hid the topic's answer, "World's Best Goalkeeper", that its quote states), else loses the mark.
    A statement labelled with the question it answers loses the label (:func:`asked_label`). The
    quote then goes through the same checks as any quote (exact-substring verification, the
    lexical support check, the review).

    Args:
        draft: the report or repair draft.
        selected: the evidence items shown to the model (``id``, ``text``, ``title``).

    Returns:
        A copy of ``draft`` whose conclusions all carry a ``quote`` ("" for an unknown id).
    """
    shown = {str(c.get("id", "")): (str(c.get("title") or ""), str(c.get("text", ""))) for c in selected}
    conclusions = []
    for row in draft.get("conclusions", []):
        finding = row.copy()
        # a statement copied up to the shown chunk's cut carries its mark ("… K. A. …"): not a word
        statement = asked_label(str(finding.get("statement", ""))).rstrip()
        cut = statement.endswith("…")
        finding["statement"] = statement.removesuffix("…").rstrip()
        if not str(finding.get("quote") or "").strip():
            cited = str(finding.get("chunk_id", "")).strip().strip("[]")
            finding["chunk_id"], finding["quote"] = quote_for(str(finding.get("statement", "")), cited, shown)
        restated = restate_cited(str(finding.get("statement", "")), str(finding.get("quote", "")),
                                 str(finding.get("chunk_id", "")), shown)
        if restated is not None:
            # a two-hop statement naming its subject by a description: its quote's own sentence
            finding["statement"] = finding["quote"] = restated
        elif cut and verbatim_excerpt(str(finding["statement"]), str(finding.get("quote", ""))):
            finding["statement"] = finding["quote"]  # the sentence it was cut from, whole
        conclusions.append(finding)
    done = draft.copy()
    done["conclusions"] = conclusions
    return done


def _check(ask: Ask, key: str, draft: DraftDump, selected: list[EvidenceItem],
           coverage: list[CoverageItem], gaps: list[str]) -> Plan[_Checked]:
    """Quote, support and review checks of one draft (see the module docstring)."""
    conclusions, problems = check_draft(draft, selected)
    kept, rejected = support_split(conclusions, selected)
    verdict: ReviewDump = {"ok": True, "problems": [], "verdicts": []}
    refused: list[WithheldFinding] = []
    vouched: list[ConclusionItem] = []
    reviewed = bool(kept) or not (problems or rejected)
    if reviewed:
        verdict = cast(ReviewDump, (yield from ask(key, "review",
                                                   prompts.review_messages(_reviewed(draft, kept), coverage, gaps),
                                                   schemas.review_output(len(kept)))).model_dump())
        supported = {int(v.get("n", 0)) for v in verdict.get("verdicts", []) if v.get("verdict") == "supported"}
        explicit = [c for n, c in enumerate(kept, 1) if n in supported]
        kept, refused = apply_verdicts(kept, verdict)
        vouched = kept if verdict.get("ok") else [c for c in explicit if c in kept]
    return {"kept": kept, "rejected": rejected + refused, "refused": refused, "problems": problems,
            "verdict": verdict, "reviewed": reviewed, "vouched": vouched}


def synthesize(ask: Ask, request: ResearchRequest, plan: PlanDump, evidence: list[EvidenceItem],
               coverage: list[CoverageItem], rounds: list[RoundItem], omitted: list[OmittedItem],
               omitted_urls: list[OmittedItem], failures: list[FailureItem], stop_reason: str,
               budgets: Callable[[], dict[str, dict[str, int]]], now: Callable[[], float]) -> Plan[ResearchReport]:
    """Report, checks, independent review, at most one repair; returns the report.

    Findings whose quote does not verify after the repair, or that the second review refuses,
    are withheld with the reason; when the second review fails without refusing a finding, only
    the findings it gave an explicit ``supported`` verdict are published, the others are
    withheld with its problems, and ``review["ok"]`` is False (an honest partial report, never an
    exception that loses the research).
    """
    subs = plan["sub_questions"]
    selected, left_out = select_for_report(evidence, coverage, [request.question, *subs])
    gaps = [f"{row['question']}: {row['gap']}" for row in coverage if row["status"] == "gap"]
    view: list[PromptEvidence] = [{"id": c["id"], "origin": c["origin"], "text": c["text"]} for c in selected]
    pages = {i: entity_pages(selected, q) for i, q in enumerate(subs, start=1)}
    review: ReviewSummary = {"ok": True, "problems": [], "repaired": False, "model_checked": False}
    kept: list[ConclusionItem] = []
    withheld: list[WithheldFinding] = []
    if stop_reason == "clarification":
        draft: DraftDump = {"summary": "The topic is too vague to research; please answer the clarification "
                                            "questions and start a new task.", "unknowns": []}
    elif not selected:
        draft = {"summary": "No usable evidence was found within the budgets; nothing is concluded.", "unknowns": []}
    else:
        def first_attempt() -> Plan[Attempt[_Draft, ConclusionItem, WithheldFinding]]:
            text = complete_quotes(cast(DraftDump, (yield from ask(
                "model:report", "report", prompts.report_messages(request, subs, view, gaps, pages),
                schemas.DraftOutput)).model_dump()), selected)
            checked = yield from _check(ask, "model:review", text, selected, coverage, gaps)
            return Attempt("report", _Draft(text, checked), checked["kept"], [], checked["problems"],
                           bool(checked["verdict"]["ok"]))

        def repair(one: Attempt[_Draft, ConclusionItem, WithheldFinding]
                   ) -> Plan[Attempt[_Draft, ConclusionItem, WithheldFinding] | None]:
            first = one.draft.checked
            if not (first["rejected"] or (first["problems"] and not first["kept"]) or not first["verdict"]["ok"]):
                return None
            reasons = first["problems"] + _reasons(first["rejected"]) + list(first["verdict"]["problems"])
            text = complete_quotes(cast(DraftDump, (yield from ask(
                "model:repair", "repair", prompts.repair_messages(one.draft.text, reasons, view, gaps),
                schemas.DraftOutput)).model_dump()), selected)
            done = yield from _check(ask, "model:review-2", text, selected, coverage, gaps)
            return _after_repair(first, text, done)

        grounding = yield from ground(first_attempt, repair)
        final = grounding.final
        draft, kept, withheld = final.draft.text, distinct(final.kept), final.withheld
        done = final.draft.checked
        review["repaired"] = grounding.repaired
        review["ok"] = not (grounding.repaired and done["reviewed"] and not done["verdict"]["ok"] and not done["refused"])
        review["problems"], review["model_checked"] = list(done["verdict"]["problems"]), True
        review["dropped"] = done["problems"] if done["kept"] else []
        review["verdicts"] = list(done["verdict"]["verdicts"])
        if grounding.repaired:  # what the repair added to the published findings
            drafted = {str(c.get("statement", "")) for c in grounding.first.draft.text.get("conclusions", [])}
            review["from_repair"] = [str(c["statement"]) for c in kept if str(c["statement"]) not in drafted]
    answer: tuple[int, ...] = ()  # the findings that answer the topic, in order
    rows, compared = list(coverage), Compared(None)
    if stop_reason != "clarification" and selected:
        compared = yield from answer_side_by_side(ask, request.question, evidence)
    ordering = [orders_sides(request.question, str(c["statement"])) for c in kept]
    withheld += [_withheld(c, [ORDERING_WITHHELD]) for c, orders in zip(kept, ordering) if orders]
    kept = [c for c, orders in zip(kept, ordering) if not orders]
    if stop_reason != "clarification":
        answers = yield from decide_coverage(ask, request.question, coverage, kept, withheld)
        rows, answer = answers.coverage, answers.topic
    if answer:  # the topic's answer first (a chain's findings in its order)
        kept = [*(kept[i] for i in answer), *(c for i, c in enumerate(kept) if i not in answer)]
    cited = {c["evidence_id"] for c in kept}
    conflicts = conflict_sides(rows, kept, evidence)
    cited |= {side["evidence_id"] for conflict in conflicts for side in conflict["sides"]}
    cited |= {side["evidence_id"] for side in (compared.answer["sides"] if compared.answer else [])}
    unknowns = [f"{row['question']}: {row['gap']}" for row in rows if row["status"] == "gap"]
    status: ReportStatus
    if stop_reason == "clarification":
        status = "needs-clarification"
    else:
        status = "complete" if rows and not unknowns else "partial"
    if stop_reason == "coverage-complete" and unknowns:
        stop_reason = "no-progress"  # SPEC §4 has eight reasons; complete coverage it is not
    if stop_reason not in STOP_REASONS:
        raise ValueError(f"unknown stop reason {stop_reason!r}")
    used = budgets()
    return ResearchReport(
        id=request.id, question=request.question, research_type=request.research_type, audience=request.audience,
        scope=request.scope, goal=plan["goal"], sub_questions=subs, status=status,
        stop_reason=cast(StopReason, stop_reason), clarification_questions=plan["clarification_questions"],
        summary=summary_of(kept, unknowns, str(draft.get("summary", ""))
                           if stop_reason == "clarification" or not selected else "", answered=len(answer),
                           compared=compared.answer, compared_note=compared.note),
        conclusions=[CitedConclusion.model_validate(c) for c in kept],
        withheld=withheld, conflicts=conflicts, unknowns=unknowns, coverage=rows, rounds=rounds,
        cited_chunks=[c.copy() for c in selected if c["id"] in cited],
        omitted=omitted + left_out, omitted_urls=omitted_urls, failures=failures,
        budgets={**{k: {**v, "unused": max(0, v["limit"] - v["used"])} for k, v in used.items()},
                 "rounds": {"used": len(rounds), "limit": request.max_rounds,
                            "unused": max(0, request.max_rounds - len(rounds))}},
        review=review, generated_at=datetime.fromtimestamp(now(), timezone.utc).isoformat(),
        compared=compared.answer,
    )


@dataclass(frozen=True)
class _Draft:
    """A research draft with its checks (the draft an :class:`Attempt` carries)."""

    text: DraftDump
    checked: _Checked


def _after_repair(first: _Checked, draft: DraftDump, done: _Checked
                  ) -> Attempt[_Draft, ConclusionItem, WithheldFinding]:
    """The repair's attempt: what it kept, what stays withheld and why."""
    done = done.copy()
    if done["reviewed"] and not done["verdict"]["ok"] and not done["refused"]:
        # The review failed the repaired draft without refusing a finding: a finding is
        # published only with the review's explicit "supported" verdict; the others are
        # withheld with the review's problems (SPEC §7), and the review stays failed.
        reason = "the review failed the repaired report: " + "; ".join(done["verdict"]["problems"])
        vouched = {int(v.get("n", 0)) for v in done["verdict"].get("verdicts", []) if v.get("verdict") == "supported"}
        vouched |= {n for n, c in enumerate(done["kept"], 1) if verbatim_excerpt(c["statement"], c["quote"])}
        done["rejected"] = done["rejected"] + [_withheld(c, [reason]) for n, c in enumerate(done["kept"], 1)
                                               if n not in vouched]
        done["kept"] = [c for n, c in enumerate(done["kept"], 1) if n in vouched]
    # A finding the first review passed stands even if the repair (which rewrites the whole
    # draft) dropped it: measured, the repair kept only the finding it was asked to fix and lost
    # the topic's one supported answer.
    stated = {c["statement"] for c in [*done["kept"], *done["rejected"]]}  # judged again: that stands
    done["kept"] = [c for c in first["vouched"] if c["statement"] not in stated] + done["kept"]
    # Findings whose quote still does not verify are withheld with the reason, never published.
    unverified = [_withheld(_as_finding(row), [problem])
                  for n, row in enumerate(draft.get("conclusions", []), start=1)
                  for problem in done["problems"] if problem.startswith(f"conclusion {n}:")]
    again = {w["statement"] for w in done["rejected"] + unverified} | {c["statement"] for c in done["kept"]}
    withheld = done["rejected"] + unverified + [_also(w, "removed by the repair")
                                                for w in first["rejected"] if w["statement"] not in again]
    return Attempt("repair", _Draft(draft, done), done["kept"], withheld, done["problems"],
                   bool(done["verdict"]["ok"]))


def _also(w: WithheldFinding, reason: str) -> WithheldFinding:
    """``w`` with one more reason (a copy)."""
    out = w.copy()
    out["reasons"] = [*w["reasons"], reason]
    return out


def _as_finding(row: FindingDump) -> ConclusionItem:
    """A drafted finding as a conclusion naming its chunk reference as the evidence id."""
    return cast(ConclusionItem, {**row, "evidence_id": row.get("chunk_id", "")})


__all__ = ["Ask", "Plan", "apply_verdicts", "published_coverage", "support_split", "synthesize"]
