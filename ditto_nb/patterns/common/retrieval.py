"""Retrieval that works on a wiki's AND search: entity queries, relaxation, page ranking, hops.

Pure functions with typed inputs and outputs (no I/O), shared by Web QA and deep research.

A wiki's search (MediaWiki's default backend, Wikipedia's CirrusSearch) returns only pages holding
*every* word of a query, so a query like ``Kiss and Tell actress nationality`` usually returns
nothing. The mechanisms here:

- **Entities of the question** (:func:`question_entities`): quoted titles and capitalized spans
  (title-like n-grams such as ``Kiss and Tell`` or ``University of Oxford``; connector words like
  *of*, *and*, *the* are kept only between capitalized words).
- **Entity-centred queries with a relaxation ladder** (:func:`~ditto_nb.patterns.common.search_queries.build_queries`): each query carries
  ``fallbacks``, tried in order when it returns no hit: first the query without its descriptive
  (non-entity) words, then each entity it names alone. A comparison question gets one query per
  compared entity (:func:`comparison_entities`).
- **Candidate pages ranked by relevance to the question** (:func:`ditto_nb.patterns.common.relevance.rank_hits`), not by query order:
  the best hit of every query first (so each entity keeps its page), then the rest by BM25 of
  title + snippet against the question, with a bonus for a title that names an entity.
- **Second hop** (:func:`~ditto_nb.patterns.common.search_queries.hop_queries`): the bridge entity (or missing facet) named by the
  selection call becomes the remaining queries.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ditto_nb.evidence.rank import STOP_WORDS, bm25_rank, terms
from ditto_nb.patterns.common.demonyms import without_asked_nationality
from ditto_nb.text import normalize_text

CONNECTORS = frozenset("of and the to de la le von van der du del da di for & 's".split())
"""Lower-case words kept inside a capitalized span (``Bank of England``, ``Kiss and Tell``,
``Back to Mono``: without ``to`` the box set was two entities, and its ``first track`` a comparison)."""
LETTER_CONNECTORS = frozenset({"to"})
"""Connectors kept only between two words that start with a letter (``1988 to 1996`` is a range)."""
QUESTION_WORDS = frozenset(
    "what which who whom whose where when why how is are was were do does did can could has have had "
    "in on at by of for from the a an this that these those both either neither name between".split()
)
"""Capitalized words that do not start an entity at the start of a question (``What``, ``In``)."""
PAIR_CUES = re.compile(r"\b(both|same|either|neither|common|share|shared)\b", re.I)
"""Words that ask about two entities together (``both``, ``in common``)."""
ORDER_CUES = re.compile(
    r"\b(older|younger|oldest|youngest|earlier|later|first|longer|shorter|larger|smaller|bigger|higher|"
    r"lower|more|less|fewer|greater|taller|closer|farther)\b", re.I)
"""Words that order two entities (``older``, ``first``, ``more``); without a choice (``X or Y``)
they make a comparison only when the two entities are written as a pair (:func:`_paired`)."""
COMPARISON_CUES = re.compile(f"{PAIR_CUES.pattern}|{ORDER_CUES.pattern}", re.I)
"""Either kind of comparison cue."""
_QUOTED = re.compile(r"\"([^\"]{2,120})\"|“([^”]{2,120})”|(?<!\w)'([^']{2,120})'(?!\w)")
_YES_NO_PAIR = re.compile(
    r"^(?:are|were|is|was|do|did|does|have|had)\s+(.+?)\s+and\s+(.+?)\s+(?:both|each|the same|of the same|"
    r"from the same|in the same|either)\b", re.I)
DEMONYM_ENDINGS = ("an", "ese", "ish", "ch", "ic")
NAME_WORD = re.compile(r"[\w][\w.'&-]*")
"""One word of a name or query (letters, digits and the inner marks of "St.", "O'Brien", "AT&T")."""
_BREAK = re.compile(r"[,;:()?!]")
"""Punctuation between two words that ends a capitalized span."""
PARENTHESIS = re.compile(r"\s*\([^)]*\)\s*")
"""A parenthesized span with the spaces around it (a title's qualifier: "Manon (disambiguation)")."""


def clean_span(span: str) -> str:
    """``span`` normalized (:func:`~ditto_nb.text.normalize_text`) without surrounding spaces,
    quotes and punctuation."""
    return normalize_text(span.strip(" ,.;:?!\"'“”"))


def _pair_side(span: str) -> str:
    """One side of a yes/no pair as a name: without a leading article or lower-case words
    ("the documentaries One Big Hapa Family") and without a trailing run of lower-case words that
    holds a participle or plural ("Madame Figaro published", "Alison Moyet singers", "A Film
    Unfinished directed by"): those are the question's words, not the name's."""
    span = re.sub(r"^(?:[a-z]+\s+)+(?=[A-Z0-9\"“])", "", span.strip())
    span = re.sub(r"^(the|a|an)\s+", "", span, flags=re.I)
    tail = re.search(r"(?:\s+[a-z]+)+$", span)
    if tail and tail.start() > 0 and (re.search(r"[a-z](?:ed|s)\b", tail.group(0))
                                      or all(w in STOP_WORDS for w in tail.group(0).split())):
        span = span[:tail.start()]  # "Nathalie Sarraute have": a verb of the question
    return clean_span(span)


def _split_pair(span: str) -> list[str]:
    """``Ed Wood and Scott Derrickson`` → both names; ``Kiss and Tell`` stays one title (a side
    with fewer than two capitalized words is not a name of its own)."""
    parts = re.split(r"\s+(?:and|&)\s+", span)
    if len(parts) == 2 and all(sum(w[:1].isupper() for w in part.split()) >= 2 for part in parts):
        return parts
    return [span]


def question_entities(question: str) -> list[str]:
    """Entity names in a question, most specific first.

    Order: quoted titles, then multi-word capitalized spans, then single capitalized words; a
    single word that starts the question or looks like a demonym (``French``, ``American``) comes
    last. A trailing possessive ``'s`` is dropped.

    A capitalized span is a run of words starting with an upper-case letter or a digit, with the
    connector words of :data:`CONNECTORS` allowed between two such words; a question word
    (``What``, ``Which``, ``In``…) does not start a span. Spans inside a quoted title are not
    repeated.

    Args:
        question: the question text.

    Returns:
        Distinct entity strings in order of appearance (quoted titles first).
    """
    found: list[str] = []
    text = normalize_text(question)
    for match in _QUOTED.finditer(text):
        value = clean_span(next(g for g in match.groups() if g))
        if value:
            found.append(value)
    words = [(m.group(0), m.start()) for m in NAME_WORD.finditer(text)]
    span: list[str] = []

    def close() -> None:
        while span and span[-1].lower() in CONNECTORS:
            span.pop()
        if span:
            value = clean_span(" ".join(span))
            if value and not any(value.lower() in f.lower() for f in found):
                found.append(value)
        span.clear()

    end = 0
    for word, start in words:
        # "German, David Guterson": punctuation ends a span, but not a date's "January 2, 2012"
        if span and _BREAK.search(text, end, start) and not (word.isdigit() and span[-1].isdigit()):
            close()
        end = start + len(word)
        capital = word[0].isupper() or (word[0].isdigit() and word.isalnum())
        if capital and not span and word.lower() in QUESTION_WORDS:
            continue
        if capital:
            if not word[0].isalpha() and LETTER_CONNECTORS & set(_trailing(span)):
                close()  # "1988 to 1996" is a range, "According to the 2001 census" no name
            ends = word.endswith(".") and len(word.rstrip(".")) > 1  # "Archer." ends a sentence; "O." does not
            span.append(word.rstrip(".") if ends else word)
            if ends:
                close()
        elif span and word.lower() in CONNECTORS and not (word in LETTER_CONNECTORS and not span[-1][0].isalpha()):
            span.append(word)
        else:
            close()
    close()
    found = [re.sub(r"(?:'s|’s)$", "", part) for f in found for part in _split_pair(f) if not part.isdigit()]
    quoted = len([m for m in _QUOTED.finditer(text)])

    def weight(item: tuple[int, str]) -> tuple[int, int, int]:
        position, value = item
        single = " " not in value
        weak = single and (value.lower().endswith(DEMONYM_ENDINGS) or text.startswith(value))
        return (position >= quoted, weak, -min(len(value.split()), 4) if not single else 0)

    ranked = sorted(enumerate(dict.fromkeys(found)), key=lambda item: (weight(item), item[0]))
    return [value for _, value in ranked]


def _trailing(span: Sequence[str]) -> list[str]:
    """The connector words that end a span being built."""
    out: list[str] = []
    for word in reversed(span):
        if word.lower() not in CONNECTORS:
            break
        out.append(word)
    return out


def clarification_needed(question: str, model_says: bool) -> bool:
    """Whether the plan ends the task as ``needs-clarification``: the model must say so *and* the
    question must name nothing to search for (no entity name, per :func:`question_entities`). A 0.5B model flagged
    "Which river flows through Paris?" as unclear; a question naming Paris has a clear search.
    Both patterns' plans use this rule (Web QA ``needs_clarification``, research ``clear=false``)."""
    return bool(model_says) and not question_entities(question)


def comparison_entities(question: str) -> list[str]:
    """The two (or more) entities a comparison question compares, or ``[]`` when it is not one.

    A question is a comparison when it has the yes/no pair shape ``Are X and Y both/of the same …``
    (X and Y are then taken as written), or names at least two entities and has a comparison cue
    (``both``, ``same``, ``older``, ``first``…) or offers a choice (``X or Y``).

    Args:
        question: the question text.

    Returns:
        The compared entities in order (those around ``or`` when the question offers a choice).
    """
    text = normalize_text(question)
    pair = _YES_NO_PAIR.match(text)
    if pair:
        sides = [_pair_side(side) for side in pair.group(1, 2)]
        if all(sides):
            return sides
    entities = question_entities(question)
    if len(entities) < 2:
        # "Were X and Y both …": one capitalized span joined by "and"/"or" names two entities
        entities = [part for e in entities for part in re.split(r"\s+(?:and|or|&)\s+", e) if part]
    if len(entities) < 2:
        return []
    choice = re.search(r"(.+?)\s*,?\s+or\s+(.+?)\??$", text)
    if choice:  # the names nearest "or" on each side ("… Russian composer …, A or B": A and B)
        left = sorted((e for e in entities if e in choice.group(1)), key=choice.group(1).rfind)
        right = sorted((e for e in entities if e in choice.group(2)), key=choice.group(2).find)
        if left and right:
            return [left[-1], right[0]]
    if (PAIR_CUES.search(text) or re.match(r"^(are|were|is|was|do|did|does)\b", text, re.I)
            or (ORDER_CUES.search(text) and _paired(text, entities[0], entities[1]))):
        return without_asked_nationality(text, entities[:2])
    return []


def _paired(text: str, first: str, second: str) -> bool:
    """Whether two entities are written as a pair: ``A and B`` (either order) or ``… than B``.

    Measured on dev-150's bridge questions: an ordering word alone took six of them for
    comparisons ("the first track on the box set …", "what larger Hall of Fame", "first
    published"), while every comparison-100 question with an ordering word and no ``or`` pairs its
    entities ("Which genus has more species, Bactris and Epigaea?", "… Kim Warwick win than Jorge
    Lozano?")."""
    a, b = re.escape(first), re.escape(second)
    return bool(re.search(rf"{a}\W+(?:and|&)\W+{b}|{b}\W+(?:and|&)\W+{a}|\bthan\W+(?:{a}|{b})", text))



def title_key(title: str) -> str:
    """A title for matching: parenthetical qualifiers dropped, lower-cased, single spaces."""
    return " ".join(PARENTHESIS.sub(" ", normalize_text(title)).lower().split())


def names_entity(text: str, entity: str, *, whole_words: bool = False) -> bool:
    """Whether ``text`` names ``entity``: every word of its :func:`title_key` longer than two
    letters (all of the key when it has none) appears in the lower-cased text (substring match;
    with ``whole_words``, as whole words: "Aliens (soundtrack)" does not name "Alien")."""
    key = title_key(entity)
    words = [w for w in re.findall(r"\w+", key) if len(w) > 2] or [key]
    lowered = text.lower()
    if whole_words:
        return all(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", lowered) for w in words)
    return all(w in lowered for w in words)


def content_words(text: str) -> list[str]:
    """Lower-case content words (the ranking terms of :func:`ditto_nb.evidence.rank.terms`)."""
    return terms(text)


__all__ = [
    "COMPARISON_CUES",
    "ORDER_CUES",
    "PAIR_CUES",
    "CONNECTORS",
    "NAME_WORD",
    "PARENTHESIS",
    "QUESTION_WORDS",
    "clean_span",
    "comparison_entities",
    "content_words",
    "names_entity",
    "question_entities",
    "title_key",
]
