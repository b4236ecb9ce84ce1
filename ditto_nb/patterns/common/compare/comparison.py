"""Code decides an ordering comparison from the verified claims (pure).

A question that offers a choice between two entities and asks which comes first or has more
(``Who was born first, A or B?``, ``Which film was released first, A or B?``, ``Which arena has
more seats, A or B?``) is answered by comparing one value per side, read by code from the
answer's *verified* claims — the small model's own choice is often the wrong side even when its
claims state both years (measured on a real wiki, issue 13). A yes/no comparison of
nationality (``Are A and B of the same nationality?``, ``Were A and B both American?``) is decided
the same way from each side's nationality word; other yes/no comparisons are left to the model.

Rules:

- **The order** (:func:`order_of`): ``earlier`` (first, earlier, older, oldest, sooner),
  ``later`` (later, younger, newer, more recent, last), ``more`` (more, larger, bigger, higher,
  longer, taller, greater) or ``fewer`` (fewer, less, smaller, shorter, lower); the time words are
  looked for first, so ``more recently`` is ``later``.
- **One side's value** (:func:`side_value`): from the claims about that side — a claim whose
  citation comes from the side's page (title) or whose text names it and not the other side. For
  ``earlier``/``later`` the first year (1000–2099) the claim text states, else its quote (for a
  question about deaths, the year after "died" or the later year of a "(born – died)" range), ordered
  within the year by the day and month written before it in either (:func:`dated_year`: "June
  20, 1941", "20 June 1941"); for ``more``/``fewer`` the only number (not a year; digits or
  written out, "three acts") the claim texts state, or, when the question names the counted noun
  ("more species", :func:`counted_unit`) and both sides state a number right before it, that
  number ("an opera in three acts", not its catalogue number "WWV 111"). Two different values
  for one side, or none, leave the comparison undecided. ``How many more …`` asks a difference
  and orders no side.
- **The decision** (:func:`decide_order`): the side with the smaller (``earlier``, ``fewer``) or
  larger value, written as the question writes it; equal values decide nothing, and neither do
  two dates of one year when a side states no day.
- **Nationality** (:mod:`~ditto_nb.patterns.common.compare.nationality`): the nationality word of a
  side is the demonym (countryinfo's list of 226, plus English/Scottish/Welsh compared as British
  and Korean as South Korean) that a claim about it (its text, else its quote) puts after
  ``is a``/``was an`` (up to two lower-case words between: ``was an award-winning American``).
  Both sides' words equal → ``yes``; different → ``no``; a ``both <Demonym> …`` (or ``both A and B
  <Demonym> …``) question compares
  each side with the asked word, and says ``yes`` only when each side's claims also state the
  words after it (``both South Korean boy groups``: "group" too). One side without a word decides
  nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Literal

from ditto_nb.evidence.rank import STOP_WORDS
from ditto_nb.evidence.support import stem
from ditto_nb.patterns.common.records import ClaimJson
from ditto_nb.patterns.common.retrieval import names_entity, title_key
from ditto_nb.text import normalize_text, with_digits

Order = Literal["earlier", "later", "more", "fewer"]

_CUES: tuple[tuple[Order, re.Pattern[str]], ...] = (
    ("later", re.compile(r"\b(later|latest|younger|youngest|newer|newest|more recent(?:ly)?|most recent(?:ly)?|last)\b")),
    ("earlier", re.compile(r"\b(first|earlier|earliest|older|oldest|sooner)\b")),
    ("more", re.compile(r"\b(more|most|larger|largest|bigger|biggest|higher|highest|longer|longest|taller|tallest|"
                        r"greater|greatest|heavier)\b")),
    ("fewer", re.compile(r"\b(fewer|fewest|less|least|smaller|smallest|shorter|shortest|lower|lowest|lighter)\b")),
)
YEAR = re.compile(r"(?<!\d)(?<!\d[,.])(1\d{3}|20\d{2})(?!\d|[,.]\d)")
NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?!\d|,\d)|(?<![\w.])(?<!\d,)\d+(?:\.\d+)?(?!\w|,\d)")


def order_of(question: str) -> Order | None:
    """The order an ordering comparison asks for, or None (yes/no questions included).

    Args:
        question: the question as asked.

    Returns:
        ``earlier``, ``later``, ``more`` or ``fewer``; None when no cue is present or the question
        is a yes/no question (``Are/Were/Is/Did …``) or asks ``how many``/``how much`` (a difference).
    """
    text = normalize_text(question).lower()
    if re.match(r"^(are|were|is|was|do|did|does|has|have|had|can|could)\b", text):
        return None
    if re.match(r"^how (many|much)\b", text):
        return None  # "How many more titles did A win than B?" asks a difference, not a side
    # "the first Russian composer to …" describes a record holder, it orders nothing ("the first to
    # be founded" and "born first" do)
    text = re.sub(r"\bthe (first|last)\s+(?!to\b|one\b)\w+", " ", text)
    for order, cue in _CUES:
        if cue.search(text):
            return order
    return None


def yes_no_order(question: str) -> Order | None:
    """The order a yes/no comparison asks about, or None.

    ``Is A taller than B?`` → ``more`` (the comparative right before ``than``); ``Was A founded
    before B?`` → ``earlier`` (``before``/``after``). None for a question that is not yes/no or
    names no order.
    """
    text = normalize_text(question).lower()
    if not re.match(r"^(are|were|is|was|do|did|does|has|have|had|can|could)\b", text):
        return None
    than = re.search(r"\b(\w+)\s+than\b", text)
    for order, cue in _CUES:
        if than and cue.fullmatch(than.group(1)):
            return order
    moment = re.search(r"\b(before|after)\b", text)
    return None if moment is None else ("earlier" if moment.group(1) == "before" else "later")


def about(claim: ClaimJson, side: str, other: str) -> bool:
    """Whether ``claim`` is about ``side``: a citation from its page (title words as whole words),
    or its text names it (whole words), not ``other``."""
    titles = [title_key(str(c.get("title", ""))) for c in claim.get("citations") or []]
    if any(t and (t == title_key(side) or (names_entity(t, side, whole_words=True)
                                           and not names_entity(t, other, whole_words=True))) for t in titles):
        return True
    text = str(claim.get("claim", ""))
    return names_entity(text, side, whole_words=True) and not names_entity(text, other, whole_words=True)


def counted_unit(question: str) -> list[str]:
    """The comparison keys (:func:`~ditto_nb.evidence.support.stem`) of the noun a ``more``/``fewer``
    question counts: up to two content words right after its cue, before punctuation, ``than``,
    ``or`` or a preposition ("Which genus has more species, A or B?" → ``["speci"]``; "more
    constant members" → both words; "more residents at the 2010 census" → ``["resid"]``); ``[]``
    when the cue is followed by no noun ("Which is larger: A or B").

    Args:
        question: the question as asked.

    Returns:
        Comparison keys, in order.
    """
    text = normalize_text(question).lower()
    for order, cue in _CUES:
        if order not in ("more", "fewer"):
            continue
        match = cue.search(text)
        if match is not None:
            phrase = re.split(r"[,?:;]|\b(?:than|or|between|in|of|on|at|by|for|from|to|with)\b",
                              text[match.end():])[0]
            return [stem(w) for w in re.findall(r"[a-z]{3,}", phrase) if w not in STOP_WORDS][:2]
    return []


def _counted(text: str, unit: Sequence[str]) -> list[float]:
    """The numbers of ``text`` whose next word is a word of ``unit`` ("about 70 species" → 70;
    "WWV 111" is no count of acts, and "plans to open sixty new stores" no count of stores)."""
    digits = with_digits(text)
    out = []
    for match in NUMBER.finditer(digits):
        after = re.match(r"\s+([A-Za-z]+)", digits[match.end():])
        if after is not None and stem(after.group(1).lower()) in unit:
            out.append(float(match.group(0).replace(",", "")))
    return out


def numbers(text: str) -> list[float]:
    """Numbers of ``text`` that are not years, digits or written out (``9,071`` → 9071.0,
    ``three acts`` → 3.0: :func:`~ditto_nb.text.with_digits`)."""
    out = []
    for match in NUMBER.finditer(with_digits(text)):
        token = match.group(0)
        if "," not in token and YEAR.fullmatch(token):
            continue
        out.append(float(token.replace(",", "")))
    return out


def _death_year(text: str) -> re.Match[str] | None:
    """The year a text gives for a death: the first after "died", else the later year of a
    lead's range ("(1 July 1909 – 30 May 1994)"), else its first year."""
    died = re.search(r"\bdied\b", text)
    if died is not None and (after := YEAR.search(text, died.end())) is not None:
        return after
    years = list(YEAR.finditer(text))
    for first, second in zip(years, years[1:]):
        between = text[first.end():second.start()]
        if re.search(r"[–—-]", between) and len(between) <= 25:
            return second
    return years[0] if years else None


def side_value(order: Order, side: str, other: str, claims: Sequence[ClaimJson],
               unit: Sequence[str] = (), died: bool = False) -> float | None:
    """The value one side is compared by, read from the claims about it, or None.

    Args:
        order: from :func:`order_of`.
        side: the compared entity as the question writes it.
        other: the other compared entity (a claim naming both is about neither).
        claims: the verified claims (report JSON: ``claim`` and ``citations`` with ``quote``, ``title``).
        unit: the counted noun's keys (:func:`counted_unit`): when given, only numbers of that
            noun are read ("an opera in three acts", not its "WWV 111").
        died: the question orders deaths ("Who died first"): the year after "died", or the later
            year of a "(born – died)" range, not the birth year a lead states first.

    Returns:
        A year (``earlier``/``later``) or a number (``more``/``fewer``); None when the claims
        about ``side`` state none or disagree.
    """
    about_side = [c for c in claims if about(c, side, other)]
    values: set[float] = set()
    for claim in about_side:
        text = normalize_text(str(claim.get("claim", "")))
        if order in ("earlier", "later"):
            # the first year of the claim, else of its quotes; its day from a text that dates it
            texts = [text] + [normalize_text(str(c.get("quote", ""))) for c in claim.get("citations") or []]
            years = [dated_year(t, m) for t in texts if (m := (_death_year(t) if died else YEAR.search(t))) is not None]
            if years:
                values.add(next((v for v in years if int(v) == int(years[0]) and not v.is_integer()), years[0]))
        else:
            values.update(_counted(text, unit) if unit else numbers(text))
    if order in ("earlier", "later") and len({int(v) for v in values}) == 1 < len(values):
        days = {v for v in values if not v.is_integer()}  # "born in 1941" beside "June 20, 1941"
        return days.pop() if len(days) == 1 else float(int(values.pop()))
    return values.pop() if len(values) == 1 else None


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_DAY_MONTH = re.compile(r"(?:\b(\d{1,2})\s+(" + "|".join(_MONTHS) + r")|\b(" + "|".join(_MONTHS)
                        + r")\s+(\d{1,2}),?)\s+$", re.I)
"""A day and month written right before a year: ``20 June`` / ``June 20,`` (Wikipedia's two forms)."""


def dated_year(text: str, year: re.Match[str]) -> float:
    """The year :data:`YEAR` matched in ``text``, as a number a full date orders within the year.

    ``June 20, 1941`` → 1941 + day-of-year / 367 (1941.469…), ``20 June 1941`` the same; a year with
    no day and month written right before it stays whole (1941.0), so two values of the same year
    are ordered only when both have a day (:func:`order_decision`).

    Args:
        text: the text the year was found in.
        year: the :data:`YEAR` match.

    Returns:
        The value (years).
    """
    value = int(year.group(1))
    day_month = _DAY_MONTH.search(text[:year.start(1)])
    if day_month is None:
        return float(value)
    day = int(day_month.group(1) or day_month.group(4))
    month = _MONTHS.index((day_month.group(2) or day_month.group(3)).lower()) + 1
    try:
        return value + date(value, month, day).timetuple().tm_yday / 367
    except ValueError:  # "31 February": the year alone
        return float(value)


def value_text(value: float) -> str:
    """A compared value as written for a reader: a dated year (:func:`dated_year`) as its ISO date
    (``1941-06-20``), any other value as the number (``1941``, ``3``, ``9071.5``)."""
    year = int(value)
    if value.is_integer() or not 1000 <= year <= 2099:
        return f"{value:g}"
    return (date(year, 1, 1) + timedelta(days=round((value - year) * 367) - 1)).isoformat()


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
    decided = order_decision(question, compared, claims)
    return None if decided is None else decided[0]


def order_decision(question: str, compared: Sequence[str],
                   claims: Sequence[ClaimJson]) -> tuple[str, float, float] | None:
    """:func:`decide_order` with the two values it compared: ``(winning side, first side's value,
    second side's value)``, or None when it decides nothing."""
    order = order_of(question)
    if order is None or len(compared) != 2:
        return None
    first, second = compared
    # the counted noun's numbers when both sides state one ("three acts" against "five acts"),
    # else every number (one side counting members, the other listing them, is read as before)
    unit = counted_unit(question)
    died = re.search(r"\b(die|died|dies|death)\b", question, re.I) is not None
    a, b = (side_value(order, first, second, claims, unit), side_value(order, second, first, claims, unit)) \
        if unit else (None, None)
    if a is None or b is None:
        a, b = (side_value(order, first, second, claims, died=died),
                side_value(order, second, first, claims, died=died))
    if a is None or b is None or a == b:
        return None
    if order in ("earlier", "later") and int(a) == int(b) and (a.is_integer() or b.is_integer()):
        return None  # the same year, and one side states no day: nothing is decided
    smaller_wins = order in ("earlier", "fewer")
    return (first if (a < b) == smaller_wins else second), a, b


__all__ = ["NUMBER", "YEAR", "Order", "about", "decide_order", "order_decision", "dated_year", "value_text",
           "counted_unit", "yes_no_order", "numbers", "order_of", "side_value"]
