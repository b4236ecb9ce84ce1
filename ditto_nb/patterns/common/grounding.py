"""The one grounded-answer component: draft → quote verification → support → review → at most one
repair → withhold with reasons. Both patterns publish through it.

A pattern supplies two steps, each returning an :class:`Attempt` (one draft with every check
done on it):

- ``first()``: the draft call; quotes the draft lacks are picked by code; every quote verified
  as exact text of its chunk (:func:`ditto_nb.evidence.quotes.verify_quote`); the lexical
  support check (:func:`ditto_nb.evidence.support.check_support`); the grounding review (a model
  call that sees each claim beside its quote), judged by :func:`review_passes`.
- ``second(first)``: the one repair (for a Web QA comparison declined or one-sided: the compare
  step instead), or None when the first attempt stands on its checked claims.

:func:`ground` runs them in that order, never a second repair, and returns a :class:`Grounding`:
the attempt whose claims are published (:attr:`Grounding.final`) and the claims withheld with
their reasons. What each pattern plugs in:

============================  ===========================================  ==========================================
step                          Web QA                                       deep research
============================  ===========================================  ==========================================
draft + quotes picked         ``draft_round`` (``answer``), ``complete_draft``  ``report`` call, ``complete_quotes``
quote verification            tool ``verify_quotes`` (snapshots re-hashed)  ``report.check_draft`` (ledger page text)
support                       ``evaluate.evaluate_draft``                  ``synthesis.support_split``
review and its policy         ``ground``/``regrade``: explicit "supported"  ``review``/``review-2``: "not stated" rejects
answer-level checks           the answer-rule layer (``rules.run_rules``)  —
second attempt                compare step or ``repair`` + ``regrade``     ``repair`` + ``review-2``
withheld                      Memory ``withheld`` (not published)          ``report.withheld`` (published)
============================  ===========================================  ==========================================
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from ditto_nb.evidence.support import verbatim_excerpt

D = TypeVar("D")
"""The pattern's draft (with whatever it carries to its report)."""
C = TypeVar("C")
"""The pattern's checked claim record."""
W = TypeVar("W")
"""The pattern's withheld claim record (a claim with its reasons)."""

ReviewPolicy = Literal["explicit", "refusal"]
"""How a review verdict is read: ``explicit``: a claim needs a ``supported`` verdict (Web QA);
``refusal``: only a ``not stated`` verdict rejects (deep research)."""

Plan = Generator[Any, Any, Any]


def review_passes(verdict: str | None, statement: str, quote: str, policy: ReviewPolicy) -> bool:
    """The one rule for a grounding review's verdict on one claim.

    A claim that is a word-for-word excerpt of its (verified) quote passes whatever the review
    said (:func:`ditto_nb.evidence.support.verbatim_excerpt`); otherwise ``explicit`` needs the
    verdict ``supported`` and ``refusal`` rejects only ``not stated``.

    Args:
        verdict: the review's verdict (``supported``, ``not stated``; None: no verdict given).
        statement: the claim as published.
        quote: its verified quote.
        policy: see :data:`ReviewPolicy`.

    Returns:
        True when the claim passes the review.
    """
    if verbatim_excerpt(statement, quote):
        return True
    if policy == "explicit":
        return verdict == "supported"
    return verdict != "not stated"


@dataclass
class Attempt(Generic[D, C, W]):
    """One draft with every check done on it.

    Attributes:
        round: ``answer``/``report`` (first), ``repair`` or ``compare`` (second).
        draft: the pattern's draft.
        kept: claims that passed quote verification, support and review (and, in Web QA, the
            answer-level checks).
        withheld: claims that failed a check, each with its reasons.
        problems: draft-level problems (sent to the repair).
        review_ok: the review's overall judgement.
    """

    round: str
    draft: D
    kept: list[C] = field(default_factory=list)
    withheld: list[W] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    review_ok: bool = True


@dataclass
class Grounding(Generic[D, C, W]):
    """What :func:`ground` did: the first attempt and the one second attempt, if any."""

    first: Attempt[D, C, W]
    second: Attempt[D, C, W] | None = None

    @property
    def final(self) -> Attempt[D, C, W]:
        """The attempt whose claims are published: the second one when it ran."""
        return self.second if self.second is not None else self.first

    @property
    def repaired(self) -> bool:
        """True when a second attempt ran."""
        return self.second is not None

    @property
    def rounds(self) -> list[str]:
        """The attempts' rounds in order."""
        return [self.first.round] + ([self.second.round] if self.second is not None else [])


def ground(first: Callable[[], Generator[Any, Any, Attempt[D, C, W]]],
           second: Callable[[Attempt[D, C, W]], Generator[Any, Any, Attempt[D, C, W] | None]],
           ) -> Generator[Any, Any, Grounding[D, C, W]]:
    """Run the first attempt, then at most one second attempt (see the module docstring).

    Use as ``grounding = yield from ground(first, second)`` inside a stage builder.

    Args:
        first: builds the first attempt (yields its graphs).
        second: given the first attempt, builds the repair (or the compare step), or returns
            None when the first attempt stands.

    Returns:
        The :class:`Grounding`.

    Raises:
        Whatever a step raises, unchanged (e.g. ``BudgetExceeded``).
    """
    one = yield from first()
    two = yield from second(one)
    return Grounding(first=one, second=two)


__all__ = ["Attempt", "Grounding", "ReviewPolicy", "ground", "review_passes"]
