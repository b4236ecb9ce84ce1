"""Code decides an ordering comparison from the verified claims (pure).

A question that offers a choice between two entities and asks which comes first or has more
(``Who was born first, A or B?``, ``Which film was released first, A or B?``, ``Which arena has
more seats, A or B?``) is answered by comparing one value per side, read by code from the
answer's *verified* claims — the small model's own choice is often the wrong side even when its
claims state both years (measured on a real wiki, issue 13). Yes/no comparisons (``both``,
``same nationality``) are left to the model.

Rules:

- **The order** (:func:`order_of`): ``earlier`` (first, earlier, older, oldest, sooner),
  ``later`` (later, younger, newer, more recent, last), ``more`` (more, larger, bigger, higher,
  longer, taller, greater) or ``fewer`` (fewer, less, smaller, shorter, lower); the time words are
  looked for first, so ``more recently`` is ``later``.
- **One side's value** (:func:`side_value`): from the claims about that side — a claim whose
  citation comes from the side's page (title) or whose text names it and not the other side. For
  ``earlier``/``later`` the first year (1000–2099) the claim text states, else its quote; for
  ``more``/``fewer`` the only number (not a year) the claim texts state. Two different values for
  one side, or none, leave the comparison undecided.
- **The decision** (:func:`decide_order`): the side with the smaller (``earlier``, ``fewer``) or
  larger value, written as the question writes it; equal values decide nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from ditto_nb.patterns.common.retrieval import names_entity, title_key
from ditto_nb.patterns.web_qa.stage_models import ClaimJson
from ditto_nb.text import normalize_text

Order = Literal["earlier", "later", "more", "fewer"]

_CUES: tuple[tuple[Order, re.Pattern[str]], ...] = (
    ("later", re.compile(r"\b(later|latest|younger|youngest|newer|newest|more recent(?:ly)?|most recent(?:ly)?|last)\b")),
    ("earlier", re.compile(r"\b(first|earlier|earliest|older|oldest|sooner)\b")),
    ("more", re.compile(r"\b(more|most|larger|largest|bigger|biggest|higher|highest|longer|longest|taller|tallest|"
                        r"greater|greatest|heavier)\b")),
    ("fewer", re.compile(r"\b(fewer|fewest|less|least|smaller|smallest|shorter|shortest|lower|lowest|lighter)\b")),
)
_YEAR = re.compile(r"(?<![\d,.])(1\d{3}|20\d{2})(?![\d,])")
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?![\d,])|(?<![\w.,])\d+(?:\.\d+)?(?![\w,])")


def order_of(question: str) -> Order | None:
    """The order an ordering comparison asks for, or None (yes/no questions included).

    Args:
        question: the question as asked.

    Returns:
        ``earlier``, ``later``, ``more`` or ``fewer``; None when no cue is present or the question
        is a yes/no question (``Are/Were/Is/Did …``).
    """
    text = normalize_text(question).lower()
    if re.match(r"^(are|were|is|was|do|did|does|has|have|had|can|could)\b", text):
        return None
    for order, cue in _CUES:
        if cue.search(text):
            return order
    return None


def _about(claim: ClaimJson, side: str, other: str) -> bool:
    """Whether ``claim`` is about ``side``: a citation from its page, or its text names it, not ``other``."""
    titles = [title_key(str(c.get("title", ""))) for c in claim.get("citations") or []]
    if any(t and (t == title_key(side) or (names_entity(t, side) and not names_entity(t, other))) for t in titles):
        return True
    text = str(claim.get("claim", ""))
    return names_entity(text, side) and not names_entity(text, other)


def _numbers(text: str) -> list[float]:
    """Numbers of ``text`` that are not years (``9,071`` → 9071.0)."""
    out = []
    for match in _NUMBER.finditer(text):
        token = match.group(0)
        if "," not in token and _YEAR.fullmatch(token):
            continue
        out.append(float(token.replace(",", "")))
    return out


def side_value(order: Order, side: str, other: str, claims: Sequence[ClaimJson]) -> float | None:
    """The value one side is compared by, read from the claims about it, or None.

    Args:
        order: from :func:`order_of`.
        side: the compared entity as the question writes it.
        other: the other compared entity (a claim naming both is about neither).
        claims: the verified claims (report JSON: ``claim`` and ``citations`` with ``quote``, ``title``).

    Returns:
        A year (``earlier``/``later``) or a number (``more``/``fewer``); None when the claims
        about ``side`` state none or disagree.
    """
    about = [c for c in claims if _about(c, side, other)]
    values: set[float] = set()
    for claim in about:
        text = normalize_text(str(claim.get("claim", "")))
        if order in ("earlier", "later"):
            found = _YEAR.search(text)
            if found is None:
                quotes = [normalize_text(str(c.get("quote", ""))) for c in claim.get("citations") or []]
                found = next((m for m in (_YEAR.search(q) for q in quotes) if m), None)
            if found is not None:
                values.add(float(found.group(1)))
        else:
            values.update(_numbers(text))
    return values.pop() if len(values) == 1 else None


def decide_order(question: str, compared: Sequence[str], claims: Sequence[ClaimJson]) -> str | None:
    """The side an ordering comparison's verified claims decide for, or None.

    Args:
        question: the question as asked.
        compared: its two compared entities (:func:`~ditto_nb.patterns.common.retrieval.comparison_entities`).
        claims: the verified claims.

    Returns:
        The winning entity as the question writes it; None when the question is not an ordering
        comparison of two sides, a side has no single value, or the values are equal.
    """
    order = order_of(question)
    if order is None or len(compared) != 2:
        return None
    first, second = compared
    a, b = side_value(order, first, second, claims), side_value(order, second, first, claims)
    if a is None or b is None or a == b:
        return None
    smaller_wins = order in ("earlier", "fewer")
    return first if (a < b) == smaller_wins else second


__all__ = ["Order", "decide_order", "order_of", "side_value"]
