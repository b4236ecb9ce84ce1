"""A compared side the draft left without a claim gets its page's deciding sentence (code).

The 1.5B model often writes a claim for one side of a comparison only ("The Robins Center is a
7,201-seat … arena" and nothing on Case Gym, whose page was shown to it; measured on a real wiki,
issue 13), and the answer then cannot be decided or published. For a comparison code can decide
(:mod:`ditto_nb.patterns.common.compare.comparison`: an order, or nationality; :mod:`.kinds`: a kind), a side without a claim
about it gets one claim made by code: the first sentence of that side's shown chunk (its page:
title, else a chunk naming it and not the other side) that states a value of the asked kind — a
year (``earlier``/``later``), a number (``more``/``fewer``), a defining ``is a …`` clause (a
kind) or a nationality word. The claim's text
*is* its quote (a verbatim excerpt, verified as exact text of the chunk like any quote), so it
states nothing its quote does not; its verification says it was added by code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ditto_nb.evidence.rank import STOP_WORDS
from ditto_nb.evidence.support import WORD, stem
from ditto_nb.patterns.common.citations import chunk_citation
from ditto_nb.patterns.common.compare.comparison import YEAR, about, numbers, order_of
from ditto_nb.patterns.common.compare.nationality import demonym_pattern
from ditto_nb.patterns.common.compare.kinds import DEFINING, asked_kind
from ditto_nb.patterns.common.records import ChunkRecord, CitationJson, ClaimJson
from ditto_nb.patterns.common.relevance import qualifier_asked
from ditto_nb.patterns.common.retrieval import names_entity, title_key
from ditto_nb.text import normalize_text, split_sentences


def _asked(question: str, compared: Sequence[str]) -> str | None:
    """``year``, ``number``, ``kind`` or ``nationality``: the value a comparison is decided by."""
    order = order_of(question)
    if order in ("earlier", "later"):
        return "year"
    if order in ("more", "fewer"):
        return "number"
    if asked_kind(question, compared):
        return "kind"
    text = normalize_text(question)
    if re.search(r"\bsame (nationality|country)\b", text, re.I) or re.search(r"\bboth\b", text, re.I):
        return "nationality"
    return None


def _states(sentence: str, kind: str) -> bool:
    if kind == "year":
        return YEAR.search(sentence) is not None
    if kind == "number":
        return bool(numbers(sentence))
    if kind == "kind":
        return DEFINING.search(sentence) is not None
    return demonym_pattern().search(sentence) is not None


def _page_of(question: str, side: str, other: str, chunks: Sequence[ChunkRecord]) -> list[ChunkRecord]:
    """The side's chunks: from its page first (the title is the side, one with a qualifier the
    question asks for before others: ``Alien (film)``, then ``Alien (soundtrack)``), then titles
    naming it, then chunks naming it and not ``other`` (names as whole words: ``Aliens`` is not
    ``Alien``)."""
    def title(c: ChunkRecord) -> str:
        return str(c.get("title", ""))

    exact = sorted((c for c in chunks if title_key(title(c)) == title_key(side)),
                   key=lambda c: not qualifier_asked(title(c), question))
    def names(text: str, entity: str) -> bool:
        return names_entity(text, entity, whole_words=True)

    named = [c for c in chunks if c not in exact and names(title(c), side) and not names(title(c), other)]
    own = exact + named
    naming = [c for c in chunks if c not in own and names(str(c.get("text", "")), side)
              and not names(str(c.get("text", "")), other)]
    return own + naming


def _code_claim(sentence: str, citation: CitationJson, why: str) -> ClaimJson:
    """A claim code adds: its text is its verified quote, its grounding reason says why."""
    return {"claim": sentence, "citations": [citation], "verification": {
        "quotes_verified": True, "grounded": True, "grounding_reason": f"added by code: {why}",
        "cross_check_passed": None, "origins": [citation["origin"]]}}


def side_claims(question: str, compared: Sequence[str], claims: Sequence[ClaimJson],
                chunks: Sequence[ChunkRecord]) -> list[ClaimJson]:
    """Claims code adds for the compared sides that have none (see the module docstring).

    Args:
        question: the question as asked.
        compared: its two compared entities (``[]`` when it is not a comparison).
        claims: the draft's verified claims (report JSON).
        chunks: the chunks shown to the model (``ChunkRecord``: ``chunk_id``, ``text``, ``title``…).

    Returns:
        One claim per side without one whose page states a value of the asked kind; ``[]`` when the
        question is not a comparison code decides.
    """
    kind = _asked(question, compared) if len(compared) == 2 else None
    if kind is None:
        return []
    added: list[ClaimJson] = []
    for side, other in ((compared[0], compared[1]), (compared[1], compared[0])):
        if any(about(c, side, other) for c in claims):
            continue
        for record in _page_of(question, side, other, chunks):
            sentence = next((s for s in split_sentences(normalize_text(str(record.get("text", ""))))
                             if _states(s, kind)), None)
            if sentence is None:
                continue
            citation = chunk_citation(record, sentence)
            if citation is None:
                continue
            added.append(_code_claim(sentence, citation, f"the sentence of {citation['title'] or side} that states its {kind}"))
            break
    return added


_FORM_WORDS = frozenset(
    "both same also more most less fewer first earlier later which one other either each type types kind "
    "kinds examples example".split()
)
"""Question words that say how two sides are compared, not which fact (never an attribute word)."""
MAX_SIDE_QUOTES = 2
"""Most sentences code quotes for one side (:func:`attribute_claims`)."""


def _sentences(text: str) -> list[str]:
    """The text's sentences, a fragment of under four words joined to the next (``Tibouchina
    Aubl.`` is a botanist's abbreviation, not a sentence)."""
    out: list[str] = []
    for sentence in split_sentences(normalize_text(text)):
        if out and len(out[-1].split()) < 4:
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


def attribute_words(question: str, compared: Sequence[str]) -> list[str]:
    """The comparison keys of the words a comparison asks about: the question's content words
    (3+ letters, not stop words, not a compared name's words, not form words like ``both``).

    ``"Are Ranger Rick and Tennis both sports magazines?"`` → ``["sport", "magaz"]``.
    """
    names = {stem(w) for side in compared for w in WORD.findall(side)}
    words = [w.lower() for w in WORD.findall(normalize_text(question)) if len(w) > 2]
    return list(dict.fromkeys(stem(w) for w in words if w not in STOP_WORDS and w not in _FORM_WORDS
                              and stem(w) not in names))


def attribute_score(sentence: str, wanted: Sequence[str]) -> int:
    """How many attribute keys a sentence's words share (a key and a word key, one a prefix of the
    other, 4+ characters: ``taller`` meets ``tall``)."""
    keys = {stem(w) for w in WORD.findall(sentence)}
    return sum(any(min(len(k), len(w)) >= 4 and (k.startswith(w) or w.startswith(k)) for k in keys) for w in wanted)


def attribute_claims(question: str, compared: Sequence[str], claims: Sequence[ClaimJson],
                     chunks: Sequence[ChunkRecord]) -> list[ClaimJson]:
    """Claims code adds, for any compared attribute, to the sides without a claim (pure).

    A side the draft left without a verified claim gets, from its own page (:func:`_page_of`), the
    sentence that shares most of the question's attribute words (:func:`attribute_words`; ties go
    to the earlier sentence) and the page's first, defining sentence (``X is a …``), at most
    :data:`MAX_SIDE_QUOTES`. Only the side's own page is quoted (its title is the side when such a
    page was read, disambiguation pages aside; else a title naming it): a list page's
    "Madame Figaro … are also published in the country" gave a wrong "same country" answer. Each
    claim's text is its quote, a verbatim sentence verified as exact text of its chunk, so it states
    nothing its quote does not; its verification says it was added by code.

    Args:
        question: the question as asked.
        compared: its two compared entities.
        claims: the draft's verified claims (report JSON).
        chunks: the chunks read (``ChunkRecord``: ``chunk_id``, ``text``, ``title``…).

    Returns:
        The added claims, the first side's first; ``[]`` when ``compared`` is not a pair.
    """
    if len(compared) != 2:
        return []
    wanted = attribute_words(question, compared)
    added: list[ClaimJson] = []
    for side, other in ((compared[0], compared[1]), (compared[1], compared[0])):
        if any(about(c, side, other) for c in claims):
            continue
        found: list[tuple[int, int, str, ChunkRecord]] = []
        # a side's page whose qualifier the other side's page shares comes first ("Bloody Mary
        # (cocktail)" beside "Sidecar (cocktail)", not "Bloody Mary (folklore)")
        others = " ".join(str(c.get("title", "")) for c in chunks if title_key(str(c.get("title", ""))) == title_key(other))
        page = _page_of(f"{question} {others}", side, other, chunks)
        titles = [str(record.get("title", "")) for record in page]
        # the side's page: a title naming it, else (none read) a title whose words the side contains
        # ("Tibouchina" for "Tibouchina Aubl")
        strong = any(names_entity(t, side, whole_words=True) for t in titles)
        # a page titled by the side itself, when one was read, is its only page ("L'histoire de
        # Manon", a ballet, is not the opera "Manon"); a disambiguation page is no one's own page
        # (measured: "Manon (disambiguation)"'s sentence came first and the opera's "five acts" was
        # not among the side's quotes)
        exact = {t for t in titles if title_key(t) == title_key(side) and "disambiguation" not in t.lower()}
        for record, title in zip(page, titles):
            own = (title in exact if exact else names_entity(title, side, whole_words=True) if strong
                   else names_entity(side, title_key(title), whole_words=True))
            if not own:  # another page's sentence about the side lacks its page's context ("the country")
                continue
            for sentence in _sentences(str(record.get("text", ""))):
                found.append((attribute_score(sentence, wanted), len(found), sentence, record))
        if not found:
            continue
        best = max(found, key=lambda f: (f[0], -f[1]))
        for _score_, _at, sentence, record in sorted({best[1]: best, found[0][1]: found[0]}.values(),
                                                     key=lambda f: f[1])[:MAX_SIDE_QUOTES]:
            citation = chunk_citation(record, sentence)
            if citation is not None:
                added.append(_code_claim(sentence, citation, f"the sentence of {citation['title'] or side} "
                                                             "about the compared fact"))
    return added


__all__ = ["MAX_SIDE_QUOTES", "attribute_claims", "attribute_score", "attribute_words", "side_claims"]
