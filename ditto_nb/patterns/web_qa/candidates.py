"""Choosing what a Web QA run reads and shows the model: candidate URLs (references, then search
hits ranked by :func:`ditto_nb.patterns.common.relevance.rank_hits`) and candidate chunks (BM25,
:func:`ditto_nb.evidence.bm25_rank`, mirrors kept once). Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from ditto_nb.evidence import Chunk, bm25_rank, chunks_from_page, dedupe_mirrors
from ditto_nb.patterns.common.records import ChunkRecord, OmittedItem, PageRecord
from ditto_nb.patterns.common.relevance import qualifier_asked, rank_hits
from ditto_nb.patterns.common.retrieval import comparison_entities, names_entity, question_entities, title_key
from ditto_nb.patterns.web_qa.stage_models import SearchedJson
from ditto_nb.patterns.web_qa.request import WebQaRequest
from ditto_nb.web.policy import origin_of

MAX_CANDIDATES = 8
"""Chunks shown to the selection call (BM25-ranked against the question and queries)."""


def candidate_urls(request: WebQaRequest, searched: SearchedJson, *, budget: int | None = None,
                   skip: frozenset[str] = frozenset(),
                   names: tuple[str, ...] = ()) -> tuple[list[str], list[OmittedItem]]:
    """URLs to read (references first, then hits ranked by relevance to the question) and omitted URLs.

    Hits are ordered by :func:`ditto_nb.patterns.common.relevance.rank_hits` (each query's best
    hit first, then BM25 of title and snippet against the question and its entities).

    Args:
        request: the request (``reference_urls``, ``allowed_origins``, ``max_pages``).
        searched: the ``searched`` stage output.
        budget: pages to read (default ``max_pages``).
        skip: URLs already read (not read again, not counted).
        names: extra entity names (a second hop's bridge) for ranking.

    Returns:
        ``(to_read, omitted)``; omitted entries are ``{"url", "reason"}`` with reason
        ``page-budget`` or ``origin-not-allowed``.
    """
    ordered: list[str] = []
    omitted: list[OmittedItem] = []
    seen: set[str] = set()

    def add(url: str) -> None:
        url = url.split("#", 1)[0]
        if url in seen:
            return
        seen.add(url)
        try:
            allowed = origin_of(url) in request.allowed_origins
        except Exception:
            allowed = False
        if not allowed:
            omitted.append({"url": url, "reason": "origin-not-allowed"})
        else:
            ordered.append(url)

    seen.update(skip)
    if not skip:
        for url in request.reference_urls:
            add(url)
    hit_lists = [list(r.get("hits") or []) for r in searched.get("results", [])]
    entities = [*question_entities(request.question), *names]
    for url in rank_hits(request.question, hit_lists, entities):
        add(url)
    limit = request.max_pages if budget is None else budget
    to_read = ordered[:limit]
    omitted += [{"url": url, "reason": "page-budget"} for url in ordered[limit:]]
    return to_read, omitted


def rank_candidates(
    question: str, queries: list[str], pages: list[PageRecord], limit: int = MAX_CANDIDATES
) -> tuple[list[ChunkRecord], list[OmittedItem]]:
    """Rank all chunks of the read pages with BM25 against the question and queries.

    Mirrored paragraphs (same normalized text on several pages) are kept once, as they count once
    as evidence anyway (SPEC §3).

    Args:
        question: the normalized question.
        queries: the query plan.
        pages: successful ``page_read`` outputs.
        limit: the most chunks kept (the selection call's budget).

    Returns:
        ``(candidates, omitted)``: at most ``limit`` chunk dicts (``Chunk.model_dump()``), best
        first (ties keep page/paragraph order; chunks matching no query word only when nothing
        matches); omitted entries are ``{"chunk_id", "reason", "score"}`` with reason ``mirror``,
        ``no-match`` or ``rank-budget``.
    """
    every: list[Chunk] = []
    for page in pages:
        every.extend(chunks_from_page(page))
    unique = dedupe_mirrors(list({c.chunk_id: c for c in every}.values()))
    kept_ids = {c.chunk_id for c in unique}
    omitted: list[OmittedItem] = [
        {"chunk_id": c.chunk_id, "reason": "mirror", "score": "0"} for c in every if c.chunk_id not in kept_ids
    ]
    ranked = bm25_rank(" ".join([question, *queries]), [c.text for c in unique])
    matching = [r for r in ranked if r.score > 0] or ranked
    chosen = matching[:limit]
    chosen_ids = {r.index for r in chosen}
    for r in ranked:
        if r.index not in chosen_ids:
            reason = "no-match" if r.score <= 0 else "rank-budget"
            omitted.append({"chunk_id": unique[r.index].chunk_id, "reason": reason, "score": f"{r.score:.2f}"})
    return [cast(ChunkRecord, unique[r.index].model_dump()) for r in chosen], omitted


def candidate_chunks(question: str, queries: list[str], pages: list[PageRecord]) -> list[ChunkRecord]:
    """The candidates of :func:`rank_candidates` (without the omission record)."""
    return rank_candidates(question, queries, pages)[0]


def _names_entity(chunk: ChunkRecord, entity: str, question: str) -> int:
    """3 when the chunk's page title is the entity with a qualifier the question asks for
    (``Alien (film)``), 2 when its title is the entity (``Alien (soundtrack)``), 1 when its text
    has all of the entity's words (of more than 2 letters), else 0."""
    title = str(chunk.get("title") or "")
    if title_key(title) == title_key(entity):
        return 3 if qualifier_asked(title, question) else 2
    return 1 if names_entity(f'{chunk.get("title") or ""} {chunk.get("text", "")}', entity) else 0


def compared_sides(question: str, candidates: Sequence[ChunkRecord], chosen: Sequence[str]) -> list[str]:
    """Chunk ids to add so that every entity a comparison question compares has a chunk.

    A small model's selection often keeps two chunks of one compared side and none of the other
    (measured on a real wiki: "Were Shirley Temple and Janet Waldo both American?" selected two
    Janet Waldo chunks); the answer then cannot quote both sides. For each compared entity
    (:func:`~ditto_nb.patterns.common.retrieval.comparison_entities`) that no chosen chunk names,
    the best-ranked candidate from the entity's own page (title match; a title whose qualifier the
    question asks for, ``Alien (film)``, before ``Alien (soundtrack)``) is added, else the
    best-ranked candidate whose text names it; a chosen chunk covers the entity when it names it
    as well (its own page when one is among the candidates). Not a comparison question: ``[]``.

    Args:
        question: the question as asked.
        candidates: the candidate chunks in rank order.
        chosen: chunk ids already chosen.

    Returns:
        Chunk ids to add, in the order of the compared entities (none already in ``chosen``).
    """
    by_id = {str(c["chunk_id"]): c for c in candidates}
    added: list[str] = []
    for entity in comparison_entities(question):
        scored = [(_names_entity(c, entity, question), -i, str(c["chunk_id"])) for i, c in enumerate(candidates)]
        best = max(scored, default=(0, 0, ""))
        # covered: a chosen chunk names the entity as well as the best candidate does
        if not best[0] or any(_names_entity(by_id[cid], entity, question) >= best[0]
                              for cid in [*chosen, *added] if cid in by_id):
            continue
        added.append(best[2])
    return added


__all__ = ["MAX_CANDIDATES", "candidate_chunks", "candidate_urls", "compared_sides", "rank_candidates"]
