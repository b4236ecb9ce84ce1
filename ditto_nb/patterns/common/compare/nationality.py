"""The nationality comparison decided by code: ``Are A and B of the same nationality?``, ``Were A
and B both American?`` (pure). Each side's nationality word is read from the verified claims
about it (:func:`nationality`); ``yes``/``no`` follows (:func:`decide_nationality`). Split from
:mod:`~ditto_nb.patterns.common.compare.comparison`, which decides orderings."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ditto_nb.evidence.rank import STOP_WORDS
from ditto_nb.patterns.common.compare.comparison import about
from ditto_nb.patterns.common.demonyms import demonyms, nation
from ditto_nb.patterns.common.records import ClaimJson
from ditto_nb.text import normalize_text


@functools.cache
def demonym_pattern() -> re.Pattern[str]:
    """``is a/was an [≤2 modifiers] <Demonym>``: the modifiers are lower-case words or a
    ``<Demonym>-born`` (``was a French-born American director`` is American: a birthplace is not a
    nationality, so a demonym followed by ``-born`` is never the match). Demonyms:
    :func:`~ditto_nb.patterns.common.demonyms.demonyms`."""
    alternation = "|".join(re.escape(n) for n in sorted(demonyms(), key=len, reverse=True))
    return re.compile(r"\b(?:is|was|are|were)\s+(?:an?|the)\s+(?:(?:[a-z][\w-]*|[A-Z][\w]*-born)\s+){0,2}?("
                      + alternation + r")\b(?!-born)")


def nationality(side: str, other: str, claims: Sequence[ClaimJson]) -> str | None:
    """The nationality word the claims about ``side`` state (``South Korean``), or None.

    Args:
        side: the compared entity as the question writes it.
        other: the other compared entity.
        claims: the verified claims.

    Returns:
        The word as written; None when no claim about ``side`` states one or they disagree.
    """
    found: set[str] = set()
    for claim in (c for c in claims if about(c, side, other)):
        texts = [str(claim.get("claim", ""))] + [str(c.get("quote", "")) for c in claim.get("citations") or []]
        for text in texts:
            match = demonym_pattern().search(normalize_text(text))
            if match is not None:
                found.add(match.group(1))
                break
    return found.pop() if len({nation(f) for f in found}) == 1 else None


def asked_after(text: str, after_both: int, compared: Sequence[str]) -> str:
    """What a ``both`` question asks, up to its question mark: the words after ``both`` and after
    the later compared name ("both American actors", "both A and B American"). Used by
    :func:`decide_nationality` and :func:`~ditto_nb.patterns.common.compare.kinds.asked_kind`.

    Args:
        text: the question (normalized).
        after_both: the position right after the word ``both``.
        compared: its compared entities.

    Returns:
        The phrase, stripped of spaces and commas.
    """
    lowered = text.lower()
    start = max([after_both, *(at + len(side) for side in compared if (at := lowered.rfind(side.lower())) >= 0)])
    return text[start:].split("?")[0].strip(" ,")


def decide_nationality(question: str, compared: Sequence[str], claims: Sequence[ClaimJson]) -> str | None:
    """``yes`` / ``no`` for a nationality comparison its verified claims decide, else None.

    Args:
        question: the question as asked (``… of the same nationality?``, ``… both American?``).
        compared: its two compared entities.
        claims: the verified claims.

    Returns:
        ``yes`` or ``no``; None when the question is not a nationality comparison of two sides
        or a side's nationality is not stated.
    """
    if len(compared) != 2:
        return None
    text = normalize_text(question)
    asked: str | None = None
    nouns: list[str] = []
    if not re.search(r"\bsame (nationality|country)\b", text, re.I):
        both = re.search(r"\bboth\s+([^?]+)", text)
        phrase = asked_after(text, both.start() + len("both"), compared) if both else ""
        prefix = "is a "
        asked_match = demonym_pattern().match(f"{prefix}{phrase}") if phrase else None
        if asked_match is None or asked_match.start(1) != len(prefix):
            return None  # no nationality word right after "both" or after the compared names
        asked = asked_match.group(1)
        nouns = [w for w in re.findall(r"[a-z]{3,}", phrase[asked_match.end(1) - len(prefix):].lower())
                 if w not in STOP_WORDS]
    first, second = compared
    a, b = nationality(first, second, claims), nationality(second, first, claims)
    if a is None or b is None:
        return None
    if asked is None:
        return "yes" if nation(a) == nation(b) else "no"
    if not nation(a) == nation(b) == nation(asked):
        return "no"
    # "both South Korean boy groups": yes only when each side's claims also state the noun
    for side, other in ((first, second), (second, first)):
        said = " ".join(str(c.get("claim", "")) + " " + " ".join(str(q.get("quote", "")) for q in c.get("citations") or [])
                        for c in claims if about(c, side, other)).lower()
        if not all(noun[:5] in said for noun in nouns):
            return None
    return "yes"


__all__ = ["asked_after", "decide_nationality", "demonym_pattern", "nationality"]
