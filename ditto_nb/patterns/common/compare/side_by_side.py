"""Comparisons answered side by side, for any attribute (pure).

A comparison question ("Which band had more members, Letters to Cleo or Screaming Trees?", "Are
both Cypress and Ajuga genera?", "Both X and Y had what role in film making?") is answered from
one verified, supported claim per compared side: the answer call writes a claim for each side
from that side's own chunk (the compared fact: its members, what kind of thing it is, its role),
*then* the answer (Web QA's ``CompareOutput`` schema: the claims come
first in the output grammar, so a small model states both values before it chooses). Code then:

- finds each side's claim (:func:`side_claim`: a claim cited from the side's page, or naming it
  and not the other side, :func:`~ditto_nb.patterns.common.compare.comparison.about`);
- when both sides have one, publishes the derived answer (:func:`compared_answer`) in the form
  the question asks for (:func:`answer_form`): ``Yes``/``No``; the side the answer names, written
  as the question writes it (a choice, ``X or Y``); or a value both sides' quotes state (a shared
  role or kind). The claims of both sides are the answer's evidence, and the
  comparison made is recorded (the rule trace's note: each side with its claim);
- when a side has none, that side is named (:func:`missing_sides`): a problem for the one repair,
  and, after it, the reason the task declines.

One mechanism for every attribute: nothing here knows what is compared. Ordering comparisons whose
quotes state a number or a year per side are still decided by code
(:func:`~ditto_nb.patterns.common.compare.comparison.decide_order`), which runs first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from ditto_nb.evidence.support import answer_in_quotes
from ditto_nb.patterns.common.compare.comparison import about
from ditto_nb.patterns.common.records import ClaimJson
from ditto_nb.patterns.common.retrieval import names_entity, title_key
from ditto_nb.text import normalize_text

YES_NO = frozenset({"yes", "no"})


def is_yes_no(answer: str) -> bool:
    """True when the answer is a bare yes or no (``Yes.``, ``no``)."""
    words = re.findall(r"\w+", answer.lower())
    return bool(words) and words[0] in YES_NO and len(words) <= 2


def side_claim(side: str, other: str, claims: Sequence[ClaimJson]) -> ClaimJson | None:
    """The first verified claim about ``side`` (not about ``other``), or None."""
    return next((c for c in claims if about(c, side, other)), None)


def missing_sides(compared: Sequence[str], claims: Sequence[ClaimJson]) -> list[str]:
    """The compared sides without a verified claim about them, in the question's order.

    Args:
        compared: the two compared entities as the question writes them.
        claims: the verified, supported claims (report JSON).

    Returns:
        ``[]`` when both sides have a claim; ``[]`` too when ``compared`` is not a pair.
    """
    if len(compared) != 2:
        return []
    first, second = compared[0], compared[1]
    return [side for side, other in ((first, second), (second, first)) if side_claim(side, other, claims) is None]


def _names(answer: str, side: str) -> bool:
    """The answer names the side (every word of one in the other, whole words)."""
    a, s = title_key(answer).strip(" ."), title_key(side)
    return bool(a) and bool(s) and (names_entity(a, s, whole_words=True) or names_entity(s, a, whole_words=True))


def named_sides(answer: str, compared: Sequence[str]) -> list[str]:
    """The compared sides the answer names (every word of one in the other, whole words), in order:
    ``["The Wild"]`` for ``Wild``; both for ``Keith Bostic or Jerry Glanville``; none for ``American``."""
    return [side for side in compared if _names(answer, side)]


def _quotes(claim: ClaimJson) -> list[str]:
    return [str(c.get("quote", "")) for c in claim.get("citations") or []] + [str(claim.get("claim", ""))]


AnswerForm = Literal["yes-no", "side", "value"]


def answer_form(question: str) -> AnswerForm:
    """What a comparison asks for: ``yes-no`` (``Are/Were/Did/… ?``), ``side`` (a choice, ``… X or
    Y?``, ``which one``) or ``value`` (``Both X and Y had what role …?``: something they share)."""
    text = normalize_text(question).strip().lower()
    if re.match(r"^(?:are|were|is|was|do|did|does|has|have|had|can|could|will|would)\b", text):
        return "yes-no"
    if re.search(r"\bor\b|\bwhich (?:one|of)\b", text):
        return "side"
    return "value"


def asks_both(question: str) -> bool:
    """Whether a yes/no comparison asks if *both* sides have what it names (``Are A and B both
    film directors?``, ``Were both A and B connected with Disney?``), not a sameness (``same``), an
    order (``than``) or a year threshold (``both formed before 2010``)."""
    text = normalize_text(question).lower()
    return (answer_form(question) == "yes-no" and re.search(r"\bboth\b", text) is not None
            and re.search(r"\b(same|than|before|after)\b", text) is None)


def both_answer(values: Sequence[str]) -> str | None:
    """``Yes`` when each side's judgement (``yes …``) says it has what the question names, else
    None: the task declines (the compare call's ``first``/``second`` of a :func:`asks_both`
    question). A side's ``no`` decides nothing: the 1.5B model wrote "no" for a side whose quotes
    do not say ("Monkey Kingdom: no" for "connected with Disney?", "Roger Donaldson: no" for "in
    the film industry?") as often as for one whose quotes say it is something else (on 7
    comparisons of both halves, 2026-12-05: 3 right "no" answers, 4 wrong); a ``No`` comes from
    code only (:func:`~ditto_nb.patterns.common.compare.kinds.decide_kind`)."""
    verdicts = [(re.match(r"\W*(yes|no)\b", v.lower()) or [None, None])[1] for v in values]
    return "Yes" if verdicts and all(v == "yes" for v in verdicts) else None


def compared_answer(question: str, compared: Sequence[str], answer: str,
                    claims: Sequence[ClaimJson]) -> tuple[str, str] | None:
    """The answer a side-by-side comparison publishes, with the comparison made, or None.

    Args:
        question: the question as asked (:func:`answer_form` says what it asks for).
        compared: the two compared entities as the question writes them.
        answer: the draft's short answer.
        claims: the verified, supported claims (report JSON).

    Returns:
        ``(answer, note)`` when both sides have a verified claim and the draft's answer has the
        form the question asks for: yes/no (``Yes``/``No``); exactly one side named (that side as
        the question writes it); or a value both sides' quotes state, naming neither side.
        ``note`` is ``A: <claim> | B: <claim>``. None otherwise.
    """
    if len(compared) != 2:
        return None
    first, second = compared[0], compared[1]
    mine, theirs = side_claim(first, second, claims), side_claim(second, first, claims)
    if mine is None or theirs is None:
        return None
    note = f"{first}: {mine.get('claim', '')} | {second}: {theirs.get('claim', '')}"
    text = normalize_text(answer).strip().rstrip(".")
    form = answer_form(question)
    if form == "yes-no":
        return (("Yes" if text.lower().startswith("yes") else "No"), note) if is_yes_no(text) else None
    named = named_sides(text, (first, second))
    if form == "side":
        return (named[0], note) if len(named) == 1 else None
    if not named and text and not is_yes_no(text) and all(answer_in_quotes(text, _quotes(c)).ok for c in (mine, theirs)):
        return text, note
    return None


__all__ = ["YES_NO", "AnswerForm", "answer_form", "asks_both", "both_answer", "compared_answer", "is_yes_no",
           "missing_sides", "named_sides", "side_claim"]
