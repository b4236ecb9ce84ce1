"""Sub-questions that belong to the topic: distinct, naming only what the topic names (pure).

A small model's plan repeats a sub-question in other words ("Who is the main actor in American
Beauty?" / "What is the main actor in American Beauty?") and invents entities the topic does not
name ("the virus that caused the 2019-nCoV outbreak" for a topic about SARS); one of the twins is
then ``covered`` and the other a ``gap``, and the invented one is researched instead of the topic.
:func:`topic_sub_questions` keeps a sub-question only when every name it gives (capitalized spans
and words holding a digit, :func:`~ditto_nb.patterns.common.retrieval.question_entities`) is in
the topic, and
drops one whose content words are those of an earlier one (Jaccard similarity of the word sets at
least :data:`SAME_WORDS`). Words are compared by their lemma (lemminflect's ``getLemma``: "shot"
is "shoot") and a word naming the asked kind of place or time by that kind ("Where" and "Which
city" ask for a place): hand-read on a held-out topic, "Where was the film 'Big Stone Gap' shot?"
and "Which city did the film 'Big Stone Gap' shoot in?" were both planned, one covered and one a
gap; over every stored research plan (37 distinct), that pair is the only one this measure adds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lemminflect import getLemma  # type: ignore[import-untyped]

from ditto_nb.patterns.common.retrieval import question_entities
from ditto_nb.text import normalize_text

SAME_WORDS = 0.75
"""Jaccard similarity of two sub-questions' content words from which the later one is a repeat."""

_WORD = re.compile(r"[a-z0-9]+")
_FUNCTION = frozenset(
    "a an and are as at be by did do does for from has have how in into is it its of on or the their "
    "there this to was were what when where which who whom whose why with".split())


_KINDS = {"where": "place", "city": "place", "town": "place", "place": "place", "location": "place",
          "located": "place", "when": "time", "year": "time", "date": "time"}
"""Words that ask for a place or a time, as that kind."""


def _lemma(word: str) -> str:
    """The word's verb lemma, else its noun lemma, else the word ("shot" → "shoot", "acts" → "act")."""
    for upos in ("VERB", "NOUN"):
        found = getLemma(word, upos=upos)
        if found and found[0] != word:
            return str(found[0]).lower()
    return word


def content_words(text: str) -> frozenset[str]:
    """Lemmas of ``text``'s lower-case words without function and question words; a word asking
    for a place or a time (``where``, ``city``, ``when``, ``year``…) as that kind."""
    words = _WORD.findall(normalize_text(text).lower())
    return frozenset(_KINDS.get(w) or _lemma(w) for w in words if w in _KINDS or w not in _FUNCTION)


def _named_in(topic: str, name: str) -> bool:
    """Whether every word of ``name`` is a word of the topic (case-insensitive)."""
    words = set(_WORD.findall(normalize_text(topic).lower()))
    return all(w in words for w in _WORD.findall(normalize_text(name).lower()))


def foreign_names(topic: str, sub_question: str) -> list[str]:
    """The names ``sub_question`` gives that the topic does not (its first word is not a name).

    Args:
        topic: the research topic.
        sub_question: one planned sub-question.

    Returns:
        The names in order; empty when the sub-question names only what the topic names.
    """
    text = normalize_text(sub_question).strip()
    text = text[:1].lower() + text[1:]  # a capitalized first word starts the sentence, not a name
    names = question_entities(text) + [w for w in re.findall(r"\S*\d\S*", text)]
    return list(dict.fromkeys(n for n in names if not _named_in(topic, n)))


def topic_sub_questions(topic: str, sub_questions: Sequence[str]) -> list[str]:
    """The planned sub-questions that belong to the topic (see the module docstring).

    Args:
        topic: the research topic.
        sub_questions: the plan's sub-questions, in order.

    Returns:
        The kept sub-questions in order; ``[topic]`` when none is kept.
    """
    kept: list[str] = []
    seen: list[frozenset[str]] = []
    for sub in sub_questions:
        words = content_words(sub)
        if foreign_names(topic, sub) or not words:
            continue
        if any(len(words & other) / len(words | other) >= SAME_WORDS for other in seen):
            continue
        kept.append(sub)
        seen.append(words)
    return kept or [topic]


__all__ = ["SAME_WORDS", "content_words", "foreign_names", "topic_sub_questions"]
