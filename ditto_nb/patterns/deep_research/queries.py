"""Research queries for a search that ANDs its words: entity-centred, relaxed, reformulated.

Reuses :mod:`ditto_nb.patterns.common.retrieval` (the same mechanism as Web QA's): a query is a
search spec ``{"text", "fallbacks", "entity"}``; the ``web_search`` tool tries the relaxation
ladder (``fallbacks``) while a form returns no hit and, for ``entity``, title search first.

- Round one: :func:`first_round` — the topic's entities alone plus the plan's queries and
  sub-questions, each with its ladder (:func:`~ditto_nb.patterns.common.search_queries.build_queries`).
- Later rounds: first a comparison's side whose page was not read (:func:`side_specs`); then,
  while a sub-question is a gap, the second hop (:func:`bridge_specs`) — a
  name the evidence mentions and the topic does not (the actress a film's page names, for a
  topic about "the woman who portrayed …"), chosen by Web QA's
  :func:`~ditto_nb.patterns.common.relevance.bridge_candidates`; then the assessment's queries
  (:func:`specs`, each with a ladder); when it proposes
  none, or the round found nothing new, :func:`reformulate` forms new ones by code: entity-only
  queries of the topic and sub-questions, then the relaxed forms of queries already run, then
  single name words — every form any earlier search already tried is skipped. An empty list
  means no new query can be formed (the ``no-progress`` stop).

All functions are pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ditto_nb.patterns.common.records import EvidenceItem, SearchSpec
from ditto_nb.patterns.common.relevance import bridge_candidates
from ditto_nb.patterns.common.report_records import CoverageItem
from ditto_nb.patterns.common.retrieval import comparison_entities, names_entity, question_entities
from ditto_nb.patterns.common.search_queries import build_queries, relaxations

Spec = SearchSpec
"""A search spec ``{"text", "fallbacks", "entity"}`` (:class:`~ditto_nb.patterns.common.records.SearchSpec`)."""


def _key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _entities(texts: Iterable[str]) -> list[str]:
    out: list[str] = []
    for text in texts:
        for entity in question_entities(text):
            if entity.lower() not in {e.lower() for e in out}:
                out.append(entity)
    return out


def _spec(text: str, entities: Sequence[str]) -> Spec:
    named = [e for e in entities if e.lower() in text.lower()]
    return {"text": text, "fallbacks": list(relaxations(text, entities)), "entity": named[0] if named else ""}


def first_round(question: str, sub_questions: Sequence[str], planned: Sequence[str], limit: int) -> list[Spec]:
    """Round one's search specs: entity-centred, each with its relaxation ladder.

    Args:
        question: the research topic.
        sub_questions: the plan's sub-questions (their entities join the topic's as fallbacks).
        planned: the plan's queries (then sub-questions), cleaned.
        limit: ``max_queries``.

    Returns:
        At most ``limit`` specs ``{"text", "fallbacks", "entity"}``.
    """
    entities = _entities([question, *sub_questions])
    out: list[Spec] = []
    for q in build_queries(question, planned, limit):
        names = [e for e in entities if e.lower() in q.text.lower()]
        ladder = list(dict.fromkeys([*q.fallbacks, *relaxations(q.text, entities)]))[:4]
        out.append({"text": q.text, "fallbacks": ladder, "entity": q.entity or (names[0] if names else "")})
    return out


def specs(texts: Sequence[str], question: str, sub_questions: Sequence[str]) -> list[Spec]:
    """Search specs for queries the assessment proposed (each with its relaxation ladder).

    Args:
        texts: query texts.
        question: the research topic.
        sub_questions: the plan's sub-questions.

    Returns:
        One spec per text.
    """
    return [_spec(t, _entities([t, question, *sub_questions])) for t in texts]


def reformulate(question: str, sub_questions: Sequence[str], tried: Iterable[str], limit: int) -> list[Spec]:
    """New queries formed by code, none of them tried before (see the module docstring).

    Args:
        question: the research topic.
        sub_questions: the plan's sub-questions.
        tried: every query form already sent (queries and their relaxed forms, any case).
        limit: ``max_queries``.

    Returns:
        At most ``limit`` specs; ``[]`` when no new query can be formed.
    """
    done = {_key(t) for t in tried}
    entities = _entities([question, *sub_questions])
    candidates: list[str] = list(entities)
    for text in [question, *sub_questions]:
        candidates += relaxations(text, entities)
    candidates += sorted({w for e in entities for w in e.split() if len(w) > 3 and w[0].isupper()},
                         key=lambda w: (-len(w), w))
    out: list[Spec] = []
    for text in candidates:
        if _key(text) in done or not _key(text):
            continue
        done.add(_key(text))
        out.append(_spec(text, entities))
        if len(out) >= limit:
            break
    return out


def bridge_specs(question: str, coverage: Sequence[CoverageItem], evidence: Sequence[EvidenceItem],
                 tried: Iterable[str], limit: int = 1) -> list[Spec]:
    """The second hop: names the evidence mentions that the topic does not, not searched yet.

    Args:
        question: the research topic.
        coverage: the round's coverage rows (nothing is proposed when no row is a ``gap``).
        evidence: evidence items, most relevant to the topic first (their ``text`` and ``title``).
        tried: every query form already sent.
        limit: most names.

    Returns:
        At most ``limit`` specs ``{"text": name, "fallbacks": [], "entity": name}``.
    """
    if not any(row.get("status") == "gap" for row in coverage):
        return []
    done = {_key(t) for t in tried}
    texts = [str(e.get("text", "")) for e in evidence]
    known = list(dict.fromkeys(str(e.get("title", "")) for e in evidence if e.get("title")))
    names = [n for n in bridge_candidates(question, texts, known, limit=limit + 4) if _key(n) not in done]
    return [{"text": n, "fallbacks": [], "entity": n} for n in names[:limit]]


def side_specs(question: str, evidence: Sequence[EvidenceItem], tried: Iterable[str]) -> list[Spec]:
    """A comparison's unread sides: each entity the topic compares
    (:func:`~ditto_nb.patterns.common.retrieval.comparison_entities`) that no evidence page's title
    names and that no earlier search sent as its own query, searched by title.

    Measured on 15 unseen topics: a comparison read one side's page in two rounds and reported the
    other side as a gap without ever searching its name.

    Args:
        question: the research topic.
        evidence: the accumulated evidence (``title``).
        tried: every query form already sent.

    Returns:
        Specs ``{"text": side, "fallbacks": [], "entity": side}``, in the topic's order.
    """
    done = {_key(t) for t in tried}
    titles = [str(e.get("title", "")) for e in evidence]
    return [{"text": side, "fallbacks": [], "entity": side} for side in comparison_entities(question)
            if _key(side) not in done and not any(names_entity(t, side) for t in titles)]


def leads(question: str, coverage: Sequence[CoverageItem], evidence: Sequence[EvidenceItem],
          tried: Iterable[str]) -> list[Spec]:
    """What the next round must search before anything else: a comparison's unread sides
    (:func:`side_specs`), then the second hop's name (:func:`bridge_specs`).

    Args:
        question: the research topic.
        coverage: the round's coverage rows.
        evidence: evidence items, most relevant to the topic first.
        tried: every query form already sent.

    Returns:
        Specs, sides first; ``[]`` when no lead remains.
    """
    tried = list(tried)
    return [*side_specs(question, evidence, tried), *bridge_specs(question, coverage, evidence, tried)]


def with_bridges(bridges: Sequence[Spec], rest: Sequence[Spec], limit: int) -> list[Spec]:
    """``bridges`` first, then ``rest`` without repeats, at most ``limit`` specs; a bridge that a
    query of ``rest`` already names is left out (that query's ladder ends at the name)."""
    named = [_key(spec["text"]) for spec in rest]
    hops = [b for b in bridges if not any(f" {_key(b['text'])} " in f" {text} " for text in named)]
    out: list[Spec] = []
    for spec in [*hops, *rest]:
        if _key(spec["text"]) not in {_key(o["text"]) for o in out}:
            out.append(spec)
    return out[:limit]


__all__ = ["Spec", "bridge_specs", "first_round", "leads", "reformulate", "side_specs", "specs", "with_bridges"]
