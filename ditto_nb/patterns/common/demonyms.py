"""Nationality words (demonyms) and country names: which words name a nationality or a country,
and which nationality each word is compared as.

The nationality words are countryinfo's demonyms (226 countries and territories: ``American``,
``Argentinean``, ``South Korean``) plus the words of :data:`NATIONS` it lacks; the country names
are countryinfo's (256). Both patterns use them: a question's entities
(:func:`~ditto_nb.patterns.common.retrieval.comparison_entities`: "Are both A and B American?"
compares A and B, not "B American"), the nationality comparisons of Web QA
(:mod:`ditto_nb.patterns.common.compare.comparison`) and research's coverage decided by code
(:func:`~ditto_nb.patterns.deep_research.answers.states_asked_kind`).
"""

from __future__ import annotations

import functools
import re

from countryinfo import CountryInfo

NATIONS = {"english": "british", "scottish": "british", "welsh": "british", "northern irish": "british",
           "korean": "south korean", "argentine": "argentinean", "argentinian": "argentinean",
           "icelandic": "icelander", "slovenian": "slovene"}
"""Nationality words countryinfo lacks, mapped (lower case) to the one they are compared as."""


@functools.cache
def demonyms() -> frozenset[str]:
    """Every nationality word, as written (``American``, ``South Korean``, ``Scottish``).

    Returns:
        countryinfo's demonyms plus the keys of :data:`NATIONS`, title-cased.
    """
    names = {part.strip() for info in CountryInfo.all().values() for part in
             re.split(r"[,/]", str(info.get("demonym") or "")) if part.strip()}
    return frozenset(names | {n.title() for n in NATIONS})


def nation(word: str) -> str:
    """The nationality ``word`` is compared as, lower case (``Scottish`` → ``british``)."""
    key = word.lower()
    return NATIONS.get(key, key)


@functools.cache
def _lower() -> frozenset[str]:
    return frozenset(d.lower() for d in demonyms())


def is_demonym(word: str) -> bool:
    """Whether ``word`` (one or two words, any case) is a nationality word."""
    return word.lower() in _lower()


@functools.cache
def _nation_pattern() -> re.Pattern[str]:
    names = {str(info.get("name") or key) for key, info in CountryInfo.all().items()} | set(demonyms())
    alternation = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternation})\b", re.I)


def nations_named(text: str) -> set[str]:
    """The countries and nationality words ``text`` names (countryinfo's 256 country names and the
    :func:`demonyms`), lower case: "Ken Flach plays for the United States" → ``{"united states"}``."""
    return {m.group(0).lower() for m in _nation_pattern().finditer(text)}


def without_asked_nationality(question: str, sides: list[str]) -> list[str]:
    """The compared sides of ``Are both A and B American?`` without the asked nationality word.

    A capitalized span runs on into the nationality word the question asks about ("George
    Archainbaud American"); after ``both``, the later side, when it has two or more words and its
    last word is a nationality word, loses that word ("both The Quiet American and Red Fen novels"
    keeps its first side whole).

    Args:
        question: the question (normalized text).
        sides: the compared sides as found in it.

    Returns:
        The sides, in order (unchanged without a ``both`` before them).
    """
    both = re.search(r"\bboth\b", question, re.I)
    if both is None or not sides:
        return sides
    last = max(sides, key=question.find)  # the side right before what the question asks
    words = last.split()
    if len(words) < 2 or question.find(last) < both.start() or not is_demonym(words[-1]):
        return sides
    return [" ".join(words[:-1]) if side == last else side for side in sides]


__all__ = ["NATIONS", "demonyms", "is_demonym", "nation", "nations_named", "without_asked_nationality"]
