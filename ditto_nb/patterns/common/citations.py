"""Report citations of verified quotes (pure): what both the answer checks and the code-made
side claims of a comparison publish as a claim's evidence.

:func:`citation_json` turns one ok ``verify_quotes`` result into a report citation;
:func:`chunk_citation` verifies a quote against one in-memory chunk record
(:func:`ditto_nb.evidence.verify_quote`) and cites it.
"""

from __future__ import annotations

from typing import cast

from ditto_nb.evidence import Chunk, verify_quote
from ditto_nb.patterns.common.records import ChunkRecord, CitationJson, QuoteEvidence, QuoteResult
from ditto_nb.patterns.common.records import QuoteLocation as LocationJson


def citation_json(result: QuoteResult | QuoteEvidence) -> CitationJson:
    """A report citation from one ``verify_quotes`` tool result (which must be ok)."""
    location = cast(LocationJson, result["location"])
    return cast(CitationJson, {
        "chunk_id": result["chunk_id"],
        "quote": location["quote"],
        "final_url": result["final_url"],
        "origin": result["origin"],
        "title": result["title"] or "",
        "fetched_at": result["fetched_at"],
        "sha256": result["sha256"],
        "paragraph_index": location["paragraph_index"],
        "start": location["start"],
        "end": location["end"],
    })


def chunk_citation(record: ChunkRecord, quote: str) -> CitationJson | None:
    """A report citation of ``quote`` in one chunk record, verified against that chunk only
    (:func:`ditto_nb.evidence.verify_quote`); None when it is not exact text of the chunk."""
    chunk = Chunk.model_validate(record)
    check = verify_quote(chunk.chunk_id, quote, {chunk.chunk_id: chunk})
    if not check.ok or check.location is None:
        return None
    return citation_json({
        "chunk_id": chunk.chunk_id, "quote": quote, "ok": True, "reason": "",
        "location": cast(LocationJson, check.location.__dict__), "origin": chunk.origin,
        "final_url": chunk.final_url, "title": chunk.title, "fetched_at": chunk.fetched_at,
        "sha256": chunk.sha256, "paragraph_text": chunk.text,
    })


__all__ = ["chunk_citation", "citation_json"]
