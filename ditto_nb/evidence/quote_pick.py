"""Pick the quote for a statement: the sentence (or two adjacent sentences) of a paragraph that
state it best.

A small model names the chunk a claim rests on reliably, but copies the wrong sentence of it, or
an inexact one, often (measured on a real wiki with the 1.5B model: a claim "she was an
ambassador" quoted with the paragraph's first sentence, which says "actress"); and every copied
character is a generated token (~12 tokens/s on 2 cores). So a Web QA draft names the chunk and
writes the claim, and code picks the quote from the stored paragraph. The picked quote is exact
paragraph text by construction; it is still verified (:func:`ditto_nb.evidence.verify_quote`),
checked by code (:mod:`ditto_nb.evidence.support`) and judged by the grounding review, like any
quote.

Rule: the statement's content words (:func:`ditto_nb.evidence.rank.terms`, without the words of
the page title, which name the page's subject and are in its first sentence anyway) plus the
``focus`` words (the short answer, weight 2) are the targets; each sentence scores the summed
weight of the targets it contains. The best sentence wins (the earlier one on a tie); the best
window of two adjacent sentences replaces it only when it covers strictly more. Sentences come
from :func:`ditto_nb.text.split_sentences` (initials and abbreviations do not end a sentence).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ditto_nb.evidence.rank import terms
from ditto_nb.text import normalize_text, split_sentences

FOCUS_WEIGHT = 2.0
"""Weight of a ``focus`` (answer) word against 1.0 for a statement word."""


def _score(text: str, targets: dict[str, float]) -> float:
    present = set(terms(text))
    return sum(weight for word, weight in targets.items() if word in present)


def pick_quote(paragraph: str, statement: str, *, focus: str = "", title: str = "") -> str:
    """The sentence(s) of ``paragraph`` that best state ``statement`` (see the module docstring).

    Args:
        paragraph: the stored paragraph text (normalized here).
        statement: the claim the quote must carry.
        focus: words that must weigh more (the draft's short answer); "" for none.
        title: the paragraph's page title; its words are not targets.

    Returns:
        One sentence, or two adjacent ones joined by the paragraph's own single space — always an
        exact substring of the normalized paragraph; "" when the paragraph is empty.
    """
    text = normalize_text(paragraph)
    sentences = split_sentences(text)
    if not sentences:
        return ""
    known = set(terms(title))
    targets: dict[str, float] = {w: 1.0 for w in terms(statement) if w not in known}
    for word in terms(focus):
        targets[word] = targets.get(word, 0.0) + FOCUS_WEIGHT
    scores = [_score(s, targets) for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    quote, covered = sentences[best], scores[best]
    for i in range(len(sentences) - 1):
        pair = f"{sentences[i]} {sentences[i + 1]}"
        if pair in text and _score(pair, targets) > covered:
            quote, covered = pair, _score(pair, targets)
    return quote


_NAME = re.compile(r"(?<!^)(?<![.!?] )\b[A-Z][\w'-]*")
_NUMBER = re.compile(r"\d[\d,]*\d|\d")


def _numbers(text: str) -> set[str]:
    """Numbers of a text without thousands separators (``4,000`` → ``4000``)."""
    return {m.group(0).replace(",", "") for m in _NUMBER.finditer(normalize_text(text))}


def _names(statement: str) -> set[str]:
    """Capitalized words of a statement, not counting its first word (lower-cased)."""
    return {m.group(0).lower() for m in _NAME.finditer(normalize_text(statement))}


def best_source(statement: str, cited: str, sources: Mapping[str, tuple[str, str]]) -> str:
    """The source a statement should be quoted from: the cited one, unless it names none of the
    statement's names that another shown source names.

    A small model often swaps labels (``C1`` for ``C2``) while its statement is right. When the
    cited source's title and text contain fewer of the statement's numbers — or as many and fewer
    of its capitalized names — than another source's, the statement is quoted from the source with
    the most (the first on a tie); the published citation always names the source its quote was
    taken from. Numbers come first: a quote without the statement's number fails the support
    check anyway (a research finding "the arena can seat 4,000 people" was cited with the team's
    page, which names the team but no number, while the arena's page, also shown, states "4,000
    capacity").

    Args:
        statement: the claim or finding.
        cited: the id the model cited.
        sources: ``{id: (title, text)}`` of the sources shown to the model, in shown order.

    Returns:
        ``cited``, or the id of the source that names more of the statement.
    """
    names, numbers = _names(statement), _numbers(statement)
    if not (names or numbers) or cited not in sources:
        return cited

    def named(source: str) -> tuple[int, int]:
        title, text = sources[source]
        present = {w.lower() for w in re.findall(r"[\w'-]+", f"{title} {text}")}
        return len(numbers & _numbers(f"{title} {text}")), len(names & present)

    best = max(sources, key=lambda source: (named(source), source == cited))
    return best if named(best) > named(cited) else cited


def quote_for(statement: str, cited: str, sources: Mapping[str, tuple[str, str]], focus: str = "") -> tuple[str, str]:
    """Where to quote a statement from and what: :func:`best_source`, then :func:`pick_quote`.

    Args:
        statement: the claim or finding.
        cited: the source id the model cited.
        sources: ``{id: (title, text)}`` of the sources shown to the model.
        focus: words that weigh more (a short answer); "" for none.

    Returns:
        ``(source id, quote)``; the quote is "" when the id is unknown.
    """
    source = best_source(statement, cited, sources)
    if source not in sources:
        return source, ""
    title, text = sources[source]
    return source, pick_quote(text, statement, focus=focus, title=title)


__all__ = ["FOCUS_WEIGHT", "best_source", "pick_quote", "quote_for"]
