"""Prompts of the research model calls (their output schemas: :mod:`ditto_nb.patterns.deep_research.schemas`).

Written for small local models (Qwen2.5-Coder 1.5B): short instructions, flat JSON schemas
whose fields describe themselves. Every system message starts with ``Task: <purpose>``
(``research-plan``, ``assess``, ``report``, ``review``, ``repair``, ``coverage``;
docs/PATTERNS.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ditto_nb.patterns.common.compare.prompt import compare_request
from ditto_nb.patterns.common.records import PromptEvidence
from ditto_nb.patterns.common.report_records import CoverageItem
from ditto_nb.patterns.deep_research.request import ResearchRequest
from ditto_nb.patterns.deep_research.schemas import NOT_STATED, DraftDump

Message = dict[str, str]


SHOWN_CHUNK_CHARS = 360
"""Characters of one evidence chunk shown to the model (a word-boundary prefix ending in ``…``).
Quotes are still verified against the full stored paragraph."""


def _messages(purpose: str, body: str, user: str) -> list[Message]:
    """``[system, user]``: the system message is ``Task: <purpose>`` then ``body``."""
    return [{"role": "system", "content": f"Task: {purpose}\n{body}"}, {"role": "user", "content": user}]


def shown_text(text: str, limit: int = SHOWN_CHUNK_CHARS) -> str:
    """The prefix of a chunk's text shown to the model.

    Args:
        text: the chunk's normalized paragraph text.
        limit: characters shown at most (plus ``…`` when cut).

    Returns:
        ``text`` when it fits, else its longest word-boundary prefix within ``limit`` plus ``…``.
    """
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return f"{cut}…"


def _evidence_block(chunks: Sequence[PromptEvidence]) -> str:
    return "\n".join(f"[{c['id']}] ({c['origin']}) {shown_text(str(c['text']))}" for c in chunks) or "(no evidence)"


def _topic(request: ResearchRequest, sub_questions: list[str], pages: dict[int, list[str]] | None = None) -> str:
    """``Topic: …`` and the numbered sub-questions (each with its own page's evidence ids, when given)."""
    rows = []
    for i, q in enumerate(sub_questions, start=1):
        own = (pages or {}).get(i, [])
        rows.append(f"{i}. {q}" + (f" (its own page: {', '.join(own[:3])})" if own else ""))
    return f"Topic: {request.question}\nSub-questions:\n" + "\n".join(rows) + "\n"


def _gaps_and_evidence(gaps: list[str], chunks: Sequence[PromptEvidence]) -> str:
    return f"Known gaps: {json.dumps(gaps)}\nEvidence:\n{_evidence_block(chunks)}"


def plan_messages(request: ResearchRequest) -> list[Message]:
    """Messages of the ``research-plan`` call.

    Args:
        request: the validated request.

    Returns:
        Chat messages (system first).
    """
    body = (
        f"Plan web research on the topic: a goal, at most {request.max_queries} sub-question(s), one "
        "search query each. Only if the topic is too vague: clear=false and clarification questions. JSON only."
    )
    return _messages("research-plan", body, f"Topic: {request.question}\nScope: {request.scope or 'not given'}")


def assess_messages(
    request: ResearchRequest, sub_questions: list[str], chunks: Sequence[PromptEvidence], asked: list[str]
) -> list[Message]:
    """Messages of an ``assess`` call (one per round).

    Args:
        request: the validated request.
        sub_questions: the planned sub-questions.
        chunks: evidence shown to the model (``id``, ``origin``, ``text``).
        asked: queries already run (the model must propose new ones).

    Returns:
        Chat messages (system first).
    """
    body = (
        "For each sub-question: status covered (evidence answers it), gap (missing) or conflict "
        "(sources disagree); the evidence ids that answer it; for a gap the missing fact and a new "
        "search query naming entities from the evidence. JSON only."
    )
    asked_and_evidence = f"Queries already run: {json.dumps(asked)}\nEvidence:\n{_evidence_block(chunks)}"
    return _messages("assess", body, _topic(request, sub_questions) + asked_and_evidence)


def report_messages(
    request: ResearchRequest, sub_questions: list[str], chunks: Sequence[PromptEvidence], gaps: list[str],
    pages: dict[int, list[str]] | None = None,
) -> list[Message]:
    """Messages of the ``report`` call.

    Args:
        request: the validated request.
        sub_questions: the planned sub-questions.
        chunks: the selected chunks (at most eight), in priority order.
        gaps: open gaps from the last assessment.
        pages: sub-question number → ids of evidence from the page of the entity it names
            (shown next to the sub-question: the page to quote first).

    Returns:
        Chat messages (system first).
    """
    body = (
        "Write at most 3 findings from the evidence only. If the evidence states the topic's answer, the "
        "first finding states it. Each finding: a short statement of one fact "
        "with its names and numbers, and the id of the ONE evidence item that states it (code quotes "
        "that item's sentence). If sources disagree, one finding per source. List what stays unknown. "
        "JSON only."
    )
    return _messages("report", body, _topic(request, sub_questions, pages) + _gaps_and_evidence(gaps, chunks))


def coverage_messages(pairs: Sequence[tuple[str, str]]) -> list[Message]:
    """Messages of the ``coverage`` call: one verdict per (question, finding) pair.

    Args:
        pairs: ``(question, finding statement)``; the questions are the topic and the planned
            sub-questions, each with the published finding code picked for it.

    Returns:
        Chat messages (system first).
    """
    body = (
        "For each pair: verdict answers if the finding states what the question asks (the same person or "
        "thing), else \"does not answer\", with a short reason. JSON only."
    )
    rows = "\n".join(f"{n}. Question: {q}\n   Finding: {f}" for n, (q, f) in enumerate(pairs, start=1))
    return _messages("coverage", body, f"Pairs:\n{rows}")


def _draft(draft: DraftDump) -> str:
    """``Summary: …`` and the numbered findings, each with its quote."""
    rows = [f"{n}. Statement: {c.get('statement', '')}\n   Quote: \"{c.get('quote', '')}\""
            for n, c in enumerate(draft.get("conclusions", []), start=1)]
    return f"Summary: {draft.get('summary', '')}\nFindings:\n" + ("\n".join(rows) or "(no findings)") + "\n"


def review_messages(draft: DraftDump, coverage: Sequence[CoverageItem], gaps: list[str]) -> list[Message]:
    """Messages of the independent ``review`` call.

    The reviewer sees each finding's statement and its (already verified) quote side by side and
    gives one verdict per finding with a reason (``supported`` or :data:`NOT_STATED`, which code
    enforces by withholding the finding); then the summary, the coverage per sub-question and the
    open gaps — not the drafting prompt.

    Args:
        draft: the draft to review (``summary``, ``conclusions`` with verified quotes, ``unknowns``).
        coverage: coverage rows (``index``, ``question``, ``status``).
        gaps: open gaps the report must disclose.

    Returns:
        Chat messages (system first).
    """
    body = (
        "Review a research report. For each finding: verdict supported if its quote states it (same "
        "person or thing, same names and numbers), else \"not stated\", with a short reason. ok=true when "
        "the summary does not hide the gaps. Otherwise ok=false and list the problems. JSON only."
    )
    covered = "\n".join(f"{row['index']}. {row['question']} - {row['status']}" for row in coverage) or "(none)"
    rest = f"Unknowns: {json.dumps(draft.get('unknowns', []))}\nCoverage:\n{covered}\nKnown gaps: {json.dumps(gaps)}"
    return _messages("review", body, _draft(draft) + rest)


def repair_messages(
    draft: DraftDump, problems: list[str], chunks: Sequence[PromptEvidence], gaps: list[str]
) -> list[Message]:
    """Messages of the single ``repair`` call.

    Args:
        draft: the rejected draft.
        problems: review problems and failed quote checks.
        chunks: the selected chunks.
        gaps: open gaps.

    Returns:
        Chat messages (system first).
    """
    body = (
        "Fix the research report: remove or correct each listed problem. Each finding states one fact "
        "that the evidence item it names states (code quotes that item's sentence). JSON only."
    )
    problems_line = f"Problems: {json.dumps(problems)}\n"
    return _messages("repair", body, _draft(draft) + problems_line + _gaps_and_evidence(gaps, chunks))


def compare_messages(topic: str, sides: Sequence[tuple[str, Sequence[str]]]) -> list[Message]:
    """Messages of the ``compare`` call: the compare request Web QA uses too
    (:func:`ditto_nb.patterns.common.compare.prompt.compare_request`) in research's message layout.

    Args:
        topic: the research topic (a two-sided comparison).
        sides: ``(side as the topic writes it, its quotes)``, the topic's order.

    Returns:
        Chat messages (system first).
    """
    shown, rules = compare_request(topic, sides)
    return _messages("compare", f"{rules} JSON only.", shown)


__all__ = [
    "SHOWN_CHUNK_CHARS",
    "Message",
    "assess_messages",
    "compare_messages",
    "coverage_messages",
    "plan_messages",
    "repair_messages",
    "report_messages",
    "review_messages",
    "shown_text",
]
