"""Quote location and verification against stored, normalized paragraph text.

A quote is valid only when, after :func:`ditto_nb.text.normalize_text` on both sides, it is a
non-empty exact contiguous substring of one paragraph. An ellipsis (``...`` or ``…``) inside a
quote is matched literally, so it never bridges omitted text: a quote ``"is ... safe"`` made from
``"is not safe"`` is rejected. Leading or trailing ellipses and surrounding quotation marks are
trimmed first (they bridge nothing). Offsets are character offsets ``[start, end)`` into the
normalized paragraph text, never HTML source positions.

THE rule, used by both patterns (``verify_quote``; issue 11 made it one):

1. normalize, trim edge ellipses and quotation marks (:func:`clean_quote`);
2. the quote must be found in the chunk the citation *names* — never re-attributed to another
   chunk that happens to contain it;
3. if not found, and only then, ONE run of trailing ``.``, ``,``, ``;`` or ``:`` is dropped and
   the rest must be found exactly (a sentence cut from a longer one often gains a final period);
   nothing else is forgiven, a paraphrase never passes;
4. the recorded quote is the matched text, so ``paragraph[start:end] == quote`` always holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ditto_nb.evidence.chunks import Chunk
from ditto_nb.text import normalize_text

_TRAILING_PUNCTUATION = ".,;: "
"""Forgiven once at the end of a quote that is not found as written (rule 3)."""

_EDGE_MARKS = ("...", "\u2026", '"', "\u201c", "\u201d", "'", "\u2018", "\u2019")


@dataclass(frozen=True)
class QuoteLocation:
    """Where a quote sits in the normalized paragraph list.

    Attributes:
        paragraph_index: 0-based index of the paragraph holding the quote.
        start: first character offset (inclusive) in the normalized paragraph text.
        end: character offset after the quote (exclusive).
        quote: the normalized quote text, equal to ``paragraph[start:end]``.
    """

    paragraph_index: int
    start: int
    end: int
    quote: str


@dataclass(frozen=True)
class QuoteCheck:
    """The verification of one quote against one cited chunk.

    Attributes:
        chunk_id: the cited chunk id as given.
        quote: the quote as given.
        ok: True when the quote is an exact substring of the cited, allowed chunk.
        reason: ``"ok"``, ``"empty-quote"``, ``"unknown-chunk"`` (not a stored, selected
            chunk — e.g. a search snippet or an unread URL) or ``"not-found"``.
        location: the location when ``ok``.
        chunk: the cited chunk when it is known.
    """

    chunk_id: str
    quote: str
    ok: bool
    reason: str
    location: QuoteLocation | None = None
    chunk: Chunk | None = None


def clean_quote(quote: str) -> str:
    """Normalize a quote and trim edge ellipses and quotation marks.

    Args:
        quote: the quote as the model wrote it.

    Returns:
        The normalized quote (possibly empty). Inner ellipses are kept as literal text.
    """
    text = normalize_text(quote)
    changed = True
    while changed and text:
        changed = False
        for mark in _EDGE_MARKS:
            if text.startswith(mark):
                text, changed = text[len(mark):].strip(), True
            if text.endswith(mark):
                text, changed = text[: -len(mark)].strip(), True
    return text


def locate_quote(quote: str, paragraphs: Sequence[str]) -> QuoteLocation | None:
    """Find a quote as an exact contiguous substring of one normalized paragraph.

    Args:
        quote: the quote (normalized here; edge ellipses/quotation marks trimmed).
        paragraphs: paragraph texts (normalized here too, so raw or stored text both work).

    Returns:
        The first location found (lowest paragraph index, then lowest offset), or None when
        the quote is empty or appears in no paragraph.
    """
    needle = clean_quote(quote)
    if not needle:
        return None
    for index, paragraph in enumerate(paragraphs):
        text = normalize_text(paragraph)
        start = text.find(needle)
        if start >= 0:
            return QuoteLocation(paragraph_index=index, start=start, end=start + len(needle), quote=needle)
    return None


def verify_quote(chunk_id: str, quote: str, chunks: Mapping[str, Chunk]) -> QuoteCheck:
    """Verify one quote against the cited chunk only (THE rule: see the module docstring).

    Args:
        chunk_id: the cited chunk id.
        quote: the quote.
        chunks: the chunks a quote may cite (stored and selected), by id.

    Returns:
        A :class:`QuoteCheck`; ``location.paragraph_index`` is the chunk's paragraph index.
    """
    chunk = chunks.get(chunk_id)
    if not any(ch.isalnum() for ch in clean_quote(quote)):
        return QuoteCheck(chunk_id=chunk_id, quote=quote, ok=False, reason="empty-quote", chunk=chunk)
    if chunk is None:
        return QuoteCheck(chunk_id=chunk_id, quote=quote, ok=False, reason="unknown-chunk")
    found = locate_quote(quote, [chunk.text])
    if found is None:
        shortened = clean_quote(quote).rstrip(_TRAILING_PUNCTUATION).rstrip()
        if shortened and any(ch.isalnum() for ch in shortened):
            found = locate_quote(shortened, [chunk.text])
    if found is None:
        return QuoteCheck(chunk_id=chunk_id, quote=quote, ok=False, reason="not-found", chunk=chunk)
    location = QuoteLocation(
        paragraph_index=chunk.paragraph_index, start=found.start, end=found.end, quote=found.quote
    )
    return QuoteCheck(chunk_id=chunk_id, quote=quote, ok=True, reason="ok", location=location, chunk=chunk)


def verify_quotes(citations: Sequence[tuple[str, str]], chunks: Mapping[str, Chunk]) -> list[QuoteCheck]:
    """Verify many ``(chunk_id, quote)`` citations.

    Args:
        citations: ``(chunk_id, quote)`` pairs.
        chunks: the chunks that may be cited, by id.

    Returns:
        One :class:`QuoteCheck` per citation, in order.
    """
    return [verify_quote(chunk_id, quote, chunks) for chunk_id, quote in citations]


__all__ = ["QuoteCheck", "QuoteLocation", "clean_quote", "locate_quote", "verify_quote", "verify_quotes"]
