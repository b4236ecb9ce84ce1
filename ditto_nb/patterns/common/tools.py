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
  ``names`` (a second hop's candidate bridge names, best first): each is looked up as a page
  title (:func:`named_pages`); the pages titled by a name, not in ``seen``, come first, in the
  names' order, as a wiki link from the first page would lead to them. ``named`` lists them.
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
from ditto_nb.patterns.common.retrieval import title_key
from ditto_nb.patterns.common.search import SearchSetup
from ditto_nb.web.fetch import read_page
from ditto_nb.web.policy import origin_of
from ditto_nb.web.snapshots import SnapshotStore

Tool = Callable[..., Awaitable[Any]]


def _dump(hit: Any) -> SearchHit:
    if hasattr(hit, "model_dump"):
        return cast(SearchHit, dict(hit.model_dump(mode="json")))
    return cast(SearchHit, dict(hit))


MAX_NAMES = 10
"""Most names one search looks up as page titles (one provider request each)."""


def titled_by(title: str, name: str) -> bool:
    """Whether a page ``title`` is the page of ``name``: the same words once a parenthetical
    qualifier is dropped (``Drifting (motorsport)`` for "Drifting") or, for a place, once the
    part after its first comma is dropped (``Marion, South Australia`` for "Marion"), the
    convention of Wikipedia's titles."""
    key = title_key(name)
    return bool(key) and key in (title_key(title), title_key(title.split(",", 1)[0]))


async def named_pages(provider: Any, names: Sequence[str], seen: Sequence[str]) -> list[SearchHit]:
    """The pages titled by each name (:func:`titled_by`), in the names' order, none in ``seen``.

    Each name is one request: the provider's prefix search when it offers one (MediaWiki's
    ``list=prefixsearch``: a title index read, ~20 ms), else its title search, else its text
    search (a page titled by the name is usually among the first hits). A page titled exactly by
    the name is kept; else up to two qualified titles ("Marion, Arkansas", "Marion, South
    Australia"), for the reader's ranking to choose. At most :data:`MAX_NAMES` names; a provider
    error for one name skips that name (the lookup is an extra, as title search is).

    Args:
        provider: a search provider (``search``; ``search_prefix`` and ``search_titles`` optional).
        names: candidate names, best first.
        seen: URLs not to return (pages already read).

    Returns:
        Hits (JSON): per name, its exactly titled page or up to two qualified ones.
    """
    finder = getattr(provider, "search_prefix", None) or getattr(provider, "search_titles", None) or provider.search
    out: list[SearchHit] = []
    taken = set(seen)
    for name in list(dict.fromkeys(n for n in names if n.strip()))[:MAX_NAMES]:
        try:
            hits = [_dump(hit) for hit in await finder(name, 10)]
        except (SearchProviderError, InvalidRequest):
            continue
        titled = [h for h in hits if titled_by(str(h.get("title") or ""), name)]
        exact = [h for h in titled if title_key(str(h.get("title") or "")) == title_key(name)
                 and "(" not in str(h.get("title") or "")]
        for hit in (exact or titled)[:1 if exact else 2]:
            if hit["url"] not in taken:
                taken.add(hit["url"])
                out.append(hit)
    return out


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
        alternates: Sequence[str] = (), names: Sequence[str] = (),
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
        named = await named_pages(provider, names, seen) if names else []
        urls = {hit["url"] for hit in named}
        found = [h for h in found if h["url"] not in urls]
        urls |= {hit["url"] for hit in found}
        merged = named + found + [h for h in (_dump(hit) for hit in hits) if h["url"] not in urls]
        reply: SearchResult = {"ok": True, "query": query, "used": used, "tried": tried,
                               "hits": merged[:max(limit, len(named))]}
        if names:
            reply["named"] = [str(h.get("title") or "") for h in named]
        return reply

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
