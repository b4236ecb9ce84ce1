"""The ONE citation model: a verified exact quote with where it sits in a stored snapshot.

Both patterns cite with it (Web QA claims and conflict sides, deep research conclusions extend
it). Build one only from a successful :class:`~ditto_nb.evidence.quotes.QuoteCheck`
(:func:`citation_from_check`), so every citation satisfies
``paragraph[start:end] == quote`` for the snapshot ``sha256``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ditto_nb.evidence.quotes import QuoteCheck


class Citation(BaseModel):
    """A verified quote with its location in the stored page text.

    Attributes:
        chunk_id: the cited chunk (``<sha256[:12]>:<paragraph_index>``).
        quote: the matched, normalized quote text.
        final_url: the URL the page was read from (after redirects).
        origin: ``https://host:port`` of ``final_url``.
        title: the page title.
        fetched_at: retrieval time (UTC ISO-8601), not a publication date.
        sha256: SHA-256 (hex) of the raw snapshot bytes.
        paragraph_index: 0-based paragraph index in the extracted text.
        start: first character offset of the quote in the normalized paragraph (inclusive).
        end: character offset after the quote (exclusive).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    chunk_id: str
    quote: str
    final_url: str
    origin: str
    title: str
    fetched_at: str = Field(description="retrieval time (UTC ISO-8601), not a publication date")
    sha256: str = Field(description="SHA-256 of the raw HTML snapshot")
    paragraph_index: int = Field(description="0-based paragraph index in the extracted text")
    start: int = Field(description="character offset of the quote in the paragraph")
    end: int


def citation_fields(check: QuoteCheck) -> dict[str, object]:
    """The :class:`Citation` fields of a successful check (for models that extend Citation).

    Args:
        check: a :class:`QuoteCheck` with ``ok`` True.

    Returns:
        ``{field: value}`` for every :class:`Citation` field.

    Raises:
        ValueError: the check did not verify.
    """
    if not check.ok or check.chunk is None or check.location is None:
        raise ValueError(f"quote {check.quote!r} did not verify ({check.reason}); it cannot be cited")
    chunk, where = check.chunk, check.location
    return {"chunk_id": chunk.chunk_id, "quote": where.quote, "final_url": chunk.final_url, "origin": chunk.origin,
            "title": chunk.title, "fetched_at": chunk.fetched_at, "sha256": chunk.sha256,
            "paragraph_index": chunk.paragraph_index, "start": where.start, "end": where.end}


def citation_from_check(check: QuoteCheck) -> Citation:
    """The citation of a successful quote check.

    Args:
        check: a :class:`QuoteCheck` with ``ok`` True.

    Returns:
        The :class:`Citation`.

    Raises:
        ValueError: the check did not verify.
    """
    return Citation.model_validate(citation_fields(check))


__all__ = ["Citation", "citation_fields", "citation_from_check"]
