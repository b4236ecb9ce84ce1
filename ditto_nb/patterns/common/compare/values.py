"""The pure, pattern-neutral part of the ``compare`` step: what the call is shown, and the answer
its output gives, decided by code where two values decide it.

Web QA's compare step (``compare_round`` in ``web_qa/compare_step.py``) and deep research's
compared findings (:mod:`ditto_nb.patterns.deep_research.compared`) both show the ``compare`` call
each side's quotes (:func:`side_quotes`) and read its
:class:`~ditto_nb.patterns.common.compare.schema.SidesOutput` with :func:`sides_answer`: an
ordering or ``same`` question whose two values each state one number or year written in that
side's quotes is decided by code from them (:func:`decide_values`; the 1.5B model wrote "749 ft"
and "628 ft" for "Is 200 West Street taller than 888 7th Avenue?", then declined); a ``both``
question (:func:`~ditto_nb.patterns.common.compare.side_by_side.asks_both`) has each side judged on
its own and code combines them (:func:`~ditto_nb.patterns.common.compare.side_by_side.both_answer`).
Nothing here knows which attribute is compared.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ditto_nb.patterns.common.compare.comparison import NUMBER, YEAR, Order, about, order_of, yes_no_order
from ditto_nb.patterns.common.compare.schema import SidesOutput
from ditto_nb.patterns.common.compare.side_by_side import answer_form, asks_both, both_answer
from ditto_nb.patterns.common.records import ClaimJson
from ditto_nb.text import normalize_text, with_digits


def side_quotes(compared: Sequence[str], claims: Sequence[ClaimJson]) -> list[tuple[str, list[str]]]:
    """Each compared side with the quotes of the claims about it (:func:`about`), the question's
    order: what the ``compare`` call is shown."""
    first, second = compared[0], compared[1]
    return [(side, [str(c.get("quote", "")) for claim in claims if about(claim, side, other)
                    for c in claim.get("citations") or []])
            for side, other in ((first, second), (second, first))]


_THRESHOLD = re.compile(r"\bboth\b.*\b(before|after)\s+(1\d{3}|20\d{2})\b", re.I)
"""A ``both … before/after <year>`` question: each side's year is compared with the question's."""
_LEADING_YES_NO = re.compile(r"^\s*(yes|no)\b[\s,.;:!-]", re.I)


def _quantities(text: str, quotes: Sequence[str], dated: bool, names: Sequence[str] = ()) -> dict[float, str]:
    """The years (``dated``) or numbers a side's value states that are written in the side's
    quotes, each with the word after it (its unit). Written-out numbers count as digits
    (:func:`~ditto_nb.text.with_digits`: "three acts" is 3 acts). The
    compared ``names`` are read out first ("The building at 200 West Street is 749 ft tall": 749)."""
    text, quoted = with_digits(normalize_text(text)), with_digits(normalize_text(" ".join(quotes)))
    for name in names:
        text = re.sub(re.escape(normalize_text(name)), " ", text, flags=re.I)
    pattern = YEAR if dated else NUMBER
    found: dict[float, str] = {}
    for m in pattern.finditer(text):
        # a decade ("the 1930s", "1970's") is not a year: "a 1973 film set in the 1930s" states one year
        if dated and re.match(r"'?s\b", text[m.end():]):
            continue
        token = m.group(0)
        if not re.search(rf"(?<![\d,.]){re.escape(token)}(?![\d]|,\d)", quoted):
            continue
        after = text[m.end():].split()
        found.setdefault(float(token.replace(",", "")), after[0].strip(".,;()").lower() if after else "")
    return found


def _values(first: dict[float, str], second: dict[float, str], dated: bool) -> tuple[float, float] | None:
    """The two sides' compared values from their :func:`_quantities`, or None.

    One value per side decides (a number's unit word must be the same on both sides). A side
    with several numbers ("749 ft, 44-story"; "628 ft (191 m) … completed in 1969") is compared
    by the units both sides state once each ("ft"); every such unit must order the sides the same
    way, else nothing is decided. Years decide only one against one."""
    if len(first) == 1 and len(second) == 1:
        (a, unit_a), (b, unit_b) = next(iter(first.items())), next(iter(second.items()))
        return (a, b) if dated or unit_a == unit_b else None
    if dated:
        return None
    def once(found: dict[float, str]) -> dict[str, float]:
        units = [u for u in found.values() if u]
        return {u: v for v, u in found.items() if u and units.count(u) == 1}
    mine, theirs = once(first), once(second)
    pairs = [(mine[u], theirs[u]) for u in mine if u in theirs]
    if not pairs or len({(a > b) - (a < b) for a, b in pairs}) != 1:
        return None
    return pairs[0]


def asks_values(question: str) -> bool:
    """Whether ``question`` is one :func:`decide_values` decides from two values (an ordering, a
    ``same`` yes/no question, or a ``both … before/after <year>`` one), pure."""
    form = answer_form(question)
    if form == "yes-no" and _THRESHOLD.search(normalize_text(question)) is not None:
        return True
    order = order_of(question) if form == "side" else yes_no_order(question)
    return order is not None or (form == "yes-no" and re.search(r"\bsame\b", question, re.I) is not None)


def decide_values(question: str, compared: Sequence[str], values: Sequence[str],
                  quotes: Sequence[Sequence[str]]) -> str | None:
    """The answer two sides' values decide by code, or None (pure).

    An ordering (``Which is taller, A or B?``: the side; ``Is A taller than B?`` / ``Was A founded
    before B?``: yes when the first side wins), a ``same`` yes/no question (``Were A and B
    released in the same year?``) or a ``both … before/after <year>`` one (each side's year
    against the question's) is decided from the one number or year each side's value states
    (:func:`_quantities`, :func:`_values`: written in that side's quotes, digits or words, the
    same unit word on both sides).

    Args:
        question: the question as asked.
        compared: its two sides, in the question's order.
        values: what the compare call wrote for each side (``first``, ``second``).
        quotes: each side's verified quotes.

    Returns:
        The side as the question writes it, ``Yes`` or ``No``; None when the question asks for
        neither an order nor sameness, a value states no single number, or the units differ.
    """
    form = answer_form(question)
    threshold = _THRESHOLD.search(normalize_text(question)) if form == "yes-no" else None
    if threshold is not None:  # "Were A and B both formed before 2010?": each side's year against it
        years = [_quantities(v, q, True, compared) for v, q in zip(values, quotes)]
        if any(len(y) != 1 for y in years):
            return None
        limit, before = float(threshold.group(2)), threshold.group(1).lower() == "before"
        return "Yes" if all((y < limit) if before else (y > limit) for found in years for y in found) else "No"
    order: Order | None = order_of(question) if form == "side" else yes_no_order(question)
    same = form == "yes-no" and order is None and re.search(r"\bsame\b", question, re.I) is not None
    if order is None and not same:
        return None
    dated = order in ("earlier", "later") or (same and re.search(r"\byears?\b", question, re.I) is not None)
    first, second = (_quantities(v, q, dated, compared) for v, q in zip(values, quotes))
    pair = _values(first, second, dated)
    if pair is None:
        return None
    a, b = pair
    if same:
        return "Yes" if a == b else "No"
    if a == b:
        return None
    first_wins = (a < b) == (order in ("earlier", "fewer"))
    if form == "side":
        return compared[0] if first_wins else compared[1]
    return "Yes" if first_wins else "No"


def sides_answer(question: str, compared: Sequence[str], out: SidesOutput,
                 quotes: Sequence[Sequence[str]]) -> tuple[str, str, str | None]:
    """The answer the ``compare`` call's output gives, code deciding where it can (pure).

    A ``both`` question (:func:`~ditto_nb.patterns.common.compare.side_by_side.asks_both`): code combines
    the two sides' judgements (:func:`~ditto_nb.patterns.common.compare.side_by_side.both_answer`). Else
    :func:`decide_values` decides from the two values when it can, and the call's own answer
    stands otherwise; a yes/no answer written as a sentence is cut to its leading ``Yes``/``No``.

    Args:
        question: the question (or research topic) as asked.
        compared: its two sides, in the question's order.
        out: the ``compare`` call's output.
        quotes: each side's quotes (what the call was shown).

    Returns:
        ``(answer, status, decided)``: ``status`` is ``answered`` or ``insufficient-evidence``;
        ``decided`` is the answer when code decided it, else None.
    """
    if asks_both(question):  # each side judged on its own; code combines the two
        decided = both_answer([out.first, out.second])
        if decided is None:
            return "", "insufficient-evidence", None
        return decided, "answered", decided
    decided = decide_values(question, compared, [out.first, out.second], quotes)
    if decided is not None:
        return decided, "answered", decided
    answer = out.answer
    leading = _LEADING_YES_NO.match(f"{answer} ") if answer_form(question) == "yes-no" else None
    if leading is not None:  # "No, they are not both famous chefs." → "No"
        answer = leading.group(1).capitalize()
    return answer, out.status, None



__all__ = ["asks_values", "decide_values", "side_quotes", "sides_answer"]
