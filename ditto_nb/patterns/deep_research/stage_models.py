"""Typed outputs of the deep research stages and the pattern's replay policy.

Research is declared (``plan.RESEARCH``) as: ``plan``, then rounds (``round``, a repeated stage:
search → read → assess, one ``stage/round/<n>`` per round), ``evidence``, then ``report``
(synthesis, review, at most one repair) and publish. Its differences from Web QA are
replay policy (failed reads of a frozen round are reused) and its clock (``research_seconds``
counts from the start time its resume graph persists).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, cast

from pydantic import BaseModel, Field

from ditto_nb.patterns.common.records import EvidenceItem, OmittedItem
from ditto_nb.patterns.common.report_records import RoundItem
from ditto_nb.patterns.common.stage import ReplayPolicy, StageOutput
from ditto_nb.patterns.deep_research.report import ResearchReport

CoverageStatus = Literal["covered", "gap", "conflict"]


class ResearchPlan(StageOutput):
    """``stage/plan``: the checked plan (or the clarification questions)."""

    clear: bool
    goal: str
    sub_questions: list[str]
    queries: list[str]
    clarification_questions: list[str] = Field(default_factory=list)


class CoverageRow(StageOutput):
    """One sub-question's coverage after an assessment."""

    index: int
    question: str
    status: CoverageStatus
    evidence_ids: list[str] = Field(default_factory=list)
    gap: str = ""
    next_queries: list[str] = Field(default_factory=list)
    reason: str = ""


class RoundRecord(StageOutput):
    """``stage/round/<n>``: what one round did and the stop decision taken after it (replayed as
    recorded on resume; ``None`` means another round was scheduled)."""

    round: int
    queries: list[str]
    reads: list[str]
    new_evidence: int
    coverage: list[CoverageRow]
    assessed: bool
    next_queries: list[str] = Field(default_factory=list)
    stop_reason: str | None = None


class EvidenceStage(StageOutput):
    """``stage/evidence``: the accumulated evidence items and what the caps left out."""

    items: list[EvidenceItem]
    omitted: list[OmittedItem] = Field(default_factory=list)


RESEARCH_REPLAY = ReplayPolicy(reuse_failed_dispatches=True)
"""Research's replay policy: a frozen round's failed reads are reused."""

STAGE_OUTPUTS: dict[str, type[BaseModel]] = {
    "plan": ResearchPlan, "round": RoundRecord, "evidence": EvidenceStage, "report": ResearchReport}
"""The output model of each research stage (the stages themselves are declared with their
builders as ``plan.RESEARCH``)."""


def stage_row(name: str, value: object) -> Mapping[str, object]:
    """The JSON committed for research stage ``name`` (validated by its output model).

    Raises:
        pydantic.ValidationError: the value does not fit the stage's output model.
    """
    return STAGE_OUTPUTS[name].model_validate(value).model_dump(mode="json")


def round_row(value: RoundItem) -> RoundItem:
    """The JSON committed to ``stage/round/<n>``: ``value`` validated by :class:`RoundRecord`
    (a :class:`~ditto_nb.patterns.common.report_records.RoundItem`, the report's ``rounds`` item).

    Raises:
        pydantic.ValidationError: the value does not fit :class:`RoundRecord`.
    """
    return cast(RoundItem, stage_row("round", value))


__all__ = ["RESEARCH_REPLAY", "STAGE_OUTPUTS", "CoverageRow", "EvidenceStage", "ResearchPlan", "RoundRecord", "round_row", "stage_row"]
