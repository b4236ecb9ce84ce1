"""The name a question's years belong to, read from quotes or chunks (pure, no model call).

"… formerly known as what from 1988 to 1996?" answered "Eastern College Athletic
Conference-North" from the quote "… known as the Eastern College Athletic Conference-North from
1979 to 1988 and the North Atlantic Conference from 1988 to 1996" (measured on a real wiki): the
years of the question qualify another name than the answer. :func:`tied_elsewhere` reads the
answer's quotes, :func:`tied_in` any texts (the chunks shown to the answer call), :func:`tie`
also returns the sentence, for :func:`~ditto_nb.patterns.web_qa.narrow.renamed_answer`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ditto_nb.evidence.rank import STOP_WORDS
from ditto_nb.patterns.common.compare.comparison import YEAR
from ditto_nb.patterns.common.records import ClaimJson
from ditto_nb.text import normalize_text, split_sentences

_NAME_SPAN = re.compile(r"(?<![\w'])[A-Z][\w'-]*(?:\s+(?:of\s+(?:the\s+)?|the\s+)?[A-Z][\w'-]*)*")


def tied_elsewhere(question: str, answer: str, claims: Sequence[ClaimJson]) -> str | None:
    """The name a quote ties the question's years to, when that is not the answer.

    "… formerly known as what from 1988 to 1996?" answered "Eastern College Athletic
    Conference-North" from the quote "… known as the Eastern College Athletic Conference-North from
    1979 to 1988 and the North Atlantic Conference from 1988 to 1996" (measured on a real wiki):
    in a quote sentence holding the answer and every year of the question, a capitalized name
    (not the answer, not a name of the question) standing between the answer and the shortest
    span holding those years (the nearest of equal ones) is what the years qualify.

    Args:
        question: the question as asked.
        answer: the draft's short answer.
        claims: the verified claims (report JSON: ``citations`` with ``quote``).

    Returns:
        The name between (``North Atlantic Conference``), or None when the question states no
        year, no quote sentence holds the answer and its years, or nothing stands between.
    """
    return tied_in(question, answer, [str(c.get("quote", "")) for claim in claims for c in claim.get("citations") or []])


def tied_in(question: str, answer: str, texts: Sequence[str]) -> str | None:
    """:func:`tied_elsewhere` over any texts: the name of :func:`tie`, or None."""
    found = tie(question, answer, texts)
    return found[0] if found else None


def tie(question: str, answer: str, texts: Sequence[str]) -> tuple[str, int, str] | None:
    """Where a text ties the question's years to another name than the answer.

    :func:`tied_elsewhere`'s rule over any texts (quotes, or the chunks shown to the answer call).

    When the question asks what something was known as (called, named, renamed, titled), a
    sentence that refers back to the answer rather than naming it counts as holding it: one that
    opens with a pronoun or "The <noun>" ("The conference was known as … the North Atlantic
    Conference from 1988 to 1996.") after an earlier sentence of the same text that names the
    answer ("The America East Conference is a collegiate athletic conference …"). There the name
    nearest before the years (else the first after them) is what they qualify. Other questions
    are left out: in "He coached the Vermont Catamounts from 1988 to 1996." the years qualify what
    the answer did, not another name for it.

    Args:
        question: the question as asked.
        answer: the draft's short answer.
        texts: quotes or chunk texts.

    Returns:
        ``(name, index, sentence)``: the name the question's years qualify, the index of the text
        and its sentence (normalized, :func:`ditto_nb.text.normalize_text`) that holds (or refers
        back to) the answer and ties them; or None.
    """
    years = [m.group(1) for m in YEAR.finditer(normalize_text(question))]
    key = normalize_text(answer).strip(" .").lower()
    if not years or len(key) < 2:
        return None
    asked = normalize_text(question).lower()
    renamed = asks_name(question)

    def named(part: str) -> list[str]:
        return [m.group(0) for m in _NAME_SPAN.finditer(part) if m.group(0).lower() not in STOP_WORDS
                and m.group(0).lower() not in asked and m.group(0).lower() not in key]

    for index, text in enumerate(texts):
        named_before = False
        for sentence in split_sentences(normalize_text(text)):
            at = sentence.lower().find(key)
            refers = at < 0 and renamed and named_before and _REFERS_BACK.match(sentence) is not None
            named_before = named_before or at >= 0
            if (at < 0 and not refers) or not all(y in sentence for y in years):
                continue
            end = at + len(key) if at >= 0 else 0
            starts = {m.start() for y in years for m in re.finditer(re.escape(y), sentence)}
            spans = [_year_window(sentence, years, start) for start in starts]
            windows = sorted({w for w in spans if w is not None},
                             key=lambda w: (w[1] - w[0], min(abs(w[0] - end), abs(at - w[1]))))
            if not windows:
                continue
            if refers:
                before, after = named(sentence[:windows[0][0]]), named(sentence[windows[0][1]:])
                if before or after:
                    return (before[-1] if before else after[0]), index, sentence
                continue
            lo, hi = (end, windows[0][0]) if windows[0][0] >= end else (windows[0][1], at)
            between = named(sentence[lo:hi])
            if between:
                return (between[-1] if lo == end else between[0]), index, sentence
    return None


_REFERS_BACK = re.compile(r"(?:It|He|She|They|Its|His|Her|Their|(?:The|This)\s+[a-z][\w-]*)\b")
"""A sentence opening that refers back to the text's subject instead of naming it."""
_ASKS_NAME = re.compile(r"\b(?:known as|called|named|renamed|titled)\b(?!\s+(?:after|for|by|on|in|to)\b)")
"""A question asking for a name something had (in the years it states); not "named after", "called for"."""


def asks_name(question: str) -> bool:
    """True when the question asks what something was known as (called, named, renamed, titled)."""
    return _ASKS_NAME.search(normalize_text(question).lower()) is not None


def _year_window(sentence: str, years: Sequence[str], start: int) -> tuple[int, int] | None:
    """The shortest span from ``start`` (where a year begins) holding every year, or None."""
    ends = []
    for y in years:
        found = sentence.find(y, start)
        if found < 0:
            return None
        ends.append(found + len(y))
    return start, max(ends)


__all__ = ["asks_name", "tie", "tied_elsewhere", "tied_in"]
