"""Prompts and output schemas of the research model calls.

Written for small local models (Qwen2.5-Coder 1.5B): short instructions, flat JSON schemas
whose fields describe themselves. Every system message starts with ``Task: <purpose>``
(``research-plan``, ``assess``, ``report``, ``review``, ``repair``; docs/PATTERNS.md).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from ditto_nb.patterns.deep_research.request import ResearchRequest

Message = dict[str, str]


class PlanOutput(BaseModel):
    """The research plan (model output)."""

    clear: bool = Field(description="true if the topic is specific enough to research, false if it is too vague")
    goal: str = Field(default="", description="one sentence: what the research must find out")
    sub_questions: list[str] = Field(default_factory=list, description="up to 3 short sub-questions")
    queries: list[str] = Field(default_factory=list, description="one short search query per sub-question")
    clarification_questions: list[str] = Field(
        default_factory=list, description="questions to ask the user when the topic is vague, else empty"
    )


class Assessment(BaseModel):
    """Coverage of one sub-question (model output)."""

    index: int = Field(description="number of the sub-question, starting at 1")
    status: Literal["covered", "gap", "conflict"] = Field(
        description="covered: evidence answers it; gap: evidence is missing; conflict: sources disagree"
    )
    evidence_ids: list[str] = Field(default_factory=list, description="ids of evidence chunks that answer it")
    gap: str = Field(default="", description="what is still missing, empty when covered")
    next_queries: list[str] = Field(default_factory=list, description="new search queries for the gap, else empty")


class AssessOutput(BaseModel):
    """Coverage of every sub-question after a round (model output)."""

    items: list[Assessment] = Field(description="one item per sub-question")


class Conclusion(BaseModel):
    """One conclusion of the report, backed by one exact quote (model output)."""

    index: int = Field(description="number of the sub-question it answers, starting at 1")
    statement: str = Field(description="the conclusion in one sentence")
    chunk_id: str = Field(description="id of the evidence chunk the quote comes from")
    quote: str = Field(description="exact words copied from that chunk")


class DraftOutput(BaseModel):
    """The report draft (model output)."""

    summary: str = Field(description="two or three sentences: what is known and what is not")
    conclusions: list[Conclusion] = Field(default_factory=list, description="conclusions with exact quotes")
    unknowns: list[str] = Field(default_factory=list, description="open questions the evidence does not answer")


class ReviewOutput(BaseModel):
    """The independent review of a draft (model output)."""

    ok: bool = Field(description="true if every conclusion is supported by its quote and gaps are stated")
    problems: list[str] = Field(default_factory=list, description="each problem found, empty when ok")


def _system(purpose: str, body: str) -> Message:
    return {"role": "system", "content": f"Task: {purpose}\n{body}"}


def _evidence_block(chunks: list[dict[str, Any]]) -> str:
    return "\n".join(f"[{c['id']}] ({c['origin']}) {c['text']}" for c in chunks) or "(no evidence)"


def plan_messages(request: ResearchRequest) -> list[Message]:
    """Messages of the ``research-plan`` call.

    Args:
        request: the validated request.

    Returns:
        Chat messages (system first).
    """
    body = (
        f"You plan web research. Give a goal, at most {request.max_queries} sub-questions and one search "
        "query for each. If the topic is too vague to research, set clear=false and ask clarification "
        "questions instead. Answer with JSON only."
    )
    user = (
        f"Topic: {request.question}\nType: {request.research_type}\nAudience: {request.audience}\n"
        f"Scope: {request.scope or 'not given'}"
    )
    return [_system("research-plan", body), {"role": "user", "content": user}]


def assess_messages(
    request: ResearchRequest, sub_questions: list[str], chunks: list[dict[str, Any]], asked: list[str]
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
        "You check research coverage. For each sub-question give status covered, gap or conflict "
        "(sources disagree), the evidence ids that support it, the missing fact, and new search "
        "queries for gaps. Name new entities found in the evidence in the queries. Answer with JSON only."
    )
    questions = "\n".join(f"{i}. {q}" for i, q in enumerate(sub_questions, start=1))
    user = (
        f"Topic: {request.question}\nSub-questions:\n{questions}\n"
        f"Queries already run: {json.dumps(asked)}\nEvidence:\n{_evidence_block(chunks)}"
    )
    return [_system("assess", body), {"role": "user", "content": user}]


def report_messages(
    request: ResearchRequest, sub_questions: list[str], chunks: list[dict[str, Any]], gaps: list[str]
) -> list[Message]:
    """Messages of the ``report`` call.

    Args:
        request: the validated request.
        sub_questions: the planned sub-questions.
        chunks: the selected chunks (at most eight).
        gaps: open gaps from the last assessment.

    Returns:
        Chat messages (system first).
    """
    body = (
        "You write a research report. Each conclusion copies an exact quote from one evidence chunk "
        "and names its id. Use only the evidence. When sources disagree, give one conclusion per "
        "source. List what stays unknown. Answer with JSON only."
    )
    questions = "\n".join(f"{i}. {q}" for i, q in enumerate(sub_questions, start=1))
    user = (
        f"Topic: {request.question}\nAudience: {request.audience}\nSub-questions:\n{questions}\n"
        f"Known gaps: {json.dumps(gaps)}\nEvidence:\n{_evidence_block(chunks)}"
    )
    return [_system("report", body), {"role": "user", "content": user}]


def review_messages(draft: dict[str, Any], chunks: list[dict[str, Any]], gaps: list[str]) -> list[Message]:
    """Messages of the independent ``review`` call.

    Args:
        draft: the draft (``DraftOutput`` as a dict).
        chunks: the selected chunks.
        gaps: open gaps the report must disclose.

    Returns:
        Chat messages (system first).
    """
    body = (
        "You review a research report. Check that each conclusion says only what its quote says and "
        "that the unknowns are stated. ok=true when it is honest. Answer with JSON only."
    )
    user = f"Report: {json.dumps(draft)}\nKnown gaps: {json.dumps(gaps)}\nEvidence:\n{_evidence_block(chunks)}"
    return [_system("review", body), {"role": "user", "content": user}]


def repair_messages(
    draft: dict[str, Any], problems: list[str], chunks: list[dict[str, Any]], gaps: list[str]
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
        "You fix a research report. Remove or correct every listed problem. Quotes must be exact "
        "words from the named chunk. Answer with JSON only."
    )
    user = (
        f"Report: {json.dumps(draft)}\nProblems: {json.dumps(problems)}\nKnown gaps: {json.dumps(gaps)}\n"
        f"Evidence:\n{_evidence_block(chunks)}"
    )
    return [_system("repair", body), {"role": "user", "content": user}]


MAX_TOKENS: dict[str, int] = {
    "research-plan": 200,
    "assess": 200,
    "report": 400,
    "review": 120,
    "repair": 400,
}
"""Completion token limit per purpose (tokens): small outputs keep small local models fast."""

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
    "OUTPUT_SCHEMAS",
    "AssessOutput",
    "Assessment",
    "Conclusion",
    "DraftOutput",
    "PlanOutput",
    "ReviewOutput",
    "assess_messages",
    "plan_messages",
    "repair_messages",
    "report_messages",
    "review_messages",
]
