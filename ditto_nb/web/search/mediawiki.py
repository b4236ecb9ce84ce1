"""MediaWiki Action API search provider (``action=query&list=search``).

Source: https://www.mediawiki.org/wiki/API:Search. Works with any MediaWiki (Wikipedia, a
company wiki, the offline sandbox). Requests go through the policy-checked
:func:`ditto_nb.web.fetch.fetch` (pinned connections, allowed origins, body cap, retries).
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from ditto_nb.errors import FetchError, InvalidURL, SearchProviderError
from ditto_nb.web.fetch import fetch
from ditto_nb.web.policy import NetworkPolicy, origin_of
from ditto_nb.web.search.base import SearchHit, check_search_args, strip_html

logger = logging.getLogger(__name__)

JSON_TYPES = ("application/json", "text/javascript")
MAX_REQUESTS = 20


TITLE_POOL = 20
"""Titles asked of a title search before the shortest are kept (the backends do not rank them)."""


class MediaWikiProvider:
    """Full-text search through a MediaWiki ``api.php``.

    Args:
        api_url: the ``api.php`` URL, e.g. ``https://en.wikipedia.org/w/api.php``.
        policy: the network policy the requests obey (the API's origin must be allowed).
        page_size: ``srlimit`` per request (1–500); continuation (``sroffset``) fetches more
            pages until ``limit`` hits are collected or the wiki has no more.
    """

    name = "mediawiki"

    def __init__(self, api_url: str, policy: NetworkPolicy, *, page_size: int = 20) -> None:
        origin_of(api_url)
        if not 1 <= page_size <= 500:
            raise ValueError("page_size must be between 1 and 500")
        self.api_url = api_url
        self.policy = policy
        self.page_size = page_size
        parts = urlsplit(api_url)
        self._site = f"{parts.scheme}://{parts.netloc}"

    def page_url(self, title: str) -> str:
        """Return ``<scheme://host:port>/wiki/<Title_with_underscores>`` (percent-quoted).

        Args:
            title: a page title.

        Returns:
            The article URL on this wiki.
        """
        return f"{self._site}/wiki/{quote(title.replace(' ', '_'), safe='/:(),_-.!~*')}"

    async def _request(self, query: str, limit: int, offset: int, what: str = "text") -> dict[str, Any]:
        return await self._api({
            "action": "query",
            "list": "search",
            "srsearch": query,
            "srwhat": what,
            "srlimit": str(limit),
            "sroffset": str(offset),
            "format": "json",
        })

    async def _api(self, params: dict[str, str]) -> dict[str, Any]:
        url = f"{self.api_url}?{urlencode(params)}"
        try:
            raw = await fetch(url, self.policy, accept="application/json", content_types=JSON_TYPES)
        except FetchError as exc:
            raise SearchProviderError(f"MediaWiki search failed ({exc.failure}): {exc}", retryable=exc.retryable) from exc
        if raw.status != 200:
            raise SearchProviderError(
                f"MediaWiki search answered HTTP {raw.status} ({self.api_url})",
                retryable=raw.status in (429, 500, 502, 503, 504),
            )
        try:
            reply = json.loads(raw.body)
        except (ValueError, UnicodeDecodeError) as exc:
            raise SearchProviderError(f"MediaWiki search reply is not JSON ({self.api_url})", retryable=False) from exc
        if not isinstance(reply, dict):
            raise SearchProviderError("MediaWiki search reply is not a JSON object", retryable=False)
        error = reply.get("error")
        if isinstance(error, dict):
            raise SearchProviderError(
                f"MediaWiki API error {error.get('code', '?')}: {error.get('info', '')}", retryable=False
            )
        return reply

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """Search the wiki; follow ``continue.sroffset`` until ``limit`` hits or no more.

        Args:
            query: search text.
            limit: most hits to return (1–100).

        Returns:
            Hits ranked 1..n (duplicates by URL dropped); ``[]`` for a search with no result.

        Raises:
            InvalidRequest: blank query or bad limit.
            SearchProviderError: the first request failed (transport, HTTP status, non-JSON,
                API error). A later page failing ends the merge with the hits gathered so far.
            PolicyViolation: the API origin is not allowed (raised unchanged).
        """
        query = check_search_args(query, limit)
        hits: list[SearchHit] = []
        seen: set[str] = set()
        offset = 0
        for number in range(MAX_REQUESTS):
            try:
                reply = await self._request(query, min(self.page_size, limit - len(hits)), offset)
            except SearchProviderError:
                if number == 0:
                    raise
                logger.warning("MediaWiki continuation failed at offset %d; keeping %d hits", offset, len(hits))
                break
            block = reply.get("query")
            results = block.get("search") if isinstance(block, dict) else None
            for item in results if isinstance(results, list) else []:
                hit = self._hit(query, item, len(hits) + 1)
                if hit is not None and hit.url not in seen and len(hits) < limit:
                    seen.add(hit.url)
                    hits.append(hit)
            follow = reply.get("continue")
            next_offset = follow.get("sroffset") if isinstance(follow, dict) else None
            if len(hits) >= limit or not isinstance(next_offset, int) or next_offset <= offset:
                break
            offset = next_offset
        return hits

    async def search_titles(self, query: str, limit: int) -> list[SearchHit]:
        """Search page titles only (``srwhat=title``, one request, no continuation).

        Title search is offered by MediaWiki's database backends (MySQL, SQLite); Wikipedia's
        CirrusSearch answers it with an API error, raised here like any other. Those backends
        return matching titles unranked, so up to :data:`TITLE_POOL` are asked for and the
        shortest titles (fewest words) come first, in the wiki's order among equals: the main
        article before its sub-pages ("Vermont Catamounts men's soccer" before "2010–11 Vermont
        Catamounts men's basketball team"; measured on the real wiki, three of those seasons were
        returned and the main article was not).

        Args:
            query: title words.
            limit: most hits (1–100).

        Returns:
            Hits ranked 1..n; ``[]`` when no title matches.

        Raises:
            InvalidRequest: blank query or bad limit.
            SearchProviderError: the request failed or the wiki does not offer title search.
        """
        query = check_search_args(query, limit)
        reply = await self._request(query, max(limit, TITLE_POOL), 0, what="title")
        hits = self._listed(query, reply, "search")
        hits.sort(key=lambda h: (len(h.title.split()), h.rank))
        return [h.model_copy(update={"rank": rank}) for rank, h in enumerate(hits[:limit], start=1)]

    async def search_prefix(self, prefix: str, limit: int) -> list[SearchHit]:
        """The pages whose title starts with ``prefix`` (``list=prefixsearch``, one request).

        MediaWiki's prefix search (https://www.mediawiki.org/wiki/API:Prefixsearch) reads the
        title index: on the Debian wiki it answers in ~20 ms where a title search
        (``srwhat=title``) took ~700 ms, and Wikipedia offers it too. It finds a name's own page
        under a qualified title ("Marion" → "Marion, South Australia"; "Drifting" → "Drifting
        (motorsport)").

        Args:
            prefix: the start of a title.
            limit: most hits (1–100).

        Returns:
            Hits ranked 1..n in the wiki's order (no snippet); ``[]`` when no title starts so.

        Raises:
            InvalidRequest: blank prefix or bad limit.
            SearchProviderError: the request failed.
        """
        prefix = check_search_args(prefix, limit)
        reply = await self._api({"action": "query", "list": "prefixsearch", "pssearch": prefix,
                                 "pslimit": str(limit), "format": "json"})
        return self._listed(prefix, reply, "prefixsearch")

    def _listed(self, query: str, reply: dict[str, Any], name: str) -> list[SearchHit]:
        """The hits of one reply's ``query.<name>`` list, ranked 1..n in its order, URLs once."""
        block = reply.get("query")
        results = block.get(name) if isinstance(block, dict) else None
        hits: list[SearchHit] = []
        for item in results if isinstance(results, list) else []:
            hit = self._hit(query, item, len(hits) + 1)
            if hit is not None and hit.url not in {h.url for h in hits}:
                hits.append(hit)
        return hits

    def _hit(self, query: str, item: Any, rank: int) -> SearchHit | None:
        if not isinstance(item, dict) or not isinstance(item.get("title"), str) or not item["title"]:
            return None
        title = item["title"]
        url = item.get("fullurl") if isinstance(item.get("fullurl"), str) else None
        url = url or self.page_url(title)
        try:
            origin = origin_of(url)
        except InvalidURL:
            return None
        snippet = item.get("snippet") if isinstance(item.get("snippet"), str) else ""
        return SearchHit(
            query=query,
            rank=rank,
            title=strip_html(title),
            url=url,
            origin=origin,
            snippet=strip_html(snippet),
            provider=self.name,
        )


__all__ = ["TITLE_POOL", "MediaWikiProvider"]
