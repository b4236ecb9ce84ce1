"""Does the answer answer? Code-side checks of a draft's answer against its verified claims (pure).

Checked only when the draft claims ``answered`` (an honest ``insufficient-evidence`` has nothing to
check). Each failure is a problem sent to the one repair; a problem left after the repair makes
the published status ``insufficient-evidence`` (with its fixed text, so status and text never
disagree), never a wrong published answer:

- **Answer words in quotes** (:func:`ditto_nb.evidence.support.answer_in_quotes`): the numbers and
  names of the answer, and most of its words, appear in the quotes of its verified claims.
  ``yes``/``no`` answers skip this; they need the deciding quotes (next rule).
- **Both sides quoted**: for a comparison question every compared entity needs a verified quote
  that names it (or comes from its page).
- **The asked kind**: a year for ``what year`` / ``which year`` / ``when … born/founded`` style
  questions (a 3–4 digit number), a number for ``how many`` / ``how much``, a capitalized name for
  ``who`` / ``whom``.
- **The grounding review's judgement**: the review says whether the answer gives what the
  question asks for (``fits``); ``false`` is a problem with the review's reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ditto_nb.evidence.support import answer_in_quotes
from ditto_nb.patterns.common.retrieval import title_key
from ditto_nb.text import normalize_text

YES_NO = frozenset({"yes", "no"})
_NUMBER_WORDS = re.compile(r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|hundred|thousand|"
                           r"million|billion|dozen)\b", re.I)


def expected_kind(question: str) -> str | None:
    """What kind of answer the question asks for: ``year``, ``number``, ``person`` or None.

    Args:
        question: the question as asked.

    Returns:
        The kind, or None when the question does not fix one.
    """
    text = normalize_text(question).lower()
    if re.search(r"\b(what|which|in what|in which) year\b|\byear did\b|\bwhat year\b", text):
        return "year"
    if re.search(r"\bhow (many|much)\b|\bpopulation\b", text):
        return "number"
    if re.match(r"^(who|whom)\b", text) and not re.match(r"^who (is|was) (older|younger|born first)", text):
        return "person"
    return None


def is_yes_no(answer: str) -> bool:
    """True when the answer is a bare yes or no (``Yes.``, ``no``)."""
    words = re.findall(r"\w+", answer.lower())
    return bool(words) and words[0] in YES_NO and len(words) <= 2


def _quotes(claims: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    return [(str(c.get("quote", "")), str(c.get("title", ""))) for claim in claims for c in claim.get("citations") or []]


def answer_problems(question: str, answer: str, status: str, claims: Sequence[Mapping[str, Any]],
                    compared: Sequence[str] = (), fits: bool = True, fits_reason: str = "") -> list[str]:
    """Problems of a draft's answer (empty when it answers the question from its quotes).

    Args:
        question: the question as asked.
        answer: the draft's answer text.
        status: the draft's status hint (only ``answered`` is checked).
        claims: the verified claims (report JSON: ``citations`` with ``quote`` and ``title``).
        compared: the compared entities of a comparison question (``[]`` otherwise).
        fits: the grounding review's judgement that the answer gives what was asked.
        fits_reason: the review's reason.

    Returns:
        Human-readable problems, each starting with ``answer:``.
    """
    if status != "answered":
        return []
    problems: list[str] = []
    quotes = _quotes(claims)
    text = normalize_text(answer)
    if not is_yes_no(text):
        check = answer_in_quotes(text, [q for q, _ in quotes])
        if not check.ok:
            problems += [f"answer: {reason}; answer with words copied from a quote" for reason in check.reasons]
    for entity in compared:
        key = title_key(entity)
        words = [w for w in re.findall(r"\w+", key) if len(w) > 2] or [key]
        if not any(all(w in (q + " " + t).lower() for w in words) for q, t in quotes):
            problems.append(f"answer: no claim quotes a fact about {entity}; add one claim per compared side")
    kind = expected_kind(question)
    if kind == "year" and not re.search(r"\b\d{3,4}\b", text):
        problems.append("answer: the question asks for a year; the answer gives none")
    elif kind == "number" and not (re.search(r"\d", text) or _NUMBER_WORDS.search(text)):
        problems.append("answer: the question asks for a number; the answer gives none")
    elif kind == "person" and not re.search(r"\b[A-Z][\w'-]+", answer):
        problems.append("answer: the question asks who; the answer names no one")
    if not fits:
        problems.append(f"answer: the review says it does not answer the question ({fits_reason or 'no reason'})")
    return problems


__all__ = ["YES_NO", "answer_problems", "expected_kind", "is_yes_no"]
