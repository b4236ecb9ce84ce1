"""Typed JSON records of a research report (coverage rows, rounds, conclusions, conflicts, the
review): :class:`~typing_extensions.TypedDict` shapes like those of
:mod:`ditto_nb.patterns.common.records` (``total=False`` with ``extra="allow"``, so stored rows read
back unchanged)."""

from __future__ import annotations

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from ditto_nb.patterns.common.records import CitationJson

_OPEN = ConfigDict(extra="allow")


@with_config(_OPEN)
class CoverageItem(TypedDict, total=False):
    """One sub-question's coverage row (the JSON of
    :class:`~ditto_nb.patterns.deep_research.stage_models.CoverageRow`)."""

    index: int
    question: str
    status: str
    evidence_ids: list[str]
    gap: str
    next_queries: list[str]
    reason: str
    """Why the row has its status (the report's coverage call, or the assessment's check)."""


@with_config(_OPEN)
class RoundItem(TypedDict, total=False):
    """One research round (the JSON of
    :class:`~ditto_nb.patterns.deep_research.stage_models.RoundRecord`)."""

    round: int
    queries: list[str]
    reads: list[str]
    new_evidence: int
    coverage: list[CoverageItem]
    assessed: bool
    next_queries: list[str]
    stop_reason: str | None


@with_config(_OPEN)
class ConclusionItem(CitationJson, total=False):
    """A verified finding (a ``CitedConclusion`` dump: the citation fields of
    :class:`~ditto_nb.patterns.common.records.CitationJson`, ``index``, ``statement``,
    ``evidence_id``)."""

    index: int
    statement: str
    evidence_id: str


@with_config(_OPEN)
class WithheldFinding(TypedDict, total=False):
    """A finding not published, with the reasons."""

    index: int
    statement: str
    quote: str
    evidence_id: str
    title: str
    reasons: list[str]


@with_config(_OPEN)
class ConflictSide(TypedDict):
    """One side of a conflict: the evidence and its exact quote."""

    evidence_id: str
    origin: str
    final_url: str
    quote: str


@with_config(_OPEN)
class ConflictItem(TypedDict, total=False):
    """A conflicting sub-question and every side's quote (no winner picked)."""

    index: int
    question: str
    sides: list[ConflictSide]


@with_config(_OPEN)
class VerdictItem(TypedDict, total=False):
    """The review's verdict on finding ``n`` (a ``Verdict`` dump)."""

    n: int
    verdict: str
    reason: str


@with_config(_OPEN)
class ReviewSummary(TypedDict, total=False):
    """The report's review record: ``ok``, ``problems``, ``repaired``, ``model_checked`` and,
    after a model review, ``dropped`` and ``verdicts``; after a repair, ``from_repair``: the
    statements of the published findings the first draft did not state (what the repair added)."""

    ok: bool
    problems: list[str]
    repaired: bool
    model_checked: bool
    dropped: list[str]
    verdicts: list[VerdictItem]
    from_repair: list[str]


class ComparedSide(TypedDict):
    """One side of a comparison topic's answer: the side as the topic writes it, its value as the
    ``compare`` call read it, and the quote it was read from (``evidence_id``, page ``title``)."""

    side: str
    value: str
    quote: str
    evidence_id: str
    title: str


class ComparedAnswer(TypedDict):
    """A comparison topic's answer side by side
    (:mod:`ditto_nb.patterns.deep_research.compared`): ``answer`` (``Yes``/``No``, a side, or a
    shared value), ``decided_by`` (``code`` from the two values, or ``model``), one row per side."""

    answer: str
    decided_by: str
    sides: list[ComparedSide]


__all__ = [
    "ComparedAnswer",
    "ComparedSide",
    "ConclusionItem",
    "ConflictItem",
    "ConflictSide",
    "CoverageItem",
    "ReviewSummary",
    "RoundItem",
    "VerdictItem",
    "WithheldFinding",
]
