"""The deep research request: trusted controller input, validated against SPEC §4.

A request is never granted by a model. Budgets bound the task as a whole; their documented
ranges are enforced here and a value outside them raises :class:`~ditto_nb.errors.InvalidRequest`.
The fingerprint binds a task directory to one request: the same id with a different topic,
policy or budget is :class:`~ditto_nb.errors.RequestChanged` (checked by the plan).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field

from ditto_nb.patterns.common.request import TaskRequest

ResearchType = Literal["market", "industry", "academic", "competitive", "policy"]
RESEARCH_TYPES: tuple[str, ...] = ("market", "industry", "academic", "competitive", "policy")

StopReason = Literal[
    "coverage-complete", "round-budget", "search-budget", "page-budget", "model-budget", "deadline", "no-progress",
    "clarification",
]
STOP_REASONS: tuple[str, ...] = (
    "coverage-complete",
    "round-budget",
    "search-budget",
    "page-budget",
    "model-budget",
    "deadline",
    "no-progress",
    "clarification",
)
"""Every stop reason a finished research task may carry: exactly SPEC §4's eight. A loop the
assessment ended as complete whose published (supported) conclusions leave a sub-question
uncovered reports ``no-progress`` (the rounds ended without evidence that carries it), never
``coverage-complete``."""

SYNTHESIS_RESERVE = 4
"""Model calls kept back, before another round's assessment, for report, review, one repair
and the review of the repair (SPEC §4). The ``coverage`` call that decides coverage from the
published findings (:mod:`ditto_nb.patterns.deep_research.answers`) runs when a call is left
after them; otherwise coverage falls back to the drafter's numbers and says so."""


class ResearchRequest(TaskRequest):
    """One deep research task (SPEC §4); the shared fields are
    :class:`~ditto_nb.patterns.common.request.TaskRequest`'s.

    Attributes:
        research_type: market, industry, academic, competitive or policy (same evidence process).
        audience: who the report is for (free text, shapes tone only).
        scope: what is in and out of scope (free text; the Context scope is ``scope_key``).
        max_queries: queries per round and the number of initial sub-questions (1–3).
        max_pages: candidate pages read per round (1–6).
        max_rounds: research rounds (1–4; default 2: on 20 held-out HotpotQA topics no published
            finding came from a third round's page, which cost one assessment call per topic).
        max_searches: search dispatches for the whole task (1–12).
        max_read_pages: page-read dispatches for the whole task (1–16).
        max_model_calls: model calls for the whole task (8–24).
        research_seconds: seconds from the persisted start time (pauses included) after which
            no new research work is scheduled (1–3600); synthesis still runs.
    """

    NAMESPACE_PREFIX = "research"
    SCOPE_PREFIX = "research"
    LABEL = "research"

    research_type: ResearchType = "industry"
    audience: str = Field(default="analyst", max_length=500)
    scope: str = Field(default="", max_length=2000)
    max_queries: int = Field(default=3, ge=1, le=3)
    max_pages: int = Field(default=4, ge=1, le=6)
    max_rounds: int = Field(default=2, ge=1, le=4)
    max_searches: int = Field(default=8, ge=1, le=12)
    max_read_pages: int = Field(default=12, ge=1, le=16)
    max_model_calls: int = Field(default=16, ge=8, le=24)
    research_seconds: int = Field(default=900, ge=1, le=3600)

    @property
    def scope_key(self) -> str:
        """Context scope of the task: ``research:{tenant}:{principal}:{id}``."""
        return self.context_scope


def parse_request(data: ResearchRequest | Mapping[str, object]) -> ResearchRequest:
    """Validate a request (:meth:`ResearchRequest.parse`).

    Args:
        data: a :class:`ResearchRequest` or its JSON form.

    Returns:
        The validated request.

    Raises:
        InvalidRequest: a field is missing, unknown or outside its documented range.
    """
    return ResearchRequest.parse(data)


def default_request(allowed_origins: tuple[str, ...] | list[str] = ("https://en.wikipedia.org",)) -> ResearchRequest:
    """A small demonstration request (Wikipedia by default).

    Args:
        allowed_origins: origins the task may read.

    Returns:
        A request about the history and adoption of a well documented technology.
    """
    return ResearchRequest(
        id="research-demo",
        tenant="demo",
        principal="analyst",
        question="How did the lithium-ion battery develop, and who were its key inventors?",
        research_type="industry",
        audience="analyst",
        scope="history and inventors; no market forecasts",
        allowed_origins=tuple(allowed_origins),
        max_queries=2,
        max_pages=3,
        max_rounds=2,
        max_searches=4,
        max_read_pages=6,
        max_model_calls=10,
        research_seconds=600,
    )


__all__ = [
    "RESEARCH_TYPES",
    "STOP_REASONS",
    "SYNTHESIS_RESERVE",
    "StopReason",
    "ResearchRequest",
    "ResearchType",
    "default_request",
    "parse_request",
]
