"""Code decides a "both <kind>" comparison from each side's defining clause (pure).

``Were Zab Judah and Muggsy Bogues both boxers?`` asks whether each side is of one kind. The 1.5B
model answered ``yes`` with both pages in front of it (measured on a real wiki, issue 13), though
Bogues's page says he "is a retired American professional basketball player". A wiki page's first
sentence defines its subject (``X is/was a[n] …``), so code compares the asked kind with that
clause of each side.

Rules:

- **The asked kind** (:func:`asked_kind`): the words after ``both`` (after the last compared entity
  when the question writes ``both X and Y <kind>``) up to the question mark: at most four words,
  none of them a relation word (``in``, ``from``, ``born``, ``located`` …: "both born in Ohio" is
  not a kind) and not starting with a nationality word (:func:`~.nationality.decide_nationality`
  decides those). Its content words (3+ letters, not stop words) are the kind's nouns.
- **A side's defining clause** (:func:`defining_clause`): the words after ``is a``/``was an``/
  ``is the``/``was one of the`` (up to ``.``, ``;``, ``:``, ``(`` or a relative ``who``/
  ``which``/``that``, at most 12 words) whose sentence's subject is the side (a word of its name)
  or a pronoun, in the first claim about the side that has one (its text, else its quotes).
- **The decision** (:func:`decide_kind`): a noun *matches* a clause when a clause word shares its
  comparison key (:func:`ditto_nb.evidence.support.stem`: the first five letters, so ``boxers``
  matches ``boxer`` and ``film`` matches ``filmmaker``). Every noun matches both clauses → ``yes``;
  every noun matches one clause and none matches the other → ``no``; anything between (``film
  directors`` against "American filmmaker, actor") decides nothing and the model's answer stands.
  A side without a defining clause decides nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ditto_nb.evidence.rank import STOP_WORDS
from ditto_nb.evidence.support import WORD, stem
from ditto_nb.patterns.common.compare.comparison import about
from ditto_nb.patterns.common.compare.nationality import asked_after, demonym_pattern
from ditto_nb.patterns.common.records import ClaimJson
from ditto_nb.text import normalize_text

MAX_KIND_WORDS = 4
"""Longest ``both …`` phrase read as a kind (words)."""
MAX_CLAUSE_WORDS = 12
"""Longest defining clause kept (words)."""
_RELATIONS = frozenset(
    "as in on at of from to by with for into near under over between located born based founded made "
    "released published written directed produced played known married named members member part".split()
)
"""Words that make a ``both …`` phrase a relation or a place, not a kind."""
_KIND_OF = re.compile(r"^(?:an?\s+)?(?:types?|kinds?|forms?|sorts?)\s+of\s+", re.I)
"""A leading ``types of`` / ``kind of`` …: the kind is what follows."""
DEFINING = re.compile(r"\b(?:is|was|are|were)\s+(?:an?|the|one of the)\s+([^.;:()]+)")
_CLAUSE_END = re.compile(r"\b(?:who|which|that|whose|where)\b")


def asked_kind(question: str, compared: Sequence[str]) -> list[str]:
    """The nouns of the kind a ``both <kind>`` question asks about, or ``[]``.

    Args:
        question: the question as asked.
        compared: its two compared entities.

    Returns:
        Lower-case content words of the kind (``["boxers"]``, ``["film", "directors"]``); ``[]``
        when the question has no ``both``, the phrase is a relation, a nationality or too long.
    """
    text = normalize_text(question)
    both = re.search(r"\bboth\b", text, re.I)
    if both is None or len(compared) != 2:
        return []
    phrase = _KIND_OF.sub("", asked_after(text, both.end(), compared))  # "both types of drinks" asks whether each is a drink
    words = phrase.split()
    if not words or len(words) > MAX_KIND_WORDS or any(w.lower() in _RELATIONS for w in words):
        return []
    if demonym_pattern().match(f"is a {phrase}") is not None:
        return []
    return [w.lower() for w in re.findall(r"[A-Za-z]{3,}", phrase) if w.lower() not in STOP_WORDS]


def defining_clause(side: str, other: str, claims: Sequence[ClaimJson]) -> str | None:
    """The defining clause (``retired American professional basketball player``) the claims about
    ``side`` state, or None (see the module docstring)."""
    for claim in (c for c in claims if about(c, side, other)):
        texts = [str(claim.get("claim", ""))] + [str(c.get("quote", "")) for c in claim.get("citations") or []]
        for text in texts:
            text = normalize_text(text)
            for match in DEFINING.finditer(text):
                if _is_subject(text[:match.start()], side):
                    clause = _CLAUSE_END.split(match.group(1))[0]
                    return " ".join(clause.split()[:MAX_CLAUSE_WORDS]).lower()
    return None


def _is_subject(before: str, side: str) -> bool:
    """Whether the words before ``is a`` are the side (a word of its name) or a pronoun, not a
    relative clause about someone else (``…, who is a``). A parenthesis is left out first: a lead's
    "(] ; born 3 September 1953)" holds a ``;`` that ends no sentence."""
    sentence = re.split(r"[.;!?]\s", re.sub(r"\([^()]*\)", " ", before))[-1]
    if re.search(r"\b(who|which|that|whose)\s*$", sentence, re.I):
        return False
    if re.match(r"\s*(he|she|it|they)\b", sentence, re.I):
        return True
    return any(w in sentence.lower() for w in re.findall(r"\w{3,}", side.lower()))


def decide_kind(question: str, compared: Sequence[str], claims: Sequence[ClaimJson]) -> str | None:
    """``yes`` / ``no`` for a ``both <kind>`` comparison its verified claims decide, else None.

    Args:
        question: the question as asked (``Were A and B both boxers?``).
        compared: its two compared entities.
        claims: the verified claims (report JSON: ``claim`` and ``citations`` with ``quote``, ``title``).

    Returns:
        ``yes`` or ``no``; None when the question asks no kind, a side has no defining clause, or
        the clauses match the kind only in part.
    """
    nouns = asked_kind(question, compared)
    if not nouns:
        return None
    first, second = compared
    a, b = defining_clause(first, second, claims), defining_clause(second, first, claims)
    if a is None or b is None:
        return None
    matched = []
    for clause in (a, b):
        keys = {stem(w) for w in WORD.findall(clause)}
        matched.append(sum(any(k.startswith(stem(n)) for k in keys) for n in nouns))
    if all(m == len(nouns) for m in matched):
        return "yes"
    if sorted(matched) == [0, len(nouns)]:
        return "no"
    return None


__all__ = ["DEFINING", "asked_kind", "decide_kind", "defining_clause"]
