"""Rules the scripted stand-in (:class:`ditto_nb.notebook.demo.DemoResponder`) uses for a two-hop
Web QA question (pure; quick runs only, not a language model).

A two-hop question ("Which river flows through the city where the Eiffel Tower stands?") names
entity A and asks about B, which only A's page names. The stand-in answers it as a careful reader
would, with plain text rules over the evidence lines of each prompt:

- **select**: the chunks of pages whose title names a question entity come first (a decoy page
  that only mentions it comes after), and ``lookup`` holds the places those chunks put A *in*
  ("… on the Champ de Mars in Paris, France" → ``Paris``), so the second hop reads B's page.
- **answer**: the asked type (``which river`` → ``river``) names the answer in a sentence that
  puts a capitalized name next to it ("The river Seine flows through Paris …" → ``Seine``); the
  claims quote that sentence and the sentence of A's page that names the place read for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from ditto_nb.evidence import bm25_rank
from ditto_nb.patterns.common.retrieval import question_entities
from ditto_nb.text import split_sentences

_NAME = r"[A-Z][\w'-]+(?: [A-Z][\w'-]+)*"
_PLACE_IN = re.compile(rf"\bin (?:the (?:centre|center|heart|north|south|east|west) of )?({_NAME})")
_ASKED_TYPE = re.compile(r"^\s*(?:which|what)\s+([a-z]+)\b", re.I)


class Chunk(NamedTuple):
    """One evidence line of a prompt: label (``C1``), page title, origin host, text."""

    label: str
    title: str
    host: str
    text: str


def _names_question_entity(title: str, entities: Sequence[str]) -> bool:
    base = title.split(" (", 1)[0].strip().lower()
    return any(base == e.lower() for e in entities)


def selected_chunks(question: str, chunks: Sequence[Chunk], limit: int = 3) -> list[Chunk]:
    """The chunks a careful reader selects: those of a page titled by a question entity first,
    then the rest, each group best BM25 score first; only chunks that share a word with the
    question.

    Args:
        question: the question as asked.
        chunks: the prompt's evidence lines.
        limit: most chunks returned.

    Returns:
        Up to ``limit`` chunks, in that order.
    """
    entities = question_entities(question)
    ranked = [(r.score, chunks[r.index]) for r in bm25_rank(question, [c.text for c in chunks]) if r.score > 0]
    own = [c for _s, c in ranked if _names_question_entity(c.title, entities)]
    return [*own, *(c for _s, c in ranked if c not in own)][:limit]


def bridge_lookup(question: str, chunks: Sequence[Chunk], limit: int = 3) -> list[str]:
    """Places the chunks put a question entity *in* (``in Paris``), not named by the question.

    Args:
        question: the question as asked.
        chunks: the selected chunks, best first.
        limit: most names returned.

    Returns:
        Names in order of first appearance (at most ``limit``; ``[]`` when none).
    """
    asked = question.lower()
    out: list[str] = []
    for chunk in chunks:
        for name in _PLACE_IN.findall(chunk.text):
            if name.lower() not in asked and name not in out:
                out.append(name)
    return out[:limit]


def asked_type(question: str) -> str:
    """The noun a ``which``/``what`` question asks for (``Which river …`` → ``river``; "" if none)."""
    match = _ASKED_TYPE.match(question)
    return match.group(1).lower() if match else ""


class StandInAnswer(NamedTuple):
    """A short answer and the ``(chunk label, sentence)`` pairs whose sentences state it."""

    answer: str
    claims: list[tuple[str, str]]


def typed_answer(question: str, chunks: Sequence[Chunk], bridges: Sequence[str] = ()) -> StandInAnswer | None:
    """The name a sentence gives next to the asked type, with the sentences that carry it.

    "The river Seine flows through Paris …" answers "Which river …" with ``Seine``; a sentence
    that names a bridge (a place the question entity's page puts it in) is preferred, then the
    best BM25 match. The claims are that sentence and, when another chunk of a page titled by a
    question entity names the same bridge, that chunk's sentence (the first step).

    Args:
        question: the question as asked.
        chunks: the prompt's evidence lines.
        bridges: the places the question entity's pages put it in (:func:`bridge_lookup`).

    Returns:
        The answer and its claims, or None when no sentence names the asked type's name.
    """
    kind = asked_type(question)
    if not kind:
        return None
    pattern = re.compile(rf"\b((?i:{kind})) ({_NAME})|({_NAME}) (?:is|was) (?:a|an|the) [^.]*?\b(?i:{kind})\b")
    found: list[tuple[Chunk, str, str]] = []
    for chunk in chunks:
        for sentence in split_sentences(chunk.text):
            match = pattern.search(sentence)
            if match is None:
                continue
            name = match.group(2) if match.group(2) else match.group(3)
            if match.group(1) and match.group(1)[0].isupper():  # "River Thames": the type word is part of it
                name = f"{match.group(1)} {name}"
            if name and name[0].isupper() and name.lower() not in question.lower():
                found.append((chunk, sentence, name))
    if not found:
        return None
    scores = {r.index: r.score for r in bm25_rank(question, [s for _c, s, _n in found])}
    best = max(range(len(found)), key=lambda i: (any(b in found[i][1] for b in bridges), scores.get(i, 0.0), -i))
    chunk, sentence, name = found[best]
    claims = [(chunk.label, sentence)]
    entities = question_entities(question)
    for bridge in (b for b in bridges if b in sentence):
        for other in chunks:
            if other.label != chunk.label and _names_question_entity(other.title, entities):
                first = next((s for s in split_sentences(other.text) if bridge in s), "")
                if first:
                    claims.insert(0, (other.label, first))
                    break
        break
    return StandInAnswer(name, claims)


__all__ = ["Chunk", "StandInAnswer", "asked_type", "bridge_lookup", "selected_chunks", "typed_answer"]
