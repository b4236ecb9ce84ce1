"""Lexical ranking of evidence chunks (BM25) and short excerpts for small-model prompts.

Small local models read prompts slowly (about 13 prompt tokens/s for the 1.5B model on a busy
2-core machine, ``docs/LOCAL_MODEL.md``), so only the chunks that share the most words with the
question and its queries are shown to the model, each as a short excerpt. Ranking is Okapi BM25
(Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009) with the
usual ``k1 = 1.2``, ``b = 0.75`` over lower-cased word tokens of at least 3 characters, minus a
short stop-word list; the corpus statistics are those of the candidate chunks themselves.

Excerpts only shorten what the model *sees*: a quote is always verified against the full stored
paragraph (``ditto_nb.evidence.quotes``), never against the excerpt.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ditto_nb.text import normalize_text, split_sentences

K1 = 1.2
"""BM25 term-frequency saturation."""
B = 0.75
"""BM25 length normalization."""

_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s")
STOP_WORDS = frozenset(
    "the and for with that this which what who whom whose where when how why are was were is its "
    "into from than then there their they them does did has have had not but all any can".split()
)
"""Words that never count for ranking (they appear in nearly every question)."""


def terms(text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` used for ranking (3+ characters, no stop words).

    Args:
        text: any text.

    Returns:
        The tokens in order (with repeats).
    """
    return [w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in STOP_WORDS]


@dataclass(frozen=True)
class Ranked:
    """One ranked text.

    Attributes:
        index: position of the text in the input sequence.
        score: BM25 score (0.0 when no query term occurs).
        matched: the query terms found in the text (sorted).
    """

    index: int
    score: float
    matched: tuple[str, ...]


def bm25_rank(query: str, texts: Sequence[str]) -> list[Ranked]:
    """Rank texts against a query with BM25; ties keep input order.

    Args:
        query: the query text (e.g. the question plus its search queries).
        texts: the candidate texts (e.g. chunk paragraphs).

    Returns:
        One :class:`Ranked` per text, best first.
    """
    query_terms = set(terms(query))
    docs = [Counter(terms(text)) for text in texts]
    if not docs:
        return []
    avg_len = sum(sum(d.values()) for d in docs) / len(docs) or 1.0
    df = Counter(term for d in docs for term in set(d) if term in query_terms)
    n = len(docs)
    ranked = []
    for index, doc in enumerate(docs):
        length = sum(doc.values())
        score = 0.0
        for term in query_terms:
            tf = doc.get(term, 0)
            if not tf:
                continue
            idf = math.log(1.0 + (n - df[term] + 0.5) / (df[term] + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg_len))
        ranked.append(Ranked(index=index, score=score, matched=tuple(sorted(query_terms & set(doc)))))
    ranked.sort(key=lambda r: (-r.score, r.index))
    return ranked


def excerpt(text: str, max_chars: int) -> str:
    """A prefix of ``text`` of at most ``max_chars`` characters, cut at a sentence end if possible.

    Cutting at a sentence boundary keeps every shown sentence whole, so a quote copied from the
    excerpt is still an exact substring of the full paragraph. Without a sentence end inside the
    limit, the cut is at the last space (or hard at ``max_chars``) and ``" …"`` is appended (the
    marker is outside the paragraph text; a trailing ellipsis in a quote is trimmed before
    verification).

    Args:
        text: the paragraph text.
        max_chars: the most characters to keep (characters, not tokens).

    Returns:
        ``text`` normalized and unchanged when short enough, else the shortened excerpt.
    """
    text = normalize_text(text)
    if len(text) <= max_chars:
        return text
    head = text[: max_chars + 1]
    ends = [m.start() for m in _SENTENCE_END.finditer(head)]
    if ends and ends[-1] >= max_chars // 3:
        return text[: ends[-1]].rstrip() + " …"
    space = head.rfind(" ", 0, max_chars)
    return text[: space if space > 0 else max_chars].rstrip() + " …"


def focused_excerpt(text: str, query: str, max_chars: int) -> str:
    """Whole sentences of ``text`` that best match ``query``, within ``max_chars`` characters.

    The first sentence (it names the paragraph's subject) is kept, then the other sentences by
    BM25 score against ``query`` (matching ones only) while they fit, then the following sentences
    in order while they fit; the chosen sentences keep their order, and a gap between two of them
    is marked ``" … "`` (outside the paragraph text). Every shown sentence is whole, so a quote
    copied from one sentence is exact paragraph text.

    Args:
        text: the paragraph text.
        query: what the excerpt is for (e.g. the question).
        max_chars: the most characters to keep (characters, not tokens).

    Returns:
        ``text`` normalized when short enough; else the excerpt (:func:`excerpt` when even the
        first sentence does not fit).
    """
    text = normalize_text(text)
    if len(text) <= max_chars:
        return text
    sentences = split_sentences(text, ".!?;")
    if not sentences or len(sentences[0]) > max_chars:
        return excerpt(text, max_chars)
    chosen = {0}
    used = len(sentences[0])

    def take(index: int) -> None:
        nonlocal used
        if index not in chosen and used + 3 + len(sentences[index]) <= max_chars:
            chosen.add(index)
            used += 3 + len(sentences[index])

    for ranked in bm25_rank(query, sentences):
        if ranked.score > 0:
            take(ranked.index)
    for index in range(1, len(sentences)):
        take(index)
    parts: list[str] = []
    for index in sorted(chosen):
        if parts:
            parts.append(" " if index - 1 in chosen else " … ")
        parts.append(sentences[index])
    tail = "" if max(chosen) == len(sentences) - 1 else " …"
    return "".join(parts) + tail


__all__ = ["B", "K1", "STOP_WORDS", "Ranked", "bm25_rank", "excerpt", "focused_excerpt", "terms"]
