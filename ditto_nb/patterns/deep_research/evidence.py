"""Research evidence: accumulation across rounds, the 48,000-character cap, report selection.

Evidence items are :class:`ditto_nb.evidence.chunks.Chunk` dumps plus a short evidence id
(``E1``, ``E2``, ... in order of accumulation) that small models can copy reliably. Mirrored
paragraphs (same normalized text) count once. All functions here are pure.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import cast

from ditto_nb.evidence.chunks import chunks_from_page
from ditto_nb.evidence.rank import bm25_rank
from ditto_nb.patterns.common.records import EvidenceItem, OmittedItem, PageRecord, PromptEvidence
from ditto_nb.patterns.common.report_records import CoverageItem
from ditto_nb.patterns.common.retrieval import question_entities, title_key

EVIDENCE_CHAR_CAP = 48_000
"""Maximum serialized characters (compact JSON) of the accumulated evidence (SPEC §4)."""

MAX_CITED_CHUNKS = 8
"""Maximum chunks the final report cites (SPEC §4)."""

PROMPT_EVIDENCE_CHARS = 2_400
"""Characters of evidence text shown to the model in one call (small local models)."""


def serialized_size(item: EvidenceItem) -> int:
    """Characters of one evidence item as compact JSON.

    Args:
        item: an evidence item.

    Returns:
        ``len(json.dumps(item, separators=(",", ":"), ensure_ascii=False))``.
    """
    return len(json.dumps(item, separators=(",", ":"), ensure_ascii=False, sort_keys=True))


def accumulate(
    evidence: Sequence[EvidenceItem],
    pages: Iterable[PageRecord],
    round_number: int,
    cap: int = EVIDENCE_CHAR_CAP,
) -> tuple[list[EvidenceItem], list[OmittedItem], int]:
    """Add the chunks of newly read pages to the evidence, deduplicated and capped.

    Args:
        evidence: the evidence so far (kept unchanged, first).
        pages: page records of this round (``page_read`` outputs; failed pages are skipped).
        round_number: 1-based round that found the chunks.
        cap: the serialized character cap of the whole evidence.

    Returns:
        ``(evidence, omitted, new_count)``: the new evidence list, the chunks left out by the cap
        (``id``-less, with ``reason``), and how many distinct new chunks were added.
    """
    out = [item.copy() for item in evidence]
    seen = {item["text"] for item in out}
    used = sum(serialized_size(item) for item in out)
    omitted: list[OmittedItem] = []
    added = 0
    for page in pages:
        if page.get("failure") or not page.get("sha256"):
            continue
        for chunk in chunks_from_page(page):
            if chunk.text in seen:
                continue
            seen.add(chunk.text)
            item = cast(EvidenceItem, chunk.model_dump())
            item["id"] = f"E{len(out) + 1}"
            item["round"] = round_number
            size = serialized_size(item)
            if used + size > cap:
                omitted.append(
                    {"chunk_id": chunk.chunk_id, "final_url": chunk.final_url, "chars": size, "reason": "evidence-cap"}
                )
                continue
            used += size
            out.append(item)
            added += 1
    return out, omitted, added


def entity_pages(evidence: Sequence[EvidenceItem], text: str) -> list[str]:
    """Ids of the evidence from pages whose title matches an entity ``text`` names.

    Titles match on :func:`~ditto_nb.patterns.common.retrieval.title_key` (case, spacing and a
    parenthetical qualifier such as ``(film)`` ignored); entities are
    :func:`~ditto_nb.patterns.common.retrieval.question_entities` of ``text``.

    Args:
        evidence: evidence items (``id``, ``title``).
        text: a sub-question (or the topic).

    Returns:
        Matching ids in accumulation order (``[]`` when ``text`` names no entity with a page).
    """
    keys = {title_key(e) for e in question_entities(text)}
    return [str(item["id"]) for item in evidence if keys and title_key(str(item.get("title", ""))) in keys]


def rank(evidence: Sequence[EvidenceItem], texts: Iterable[str]) -> list[EvidenceItem]:
    """Order evidence: pages whose title is an entity named by ``texts`` first, then by BM25
    against ``texts`` (:func:`ditto_nb.evidence.bm25_rank`, the one ranking of the kit; ties keep
    accumulation order).

    Args:
        evidence: evidence items.
        texts: the topic, sub-questions and queries.

    Returns:
        The items, entity pages first, then best first.
    """
    texts = list(texts)
    own = {eid for text in texts for eid in entity_pages(evidence, text)}
    ranked = bm25_rank(" ".join(texts), [f"{item['text']} {item.get('title', '')}" for item in evidence])
    ranked.sort(key=lambda r: str(evidence[r.index]["id"]) not in own)  # stable: BM25 order within each group
    return [evidence[r.index].copy() for r in ranked]


def prompt_view(items: Sequence[EvidenceItem], limit_chars: int = PROMPT_EVIDENCE_CHARS) -> list[PromptEvidence]:
    """The part of ``items`` shown to the model: ``id``, ``origin``, ``text``, within a char limit.

    Args:
        items: evidence items in priority order.
        limit_chars: total text characters allowed.

    Returns:
        Items ``{"id", "origin", "text"}``; at least one when ``items`` is not empty.
    """
    out: list[PromptEvidence] = []
    used = 0
    for item in items:
        size = len(str(item["text"]))
        if out and used + size > limit_chars:
            break
        used += size
        out.append({"id": item["id"], "origin": item["origin"], "text": item["text"]})
    return out


def select_for_report(
    evidence: Sequence[EvidenceItem],
    coverage: Sequence[CoverageItem],
    texts: Iterable[str],
    limit: int = MAX_CITED_CHUNKS,
) -> tuple[list[EvidenceItem], list[OmittedItem]]:
    """Pick the chunks the report may cite, in priority order: per sub-question (round-robin),
    evidence from the page whose title is the entity it names, then the assessed evidence; then
    the rest by relevance (:func:`rank`).

    Args:
        evidence: the accumulated evidence.
        coverage: the last assessment's items (``evidence_ids``).
        texts: topic and sub-questions, for ranking the rest.
        limit: at most this many chunks (eight by SPEC §4).

    Returns:
        ``(selected, left_out)``: ``selected`` in priority order; ``left_out`` items are ``{"id", "chunk_id", "final_url",
        "reason": "chunk-cap"}`` for every evidence item not selected.
    """
    by_id = {str(item["id"]): item for item in evidence}
    ordered: list[str] = []
    # Round-robin over sub-questions so every covered or conflicting one keeps its evidence.
    lists = [list(dict.fromkeys([*entity_pages(evidence, str(row.get("question", ""))),
                                 *(str(e) for e in row.get("evidence_ids", []) if str(e) in by_id)]))
             for row in coverage]
    depth = max((len(ids) for ids in lists), default=0)
    for level in range(depth):
        for ids in lists:
            if level < len(ids) and ids[level] not in ordered:
                ordered.append(ids[level])
    for item in rank(evidence, texts):
        if str(item["id"]) not in ordered:
            ordered.append(str(item["id"]))
    chosen = set(ordered[:limit])
    selected = [by_id[eid].copy() for eid in ordered[:limit]]
    left_out: list[OmittedItem] = [
        {"id": item["id"], "chunk_id": item["chunk_id"], "final_url": item["final_url"], "reason": "chunk-cap"}
        for item in evidence
        if str(item["id"]) not in chosen
    ]
    return selected, left_out


__all__ = [
    "EVIDENCE_CHAR_CAP",
    "MAX_CITED_CHUNKS",
    "PROMPT_EVIDENCE_CHARS",
    "accumulate",
    "entity_pages",
    "prompt_view",
    "rank",
    "select_for_report",
    "serialized_size",
]
