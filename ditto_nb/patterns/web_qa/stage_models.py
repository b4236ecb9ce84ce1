"""Typed outputs of the Web QA stages (``stage/<name>`` rows; the report is :class:`WebQaReport`).

Each stage has a pydantic output model (validated before the row is committed) and the
:class:`~typing_extensions.TypedDict` of its committed JSON (``*Json``), which is what the plan's
stage functions return and pass on: the same dicts as before, typed. Nested per-source records
are the shared records of :mod:`ditto_nb.patterns.common.records` (search results, page records,
chunks, claims and their citations).
"""

from __future__ import annotations

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from ditto_nb.evidence import Chunk
from ditto_nb.patterns.common.records import (
    ChunkRecord,
    CitationJson,
    ClaimJson,
    OmittedItem,
    PageRecord,
    SearchResult,
    SearchSpec,
    WithheldClaim,
)
from ditto_nb.patterns.common.stage import StageOutput

_OPEN = ConfigDict(extra="allow")


@with_config(_OPEN)
class ReadFailure(TypedDict):
    """A search or page read that failed: ``stage`` (``searched``/``read``), ``source`` (query
    or URL), ``failure`` (kind) and ``error`` (message)."""

    stage: str
    source: str
    failure: str
    error: str


@with_config(_OPEN)
class ConflictQuote(TypedDict):
    """One side of a verified conflict: the chunk and its exact quote."""

    chunk_id: str
    quote: str


@with_config(_OPEN)
class SelectedConflict(TypedDict):
    """A conflict the selection verified (both quotes exact)."""

    topic: str
    sides: list[ConflictQuote]


class PlanStage(StageOutput):
    """``stage/plan``: the restated question and the query plan."""

    normalized_question: str
    queries: list[str]
    needs_clarification: bool = False
    clarification: str = ""


class PlanJson(TypedDict, total=False):
    """The JSON of ``stage/plan``: :class:`PlanStage` plus the search specs of the first hop
    (``search``) and those kept for the second (``deferred``)."""

    normalized_question: str
    queries: list[str]
    search: list[SearchSpec]
    deferred: list[SearchSpec]
    needs_clarification: bool
    clarification: str


class SearchedStage(StageOutput):
    """``stage/searched``: one ``web_search`` tool result per query (``ok``, ``query``, ``hits``)."""

    results: list[SearchResult]


class SearchedJson(TypedDict):
    """The JSON of ``stage/searched`` (and ``stage/hop-searched``)."""

    results: list[SearchResult]


class ReadStage(StageOutput):
    """``stage/read``: page records (``page_read`` results), failures and omitted URLs."""

    pages: list[PageRecord]
    failures: list[ReadFailure] = Field(default_factory=list)
    omitted: list[OmittedItem] = Field(default_factory=list)


class ReadJson(TypedDict):
    """The JSON of ``stage/read`` (and ``stage/hop-read``)."""

    pages: list[PageRecord]
    failures: list[ReadFailure]
    omitted: list[OmittedItem]


class SelectedStage(StageOutput):
    """``stage/selected``: the candidate chunks shown, their prompt labels, the selection."""

    candidates: list[Chunk]
    labels: dict[str, str] = Field(default_factory=dict)
    selected: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    conflicts: list[SelectedConflict] = Field(default_factory=list)
    fallback: bool = False
    omitted: list[OmittedItem] = Field(default_factory=list)


class SelectedJson(TypedDict, total=False):
    """The JSON of ``stage/selected``: :class:`SelectedStage` plus the bridge names the selection
    asked to look up (``lookup``, for the second hop)."""

    candidates: list[ChunkRecord]
    labels: dict[str, str]
    selected: list[str]
    lookup: list[str]
    missing: list[str]
    conflicts: list[SelectedConflict]
    fallback: bool
    omitted: list[OmittedItem]


class HopPlan(TypedDict):
    """The second hop (:func:`~ditto_nb.patterns.web_qa.hop.plan_hop`): its ``queries``, search
    specs, page budget and the bridge ``names``."""

    queries: list[str]
    search: list[SearchSpec]
    pages: int
    names: list[str]


class HopResult(TypedDict):
    """The second hop's ``hop-searched`` and ``hop-read`` stage JSON."""

    searched: SearchedJson
    read: ReadJson


class ShownSide(TypedDict):
    """A conflict side as shown to the answer call: its quote only."""

    quote: str


class ShownConflict(TypedDict):
    """A verified conflict as shown to the answer call."""

    topic: str
    sides: list[ShownSide]


class DraftCitation(TypedDict):
    """A drafted claim's citation with its label resolved to a chunk id."""

    claim: str
    chunk_id: str
    quote: str


class ReportConflict(TypedDict):
    """A verified conflict as reported: its topic and each side's citation."""

    topic: str
    sides: list[CitationJson]


class RuleFiredJson(TypedDict):
    """One answer rule that fired (see :class:`ditto_nb.patterns.web_qa.rules.RuleFired`)."""

    rule: str
    phase: str
    round: str
    changed: bool
    before: str
    after: str
    note: str


class AnswerJson(TypedDict, total=False):
    """The report's ``answer``: status, text, claims and (in Memory only) withheld claims."""

    status: str
    text: str
    claims: list[ClaimJson]
    withheld: list[WithheldClaim]
    rules: list[RuleFiredJson]


ReportHit = dict[str, str | int | bool | None]
"""A search hit as reported: ``rank``, ``title``, ``url``, ``snippet``, ``discovery_only``."""


class SearchRecordJson(TypedDict, total=False):
    """One query's search result as reported (a ``SearchRecord`` dump)."""

    query: str
    ok: bool
    hits: list[ReportHit]
    failure: str | None


class SelectionJson(TypedDict, total=False):
    """The report's ``selection`` (a ``Selection`` dump)."""

    selected: list[str]
    missing: list[str]
    conflicts: list[ReportConflict]
    omitted: list[OmittedItem]


class WebQaReportJson(TypedDict, total=False):
    """The JSON of :class:`~ditto_nb.patterns.web_qa.report.WebQaReport` (``stage/report``)."""

    task_id: str
    question: str
    normalized_question: str
    queries: list[str]
    searches: list[SearchRecordJson]
    selection: SelectionJson
    evidence: list[ChunkRecord]
    answer: AnswerJson
    failures: list[ReadFailure]
    omitted_urls: list[OmittedItem]
    repaired: bool
    budget: dict[str, int] | None
    generated_at: str


WebQaStages = TypedDict(
    "WebQaStages",
    {
        "plan": PlanJson,
        "searched": SearchedJson,
        "read": ReadJson,
        "selected": SelectedJson,
        "hop-searched": SearchedJson,
        "hop-read": ReadJson,
        "report": WebQaReportJson,
    },
    total=False,
)
"""The committed stages of a Web QA task by name (``stage/<name>`` rows; the report is the
:class:`~ditto_nb.patterns.web_qa.report.WebQaReport` JSON)."""


__all__ = [
    "AnswerJson",
    "ConflictQuote",
    "DraftCitation",
    "HopPlan",
    "HopResult",
    "PlanJson",
    "PlanStage",
    "ReadFailure",
    "ReadJson",
    "ReadStage",
    "ReportConflict",
    "ReportHit",
    "SearchRecordJson",
    "SelectionJson",
    "SearchedJson",
    "SearchedStage",
    "SelectedConflict",
    "SelectedJson",
    "SelectedStage",
    "ShownConflict",
    "ShownSide",
    "WebQaReportJson",
    "WebQaStages",
]
