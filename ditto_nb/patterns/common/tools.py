"""Tool adapters registered in the Interaction Worker (every I/O of a pattern goes here).

:func:`build_task_tools` returns ``{name: async tool}`` for one task:

- ``web_search(query, limit, fallbacks=(), title=None, seen=(), alternates=())`` → ``{"ok",
  "query", "used", "tried", "hits": [...], "failure"?, "error"?}``; hits are discovery metadata
  only (``discovery_only=True``), never evidence. ``fallbacks`` are relaxed forms of the query
  tried in order while a form returns no hit (a wiki's search ANDs the words, see
  :mod:`ditto_nb.patterns.common.retrieval`); ``used`` is the form whose hits are returned.
  ``alternates`` (a second hop's other bridge names) are tried in order, as they are, when every
  hit so far is a URL in ``seen`` (pages already read); the first that finds a new page is used.
  ``title``: when the provider offers title search (``search_titles``), pages whose title
  matches it come first (a provider error there is ignored: title search is an extra).
- ``page_read(url)`` → ``read_page`` under the task's NetworkPolicy, snapshot stored; returns
  ``{"ok": True, "url", "final_url", "origin", "title", "fetched_at", "sha256", "status",
  "paragraphs"}`` or a per-source failure ``{"ok": False, "url", "failure", "error"}``.
- ``snapshot_check(sha256s)`` → re-hash each snapshot; ``SnapshotCorrupted``.
- ``policy_check(origins)`` → every origin still allowed; ``PermissionRevoked``.
- ``verify_quotes(citations, chunks)`` → loads the cited snapshots (re-hash), rebuilds the chunks
  from the stored paragraphs and locates each quote in its cited chunk.
- ``publish(report, markdown)`` → :func:`~ditto_nb.patterns.common.publish.publish_report`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from ditto_nb.errors import InvalidRequest, InvalidURL, PermissionRevoked, PolicyViolation, RedirectLimit, SearchProviderError
from ditto_nb.evidence import Chunk, chunks_from_page, verify_quote
from ditto_nb.patterns.common.publish import publish_report
from ditto_nb.patterns.common.records import (
    CitationRef,
    EvidenceItem,
    PageRecord,
    PublishedFiles,
    QuoteResult,
    SearchHit,
    SearchResult,
)
from ditto_nb.patterns.common.search import SearchSetup
from ditto_nb.web.fetch import read_page
from ditto_nb.web.policy import origin_of
from ditto_nb.web.snapshots import SnapshotStore

Tool = Callable[..., Awaitable[Any]]


def _dump(hit: Any) -> SearchHit:
    if hasattr(hit, "model_dump"):
        return cast(SearchHit, dict(hit.model_dump(mode="json")))
    return cast(SearchHit, dict(hit))


def check_quotes(
    citations: Sequence[CitationRef], chunks: Mapping[str, Chunk]
) -> list[QuoteResult]:
    """Verify citations against chunks and return JSON results.

    Args:
        citations: ``[{"chunk_id", "quote"}, ...]``.
        chunks: citable chunks by id.

    Returns:
        One dict per citation: ``chunk_id, quote, ok, reason, location`` (``{"paragraph_index",
        "start", "end", "quote"}`` or None), ``origin``, ``final_url``, ``title``, ``fetched_at``,
        ``sha256`` and ``paragraph_text`` (the cited chunk's text, "" if unknown).
    """
    out: list[QuoteResult] = []
    for citation in citations:
        check = verify_quote(str(citation.get("chunk_id", "")), str(citation.get("quote", "")), chunks)
        chunk = check.chunk
        out.append(
            {
                "chunk_id": check.chunk_id,
                "quote": check.quote,
                "ok": check.ok,
                "reason": check.reason,
                "location": None
                if check.location is None
                else {
                    "paragraph_index": check.location.paragraph_index,
                    "start": check.location.start,
                    "end": check.location.end,
                    "quote": check.location.quote,
                },
                "origin": chunk.origin if chunk else None,
                "final_url": chunk.final_url if chunk else None,
                "title": chunk.title if chunk else None,
                "fetched_at": chunk.fetched_at if chunk else None,
                "sha256": chunk.sha256 if chunk else None,
                "paragraph_text": chunk.text if chunk else "",
            }
        )
    return out


def build_task_tools(
    directory: str | os.PathLike[str],
    allowed_origins: Sequence[str],
    search: SearchSetup,
    *,
    provider: Any | None = None,
) -> dict[str, Tool]:
    """Build the tools of one task.

    Args:
        directory: the task directory (snapshots in ``snapshots/``, outputs in ``output/``).
        allowed_origins: the request's allowed origins (trusted controller input).
        search: provider choice and policy extras; its ``permitted_origins`` is the current grant.
        provider: an already-built search provider (default: ``search.build_provider()``,
            built lazily on the first search).

    Returns:
        ``{tool name: async callable}`` (see the module docstring).
    """
    task_dir = Path(directory)
    store = SnapshotStore(task_dir)
    policy = search.page_policy(tuple(allowed_origins))
    allowed = set(policy.allowed_origins)

    async def web_search(
        query: str, limit: int, fallbacks: Sequence[str] = (), title: str | None = None, seen: Sequence[str] = (),
        alternates: Sequence[str] = (),
    ) -> SearchResult:
        nonlocal provider
        if provider is None:
            provider = search.build_provider()
        found: list[SearchHit] = []
        finder = getattr(provider, "search_titles", None)
        if title and finder is not None:
            try:
                found = [_dump(hit) for hit in await finder(title, min(limit, 3))]
            except (SearchProviderError, InvalidRequest):
                found = []
        tried: list[str] = []
        hits: list[Any] = []
        for form in [query, *fallbacks]:
            tried.append(form)
            try:
                hits = await provider.search(form, limit)
            except SearchProviderError as exc:
                if len(tried) == 1:
                    return {"ok": False, "query": query, "used": form, "tried": tried, "hits": [],
                            "failure": "search-provider", "error": str(exc)}
                break
            if hits:
                break
        used = tried[-1]
        old = set(seen)
        if alternates and not any(h["url"] not in old for h in found) and not any(h.url not in old for h in hits):
            for form in alternates:  # nothing new: the next name, as it is (no relaxation, no title search)
                tried.append(form)
                try:
                    result = await provider.search(form, limit)
                except SearchProviderError:
                    break
                if any(h.url not in old for h in result):
                    hits, used, found = result, form, []
                    break
        urls = {hit["url"] for hit in found}
        merged = found + [h for h in (_dump(hit) for hit in hits) if h["url"] not in urls]
        return {"ok": True, "query": query, "used": used, "tried": tried, "hits": merged[:limit]}

    async def page_read(url: str) -> PageRecord:
        try:
            page = await read_page(url, policy=policy)
        except (PolicyViolation, InvalidURL, RedirectLimit) as exc:
            return {"ok": False, "url": url, "failure": type(exc).__name__, "error": str(exc)}
        if page.failure:
            return {"ok": False, "url": url, "failure": page.failure, "error": f"read failed: {page.failure}"}
        if not page.paragraphs:
            return {"ok": False, "url": url, "failure": "no-text", "error": "no paragraphs were extracted"}
        sha = await asyncio.to_thread(store.put, page)
        return {
            "ok": True,
            "url": url,
            "final_url": page.final_url,
            "origin": origin_of(page.final_url),
            "title": page.title or "",
            "fetched_at": page.fetched_at,
            "sha256": sha,
            "status": page.status,
            "paragraphs": list(page.paragraphs),
        }

    async def snapshot_check(sha256s: Sequence[str]) -> dict[str, int]:
        for sha in sha256s:
            await asyncio.to_thread(store.verify, sha)
        return {"verified": len(sha256s)}

    async def policy_check(origins: Sequence[str]) -> dict[str, int]:
        revoked = sorted(origin for origin in origins if origin not in allowed)
        if revoked:
            raise PermissionRevoked(f"origins used by this task are no longer allowed: {', '.join(revoked)}")
        return {"checked": len(origins)}

    async def verify_quotes(
        citations: Sequence[CitationRef], chunks: Sequence[EvidenceItem]
    ) -> list[QuoteResult]:
        wanted = {str(c["chunk_id"]) for c in chunks}
        by_sha: dict[str, list[EvidenceItem]] = {}
        for chunk in chunks:
            by_sha.setdefault(str(chunk["sha256"]), []).append(chunk)
        citable: dict[str, Chunk] = {}
        for sha, members in by_sha.items():
            snapshot = await asyncio.to_thread(store.load, sha)
            first = members[0]
            page = {
                "url": first.get("url") or snapshot.requested_url,
                "final_url": snapshot.final_url,
                "title": snapshot.title or "",
                "fetched_at": snapshot.fetched_at,
                "sha256": snapshot.sha256,
                "paragraphs": snapshot.paragraphs,
            }
            for stored in chunks_from_page(page):
                if stored.chunk_id in wanted:
                    citable[stored.chunk_id] = stored
        return check_quotes(citations, citable)

    async def publish(report: Mapping[str, object], markdown: str) -> PublishedFiles:
        return await asyncio.to_thread(publish_report, task_dir, report, markdown)

    return {
        "web_search": web_search,
        "page_read": page_read,
        "snapshot_check": snapshot_check,
        "policy_check": policy_check,
        "verify_quotes": verify_quotes,
        "publish": publish,
    }


__all__ = ["Tool", "build_task_tools", "check_quotes"]
