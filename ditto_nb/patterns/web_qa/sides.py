"""A compared side the draft left without a claim gets its page's deciding sentence (code).

The 1.5B model often writes a claim for one side of a comparison only ("The Robins Center is a
7,201-seat … arena" and nothing on Case Gym, whose page was shown to it; measured on a real wiki,
issue 13), and the answer then cannot be decided or published. For a comparison code can decide
(:mod:`ditto_nb.patterns.web_qa.comparison`: an order, or nationality; :mod:`.kinds`: a kind), a side without a claim
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

from ditto_nb.patterns.common.records import ChunkRecord
from ditto_nb.patterns.common.relevance import qualifier_asked
from ditto_nb.patterns.common.retrieval import names_entity, title_key
from ditto_nb.patterns.web_qa.comparison import YEAR, about, demonym_pattern, numbers, order_of
from ditto_nb.patterns.web_qa.evaluate import chunk_citation
from ditto_nb.patterns.web_qa.kinds import DEFINING, asked_kind
from ditto_nb.patterns.web_qa.stage_models import ClaimJson
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
            added.append({"claim": sentence, "citations": [citation], "verification": {
                "quotes_verified": True, "grounded": True,
                "grounding_reason": f"added by code: the sentence of {citation['title'] or side} that states its {kind}",
                "cross_check_passed": None, "origins": [citation["origin"]]}})
            break
    return added


__all__ = ["side_claims"]
