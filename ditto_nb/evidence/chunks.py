"""Evidence chunks: one :class:`Chunk` per stored, extracted paragraph of a page snapshot.

A chunk id is stable across runs and machines: ``<sha256[:12]>:<paragraph index>``, where
``sha256`` is the SHA-256 of the page's raw body (the snapshot key) and the index is 0-based in
the page's normalized paragraph list (``ditto_nb.web.extract_paragraphs``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ditto_nb.text import normalize_text
from ditto_nb.web.policy import origin_of


def chunk_id_for(sha256: str, paragraph_index: int) -> str:
    """Return the stable chunk id of one paragraph.

    Args:
        sha256: hex SHA-256 of the page's raw body (64 characters).
        paragraph_index: 0-based index in the page's extracted paragraphs.

    Returns:
        ``"<sha256[:12]>:<paragraph_index>"``, e.g. ``"3f2a9c0b11de:4"``.
    """
    return f"{sha256[:12]}:{paragraph_index}"


class Chunk(BaseModel):
    """One normalized paragraph of a stored page, the unit of evidence.

    Attributes:
        chunk_id: ``<sha256[:12]>:<paragraph_index>`` (see :func:`chunk_id_for`).
        url: the URL that was requested.
        final_url: the URL after redirects (the one cited).
        origin: ``scheme://host:port`` of ``final_url``.
        title: the page title ("" when the page has none).
        fetched_at: retrieval time, UTC ISO-8601 string.
        sha256: SHA-256 (hex) of the raw HTML body as stored in the snapshot.
        paragraph_index: 0-based paragraph index in the extracted text.
        text: the normalized paragraph text (``ditto_nb.text.normalize_text``).
    """

    model_config = ConfigDict(frozen=True)

    chunk_id: str = Field(description="Stable id '<sha256[:12]>:<paragraph index>'.")
    url: str = Field(description="Requested URL.")
    final_url: str = Field(description="URL after redirects; the one cited.")
    origin: str = Field(description="scheme://host:port of final_url.")
    title: str = Field(default="", description="Page title.")
    fetched_at: str = Field(description="Retrieval time, UTC ISO-8601.")
    sha256: str = Field(description="SHA-256 hex of the raw body.")
    paragraph_index: int = Field(ge=0, description="0-based paragraph index.")
    text: str = Field(description="Normalized paragraph text.")


def chunks_from_page(page: Mapping[str, Any]) -> list[Chunk]:
    """Split one read page record into chunks, one per non-empty paragraph.

    Args:
        page: a mapping with keys ``url`` (or ``requested_url``), ``final_url``, ``origin``
            (optional; derived from ``final_url`` when absent), ``title``, ``fetched_at``,
            ``sha256`` and ``paragraphs`` (list of normalized strings) — e.g. the output of the
            ``page_read`` tool or a ``ditto_nb.web.Page`` dumped to a dict.

    Returns:
        The chunks in paragraph order; empty paragraphs are skipped (their index is kept).
    """
    final_url = str(page.get("final_url") or page.get("url") or page.get("requested_url"))
    url = str(page.get("url") or page.get("requested_url") or final_url)
    origin = str(page.get("origin") or origin_of(final_url))
    sha = str(page["sha256"])
    out: list[Chunk] = []
    for index, paragraph in enumerate(page.get("paragraphs") or []):
        text = normalize_text(str(paragraph))
        if not text:
            continue
        out.append(
            Chunk(
                chunk_id=chunk_id_for(sha, index),
                url=url,
                final_url=final_url,
                origin=origin,
                title=str(page.get("title") or ""),
                fetched_at=str(page.get("fetched_at") or ""),
                sha256=sha,
                paragraph_index=index,
                text=text,
            )
        )
    return out


def chunks_by_id(chunks: Iterable[Chunk]) -> dict[str, Chunk]:
    """Index chunks by ``chunk_id`` (the first occurrence wins).

    Args:
        chunks: any chunks.

    Returns:
        ``{chunk_id: chunk}``.
    """
    out: dict[str, Chunk] = {}
    for chunk in chunks:
        out.setdefault(chunk.chunk_id, chunk)
    return out


def dedupe_mirrors(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Drop chunks whose normalized text already appeared (mirrored content counts once).

    Args:
        chunks: chunks in priority order.

    Returns:
        The first chunk of each distinct text, in input order.
    """
    seen: set[str] = set()
    out: list[Chunk] = []
    for chunk in chunks:
        if chunk.text in seen:
            continue
        seen.add(chunk.text)
        out.append(chunk)
    return out


__all__ = ["Chunk", "chunk_id_for", "chunks_by_id", "chunks_from_page", "dedupe_mirrors"]
