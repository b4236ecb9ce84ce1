"""Prompts and output schemas of the research model calls.

Written for small local models (Qwen2.5-Coder 1.5B): short instructions, flat JSON schemas
whose fields describe themselves. Every system message starts with ``Task: <purpose>``
(``research-plan``, ``assess``, ``report``, ``review``, ``repair``; docs/PATTERNS.md).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import TypedDict

from ditto_nb.patterns.common.records import JsonObject, PromptEvidence
from ditto_nb.patterns.common.report_records import CoverageItem, VerdictItem
from ditto_nb.patterns.deep_research.request import ResearchRequest

Message = dict[str, str]


SHOWN_CHUNK_CHARS = 360
"""Characters of one evidence chunk shown to the model (a word-boundary prefix ending in ``…``).
Quotes are still verified against the full stored paragraph."""


def _compact_schema(schema: JsonObject) -> None:
    """Drop titles and the class docstring from a JSON schema: the schema goes into every prompt
    (``schema_instruction``) and small local models pay for each token; field descriptions stay.
    A list property asking for at least one item (``minItems`` ≥ 1) is made required, so a grammar
    cannot leave it out (validation is unchanged)."""
    schema.pop("title", None)
    schema.pop("description", None)
    for name, prop in schema.get("properties", {}).items():
        prop.pop("title", None)
        if prop.get("minItems", 0) >= 1 and name not in schema.get("required", []):
            schema["required"] = [name, *schema.get("required", [])]


_COMPACT = ConfigDict(json_schema_extra=_compact_schema)


STATEMENT_CHARS = 160
"""A conclusion statement's cap in the output grammar (characters); a statement cut there loses its
last partial word (:func:`ditto_nb.text.uncut`) before it is checked against its quote."""


def _cap(chars: int) -> JsonObject:
    """A string's length cap, in the JSON schema only (so in a local model's output grammar), not
    in validation: output never runs into ``max_tokens`` (``ModelOutputTruncated`` ends a task),
    and a provider without a grammar is not failed for a longer value."""
    return {"maxLength": chars}


def _caps(items: int, chars: int) -> JsonObject:
    """A list's item-count and item-length caps (JSON schema only, see :func:`_cap`)."""
    return {"maxItems": items, "items": {"type": "string", "maxLength": chars}}


class PlanOutput(BaseModel):
    """The research plan (model output)."""

    model_config = _COMPACT

    clear: bool = Field(description="false only if the topic is too vague to research")
    goal: str = Field(default="", description="one sentence", json_schema_extra=_cap(160))
    sub_questions: list[str] = Field(default_factory=list, description="short sub-questions",
                                     json_schema_extra=_caps(3, 110))
    queries: list[str] = Field(default_factory=list, description="one short search query per sub-question",
                               json_schema_extra=_caps(3, 60))
    clarification_questions: list[str] = Field(default_factory=list, description="only when clear is false",
                                               json_schema_extra=_caps(3, 110))


class Assessment(BaseModel):
    """Coverage of one sub-question (model output)."""

    model_config = _COMPACT

    index: int = Field(description="sub-question number")
    status: Literal["covered", "gap", "conflict"] = Field(description="covered, gap or conflict")
    evidence_ids: list[str] = Field(default_factory=list, description="ids like E1 that answer it",
                                    json_schema_extra=_caps(4, 6))
    gap: str = Field(default="", description="missing fact in a few words, empty when covered",
                     json_schema_extra=_cap(90))
    next_queries: list[str] = Field(default_factory=list, description="one short new search query for a gap",
                                    json_schema_extra=_caps(2, 60))


class AssessOutput(BaseModel):
    """Coverage of every sub-question after a round (model output)."""

    model_config = _COMPACT

    items: list[Assessment] = Field(description="one item per sub-question")


class Conclusion(BaseModel):
    """One finding of the report, backed by one exact quote (model output)."""

    model_config = _COMPACT

    index: int = Field(default=1, description="sub-question number")
    statement: str = Field(description="one short sentence", json_schema_extra=_cap(STATEMENT_CHARS))
    chunk_id: str = Field(description="evidence id, e.g. E1", json_schema_extra=_cap(6))
    quote: SkipJsonSchema[str] = ""
    """Not in the schema (so not in a local model's grammar): code quotes the sentence of the named
    evidence item that states the finding (:func:`ditto_nb.patterns.deep_research.synthesis.complete_quotes`).
    A quote a model writes anyway is kept and verified as written."""


class DraftOutput(BaseModel):
    """The report draft (model output)."""

    model_config = _COMPACT

    summary: SkipJsonSchema[str] = ""
    """Not in the schema: the published summary is composed by code from the published findings
    (:func:`ditto_nb.patterns.deep_research.synthesis.summary_of`)."""
    conclusions: list[Conclusion] = Field(default_factory=list, description="findings, one evidence id each",
                                          json_schema_extra={"maxItems": 4})
    unknowns: list[str] = Field(default_factory=list, description="what the evidence does not answer",
                                json_schema_extra=_caps(3, 100))


NOT_STATED = "not stated"
"""The review verdict "the quote does not state this": code drops (withholds) the finding."""


class Verdict(BaseModel):
    """The review's verdict on one finding (model output)."""

    model_config = _COMPACT

    n: int = Field(description="finding number")
    verdict: Literal["supported", "not stated"] = Field(description="not stated: the quote does not state this")
    reason: str = Field(default="", description="a few words", json_schema_extra=_cap(60))


class ReviewOutput(BaseModel):
    """The independent review of a draft (model output): one verdict per finding, then overall."""

    model_config = _COMPACT

    verdicts: list[Verdict] = Field(default_factory=list, description="one per finding")
    ok: bool = Field(description="true if every finding is supported by its quote and gaps are stated")
    problems: list[str] = Field(default_factory=list, description="problems found, empty when ok",
                                json_schema_extra=_caps(3, 100))


@functools.cache
def review_output(findings: int) -> type[ReviewOutput]:
    """:class:`ReviewOutput` whose JSON schema asks for exactly ``findings`` verdicts.

    ``minItems`` = ``maxItems`` = ``findings`` on ``verdicts``, so a grammar-constrained decoder
    (llama.cpp's JSON-schema grammar) cannot skip the per-finding verdicts (the 1.5B model
    answered ``verdicts: []`` with one overall problem, measured on a real wiki); validation stays
    as lenient as :class:`ReviewOutput`'s (a missing verdict is no verdict).

    Args:
        findings: the number of findings shown to the review (≥ 0).

    Returns:
        A subclass of :class:`ReviewOutput` (cached per count).
    """
    verdicts: list[Verdict] = Field(default_factory=list, description="one per finding, in order",
                     json_schema_extra={"minItems": findings, "maxItems": findings})
    model: type[ReviewOutput] = create_model("ReviewOutput", __base__=ReviewOutput,
                                             verdicts=(list[Verdict], verdicts))
    return model


class PlanDump(TypedDict, total=False):
    """A :class:`PlanOutput` dump (also the checked plan committed to ``stage/plan``)."""

    clear: bool
    goal: str
    sub_questions: list[str]
    queries: list[str]
    clarification_questions: list[str]


class AssessDump(TypedDict):
    """An :class:`AssessOutput` dump."""

    items: list[CoverageItem]


class FindingDump(TypedDict, total=False):
    """A :class:`Conclusion` dump (what the review sees has ``statement`` and ``quote`` only)."""

    index: int
    statement: str
    chunk_id: str
    quote: str


class DraftDump(TypedDict, total=False):
    """A :class:`DraftOutput` dump."""

    summary: str
    conclusions: list[FindingDump]
    unknowns: list[str]


class ReviewDump(TypedDict, total=False):
    """A :class:`ReviewOutput` dump."""

    verdicts: list[VerdictItem]
    ok: bool
    problems: list[str]


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
        "Write at most 3 findings from the evidence only. Each finding: a short statement of one fact "
        "with its names and numbers, and the id of the ONE evidence item that states it (code quotes "
        "that item's sentence). If sources disagree, one finding per source. List what stays unknown. "
        "JSON only."
    )
    return _messages("report", body, _topic(request, sub_questions, pages) + _gaps_and_evidence(gaps, chunks))


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


MAX_TOKENS: dict[str, int] = {
    "research-plan": 320,
    "assess": 360,
    "report": 640,
    "review": 320,
    "repair": 640,
}
"""Completion token limit per purpose (tokens). The schemas' length caps (:func:`_cap`) keep a
grammar-bound output below these (a truncated output ends the task with ``ModelOutputTruncated``:
measured, a 200-token plan limit cut a three-sub-question plan)."""

OUTPUT_SCHEMAS: dict[str, type[BaseModel]] = {
    "research-plan": PlanOutput,
    "assess": AssessOutput,
    "report": DraftOutput,
    "review": ReviewOutput,
    "repair": DraftOutput,
}
"""Output schema per purpose."""

__all__ = [
    "MAX_TOKENS",
    "NOT_STATED",
    "STATEMENT_CHARS",
    "OUTPUT_SCHEMAS",
    "AssessDump",
    "AssessOutput",
    "Assessment",
    "Conclusion",
    "DraftDump",
    "DraftOutput",
    "FindingDump",
    "PlanDump",
    "review_output",
    "PlanOutput",
    "ReviewDump",
    "ReviewOutput",
    "Verdict",
    "SHOWN_CHUNK_CHARS",
    "assess_messages",
    "plan_messages",
    "repair_messages",
    "report_messages",
    "review_messages",
    "shown_text",
]
