"""Search queries for a wiki's AND search: entity-centred queries with a relaxation ladder, the
second hop's queries and the search tool's arguments (pure). Split from
:mod:`~ditto_nb.patterns.common.retrieval`, which finds the question's entities and ranks pages."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ditto_nb.evidence.rank import STOP_WORDS, bm25_rank, terms
from ditto_nb.patterns.common.retrieval import (NAME_WORD, PARENTHESIS, QUESTION_WORDS, clean_span, comparison_entities,
                                                question_entities)
from ditto_nb.text import normalize_text

MAX_FALLBACKS = 4
"""Most relaxed forms tried after a query (each is one more search request on zero hits)."""


@dataclass(frozen=True)
class SearchQuery:
    """One planned search with its relaxation ladder.

    Attributes:
        text: the query as first sent.
        fallbacks: relaxed forms tried in order while the previous form returned no hit.
        entity: the entity the query is built around ("" when none).
    """

    text: str
    fallbacks: tuple[str, ...] = ()
    entity: str = ""


def relaxations(query: str, entities: Sequence[str], limit: int = MAX_FALLBACKS) -> tuple[str, ...]:
    """The relaxation ladder of ``query`` for a search that ANDs its words.

    Order: the query without its descriptive words (only the words of the entities it names, and
    numbers); then each named entity alone (longest first); then each entity of the question that
    the query does not name. Forms equal to an earlier one are skipped.

    Args:
        query: the query text.
        entities: entities of the question (:func:`question_entities`).
        limit: most forms returned.

    Returns:
        Relaxed query strings, most specific first (never the query itself).
    """
    lower = query.lower()
    named = sorted((e for e in entities if e.lower() in lower), key=len, reverse=True)
    forms: list[str] = []
    if named:
        keep = {w.lower() for e in named for w in NAME_WORD.findall(e)}
        kept = [w for w in NAME_WORD.findall(query) if w.lower() in keep or w.isdigit()]
        forms.append(" ".join(kept))
    else:
        content = [w for w in NAME_WORD.findall(query) if w.lower() not in STOP_WORDS | QUESTION_WORDS and len(w) > 2]
        informative = sorted(content, key=lambda w: (not w[0].isupper(), -len(w)))
        for keep_count in (len(informative) - 1, 4, 2):
            if 1 < keep_count < len(informative) or (keep_count == len(informative) - 1 and keep_count >= 1):
                best = set(informative[:keep_count])
                forms.append(" ".join(w for w in content if w in best))
    forms += named + [e for e in entities if e not in named]
    out: list[str] = []
    for form in forms:
        form = normalize_text(form)
        if form and form.lower() != lower and form.lower() not in {o.lower() for o in out}:
            out.append(form)
    return tuple(out[:limit])


def build_queries(question: str, planned: Sequence[str], limit: int) -> list[SearchQuery]:
    """Entity-centred queries for the first hop: the model's plan plus the question's entities.

    A comparison question gets one query per compared entity (the entity alone). Otherwise: the
    question's most specific entity alone, then the planned queries (each with its relaxation
    ladder), then the other entities alone; duplicates dropped, cut at ``limit``.

    Args:
        question: the question as asked.
        planned: the plan call's queries (cleaned).
        limit: the most queries (the request's search budget for this hop).

    Returns:
        At most ``limit`` queries (at least one when ``limit`` ≥ 1).
    """
    entities = question_entities(question)
    compared = comparison_entities(question)
    queries: list[SearchQuery] = []
    if compared:
        for entity in compared[:limit]:
            queries.append(SearchQuery(entity, relaxations(entity, [PARENTHESIS.sub(" ", entity).strip()]), entity))
        return queries
    if entities:
        queries.append(SearchQuery(entities[0], relaxations(entities[0], entities), entities[0]))
    for text in planned:
        named = [e for e in entities if e.lower() in text.lower()]
        queries.append(SearchQuery(text, relaxations(text, entities), named[0] if named else ""))
    for entity in entities[1:]:
        queries.append(SearchQuery(entity, relaxations(entity, entities), entity))
    if not queries:
        queries = [SearchQuery(question[:200], relaxations(question[:200], entities))]
    seen: set[str] = set()
    unique = []
    for q in queries:
        if q.text.lower() not in seen:
            seen.add(q.text.lower())
            unique.append(q)
    return unique[:limit]


def hop_queries(bridge: Sequence[str], missing: Sequence[str], done: Sequence[str], limit: int) -> list[SearchQuery]:
    """Second-hop queries from what the selection call named (no extra model call).

    Each bridge entity becomes a query alone; then each missing facet (relaxed to the entities it
    names). Queries already sent in the first hop are skipped.

    Args:
        bridge: entity names the selection found in the chunks and said must be looked up next.
        missing: facets of the question the selection found unanswered.
        done: queries already sent (any case).
        limit: remaining search budget.

    Returns:
        At most ``limit`` queries.
    """
    sent = {d.lower() for d in done}
    out: list[SearchQuery] = []
    for name in bridge:
        name = clean_span(name)
        if name and name.lower() not in sent:
            inner = [e for e in question_entities(name) if e.lower() != name.lower()]
            out.append(SearchQuery(name, relaxations(name, inner), inner[0] if inner else name))
            sent.add(name.lower())
    for facet in missing:
        facet = clean_span(facet)
        names = question_entities(facet)
        if not facet or not names:
            continue
        text = names[0]
        if text.lower() not in sent:
            out.append(SearchQuery(text, relaxations(text, names[1:]), text))
            sent.add(text.lower())
    return out[:limit]


def search_args(query: str, limit: int) -> dict[str, object]:
    """``web_search`` tool arguments for a free-standing query (e.g. a research round's): the
    query, its relaxation ladder over the entities it names, and its first entity as title.

    Args:
        query: the query text.
        limit: hits wanted.

    Returns:
        ``{"query", "limit"}`` plus ``"fallbacks"`` and ``"title"`` when the query names an entity
        or has words to drop.
    """
    entities = question_entities(query)
    args: dict[str, object] = {"query": query, "limit": limit}
    fallbacks = relaxations(query, entities)
    if fallbacks:
        args["fallbacks"] = list(fallbacks)
    if entities:
        args["title"] = entities[0]
    return args


__all__ = ["MAX_FALLBACKS", "SearchQuery", "build_queries", "hop_queries", "relaxations", "search_args"]
