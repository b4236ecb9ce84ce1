"""ditto_nb.evidence: chunks of stored pages, exact-quote location/verification, cross-check.

Public API (stable; reused by ``web_qa`` and ``deep_research``):

- :class:`Chunk`, :func:`chunk_id_for`, :func:`chunks_from_page`, :func:`chunks_by_id`,
  :func:`dedupe_mirrors` (``chunks.py``)
- :class:`QuoteLocation`, :class:`QuoteCheck`, :func:`clean_quote`, :func:`locate_quote`,
  :func:`verify_quote`, :func:`verify_quotes` (``quotes.py``)
- :class:`CrossCheck`, :func:`crosscheck`, :class:`Conflict`, :func:`verify_conflict`
  (``crosscheck.py``)
- :func:`bm25_rank`, :class:`Ranked`, :func:`excerpt` (``rank.py``): lexical ranking of chunks and
  sentence-bounded excerpts for short small-model prompts
"""

from ditto_nb.evidence.chunks import Chunk, chunk_id_for, chunks_by_id, chunks_from_page, dedupe_mirrors
from ditto_nb.evidence.crosscheck import Conflict, CrossCheck, crosscheck, verify_conflict
from ditto_nb.evidence.rank import Ranked, bm25_rank, excerpt
from ditto_nb.evidence.quotes import (
    QuoteCheck,
    QuoteLocation,
    clean_quote,
    locate_quote,
    verify_quote,
    verify_quotes,
)

__all__ = [
    "Chunk",
    "Conflict",
    "CrossCheck",
    "QuoteCheck",
    "QuoteLocation",
    "Ranked",
    "bm25_rank",
    "excerpt",
    "chunk_id_for",
    "chunks_by_id",
    "chunks_from_page",
    "clean_quote",
    "crosscheck",
    "dedupe_mirrors",
    "locate_quote",
    "verify_conflict",
    "verify_quote",
    "verify_quotes",
]
