"""Typed JSON records that cross stage boundaries as plain dicts (tool results, evidence, rows).

These are :class:`~typing_extensions.TypedDict` shapes, so at run time they are the same JSON
dicts the Memory rows, the Worker outputs and the published reports have always held (keys and
values unchanged; old task directories read back as they are). Where a record is a field of a
pydantic stage output or report it is declared ``total=False`` with ``extra="allow"`` so a
stored row missing a key or carrying a key added by newer code still validates unchanged.

:data:`JsonObject` is kept for the one JSON boundary notebook code reads as a dict: the stored
report :attr:`~ditto_nb.patterns.common.view.TaskView.report` hands out before any validation.
Other untyped JSON (a request before validation, a model's raw output, a committed stage row) is
``Mapping[str, object]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, with_config
from typing_extensions import NotRequired, TypedDict

JsonObject = dict[str, Any]
"""A JSON object at a true boundary (a Memory value read back before validation)."""

_OPEN = ConfigDict(extra="allow")


# --- Worker inputs ----------------------------------------------------------------------------


class ModelPayload(TypedDict):
    """The ``INFER.REASONING.SAMPLE`` input of one model call."""

    provider: str
    model: str
    messages: list[dict[str, str]]
    output_schema: type[BaseModel]
    purpose: str
    max_tokens: NotRequired[int]


class MemoryCall(TypedDict, total=False):
    """A ``MEMORY.GET``/``MEMORY.WRITE`` input: ``namespace`` and ``key`` (or ``prefix``); a
    write adds ``value`` (any JSON) and optionally ``if_absent``."""

    namespace: str
    key: str
    prefix: str
    value: object
    if_absent: bool


class ContextCall(TypedDict):
    """A ``CONTEXT.LOAD`` input: the task's Context ``scope``, its Memory ``namespace`` and the
    working-set fields to write (``update``: any JSON values; None only loads)."""

    scope: str
    namespace: str
    update: dict[str, object] | None


class ToolCall(TypedDict):
    """An ``INTERACTION.ACT.TOOL`` input: the tool name and its keyword arguments."""

    tool: str
    args: Mapping[str, object]


class LedgerRow(TypedDict, total=False):
    """A ``ledger/<key>`` row: ``kind`` (``model``/``search``/``read``), ``name`` (purpose, query
    or URL), ``status`` (``started``/``done``), ``at`` (UTC ISO-8601) and, once done, the
    dispatch ``output`` (the Worker's JSON)."""

    kind: str
    name: str
    status: str
    at: str
    output: Any


class Binding(TypedDict):
    """The ``request`` row binding a task to its request: the SHA-256 ``fingerprint`` of the
    canonical request JSON and the ``request`` itself."""

    fingerprint: str
    request: Mapping[str, object]


class FailureRow(TypedDict, total=False):
    """A ``failure/<time>`` row: a failed run's ``stage``, ``error_type``, ``message``,
    ``help``, ``retryable``, ``at`` (UTC ISO-8601) and, for ``ModelOutputInvalid``, ``content``
    (the model's reply)."""

    stage: str
    error_type: str
    message: str
    help: str
    retryable: bool
    at: str
    content: str


class WithheldClaim(TypedDict, total=False):
    """A Web QA claim verification withheld: ``claim``, ``chunk_id``, ``quote``, ``reason``,
    ``quote_found``, ``grounded``, ``reasons``."""

    claim: str
    chunk_id: str
    quote: str
    reason: str
    quote_found: bool
    grounded: bool
    reasons: list[str]


# --- tools -------------------------------------------------------------------------------------


@with_config(_OPEN)
class SearchHit(TypedDict, total=False):
    """One search hit (a :class:`~ditto_nb.web.search.base.SearchHit` dump)."""

    query: str
    rank: int
    title: str
    url: str
    origin: str
    snippet: str
    discovery_only: bool
    provider: str


@with_config(_OPEN)
class SearchResult(TypedDict, total=False):
    """The ``web_search`` tool's result for one query.

    ``ok``; ``query`` (as asked); ``used`` (the form that returned hits); ``tried`` (every form
    sent); ``hits``; on failure ``failure`` and ``error``; with ``names`` asked, ``named``: the
    titles of the pages those names title (first among the hits).
    """

    ok: bool
    query: str
    used: str
    tried: list[str]
    hits: list[SearchHit]
    failure: str
    error: str
    named: list[str]


class Provenance(TypedDict, total=False):
    """Where a stored page came from, shared by :class:`PageRecord` and :class:`ChunkRecord`:
    ``final_url`` (after redirects, the URL cited), ``origin`` (``scheme://host:port`` of
    ``final_url``), ``title`` ("" when none), ``fetched_at`` (UTC ISO-8601) and ``sha256`` (hex
    SHA-256 of the raw body, the snapshot's name)."""

    final_url: str
    origin: str
    title: str
    fetched_at: str
    sha256: str


@with_config(_OPEN)
class PageRecord(Provenance, total=False):
    """The ``page_read`` tool's result for one URL: ``ok``, the requested ``url``, the
    :class:`Provenance` fields, the HTTP ``status`` and the extracted ``paragraphs`` (a failed
    read has ``failure`` and ``error``)."""

    ok: bool
    url: str
    status: int
    paragraphs: list[str]
    failure: str
    error: str


class QuoteLocation(TypedDict):
    """Where a verified quote sits: paragraph and character offsets (end exclusive)."""

    paragraph_index: int
    start: int
    end: int
    quote: str


class QuoteResult(TypedDict):
    """One ``verify_quotes`` result (see :func:`~ditto_nb.patterns.common.tools.check_quotes`)."""

    chunk_id: str
    quote: str
    ok: bool
    reason: str
    location: QuoteLocation | None
    origin: str | None
    final_url: str | None
    title: str | None
    fetched_at: str | None
    sha256: str | None
    paragraph_text: str


class CitationRef(TypedDict):
    """What a quote check needs of a citation: the cited chunk id and the quote."""

    chunk_id: str
    quote: str


class CitationJson(TypedDict):
    """A verified citation of the report (a :class:`~ditto_nb.evidence.citation.Citation` dump)."""

    chunk_id: str
    quote: str
    final_url: str
    origin: str
    title: str
    fetched_at: str
    sha256: str
    paragraph_index: int
    start: int
    end: int


class ClaimVerification(TypedDict):
    """How a claim was checked (a ``ClaimCheck`` dump)."""

    quotes_verified: bool
    grounded: bool
    grounding_reason: str
    cross_check_passed: bool | None
    origins: list[str]


class ClaimJson(TypedDict):
    """A claim of the answer with its verified citations (a ``Claim`` dump)."""

    claim: str
    citations: list[CitationJson]
    verification: ClaimVerification


class QuoteEvidence(TypedDict, total=False):
    """What :func:`~ditto_nb.patterns.common.citations.citation_json` reads of a verified quote."""

    chunk_id: str
    location: QuoteLocation | None
    final_url: str | None
    origin: str | None
    title: str | None
    fetched_at: str | None
    sha256: str | None


class PublishedFiles(TypedDict):
    """What :func:`~ditto_nb.patterns.common.publish.publish_report` returns: ``published``
    (False when the identical report was already there) and the two file paths."""

    published: bool
    json_path: str
    markdown_path: str


# --- evidence and research rows ----------------------------------------------------------------


class SearchSpec(TypedDict):
    """A search spec: the query ``text``, its relaxation ladder ``fallbacks`` (tried in order
    while a form returns no hit), the ``entity`` searched by title first ("" for none) and, in a
    second hop, ``alternates``: other names tried when every hit is a page already read, and
    ``names``: candidate bridge names whose own pages (page titles) come first."""

    text: str
    fallbacks: list[str]
    entity: str
    alternates: NotRequired[list[str]]
    names: NotRequired[list[str]]


class SearchArgs(TypedDict, total=False):
    """``web_search`` tool arguments: ``query``, ``limit`` (hits), the relaxation ladder
    ``fallbacks``, the entity ``title`` searched first, the URLs already ``seen`` and the
    ``alternates`` tried when every hit is among them, and the ``names`` looked up as page titles."""

    query: str
    limit: int
    fallbacks: list[str]
    title: str
    seen: list[str]
    alternates: list[str]
    names: list[str]


@with_config(_OPEN)
class ChunkRecord(Provenance, total=False):
    """A :class:`~ditto_nb.evidence.Chunk` dump: ``chunk_id``, the requested ``url``, the
    :class:`Provenance` fields, ``paragraph_index`` and the paragraph ``text``."""

    chunk_id: str
    url: str
    paragraph_index: int
    text: str


@with_config(_OPEN)
class EvidenceItem(ChunkRecord, total=False):
    """A research evidence item: a :class:`~ditto_nb.evidence.Chunk` dump plus its short id
    (``E1``...) and the 1-based round that found it."""

    id: str
    round: int


class PromptEvidence(TypedDict):
    """The part of an evidence item shown to the model."""

    id: str
    origin: str
    text: str


@with_config(_OPEN)
class OmittedItem(TypedDict, total=False):
    """Something a cap left out: a chunk (``chunk_id``, ``final_url``, ``chars``/``id``, or a
    Web QA ``score`` as text) or a URL (``url``, ``round``), with its ``reason``
    (``evidence-cap``, ``chunk-cap``, ``page-budget``, ``max-pages``, ``mirror``, ...)."""

    id: str
    chunk_id: str
    final_url: str
    chars: int
    url: str
    round: int
    reason: str
    score: str


@with_config(_OPEN)
class FailureItem(TypedDict, total=False):
    """A search or read that failed under ``allow_partial``: ``source`` (query or URL), ``kind``
    (``search``/``read``), ``error``."""

    source: str | None
    kind: str
    error: str | None


__all__ = [
    "Binding",
    "ChunkRecord",
    "CitationJson",
    "CitationRef",
    "ClaimJson",
    "ClaimVerification",
    "ContextCall",
    "EvidenceItem",
    "FailureItem",
    "FailureRow",
    "JsonObject",
    "LedgerRow",
    "MemoryCall",
    "ModelPayload",
    "OmittedItem",
    "PageRecord",
    "PromptEvidence",
    "Provenance",
    "PublishedFiles",
    "QuoteEvidence",
    "QuoteLocation",
    "QuoteResult",
    "SearchArgs",
    "SearchHit",
    "SearchResult",
    "SearchSpec",
    "ToolCall",
    "WithheldClaim",
]
