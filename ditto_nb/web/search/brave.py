"""Brave Search API provider (whole web; needs an API key).

Source: https://api-dashboard.search.brave.com/docs — ``GET /res/v1/web/search?q=..&count=..
&offset=..`` with header ``X-Subscription-Token``; the reply's ``web.results[]`` carry
``title``, ``url`` and ``description`` (HTML with ``<strong>`` highlights). A reply without
``web`` (e.g. ``{"type": "search"}``) or with ``"web": null`` means no web results.

Requests use the pinned transport of :mod:`ditto_nb.web.transport` (resolve once, check the
address, connect only there) under a :class:`NetworkPolicy`; without a policy, one allowing
only the endpoint's origin is used.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import httpx
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from ditto_nb.errors import ConfigError, InvalidURL, SearchProviderError
from ditto_nb.web.policy import NetworkPolicy, host_and_port, origin_of
from ditto_nb.web.search.base import SearchHit, check_search_args, strip_html
from ditto_nb.web.transport import build_client, resolve_address

BRAVE_ENDPOINT = "https://api.search.brave.com/res/v1/web/search"
MAX_COUNT = 20  # Brave's largest page (count) per request
MAX_OFFSET = 9  # Brave's largest page offset


class _Retry(Exception):
    def __init__(self, response_status: int) -> None:
        super().__init__(f"HTTP {response_status}")
        self.status = response_status


class BraveProvider:
    """Web search through the Brave Search API.

    Args:
        api_key: the subscription token (sent as ``X-Subscription-Token``; never logged).
        policy: network policy; None → a default policy allowing only the endpoint's origin.
        endpoint: the web-search endpoint URL.

    Raises:
        ConfigError: empty API key.
    """

    name = "brave"

    def __init__(self, api_key: str, policy: NetworkPolicy | None = None, endpoint: str = BRAVE_ENDPOINT) -> None:
        if not api_key:
            raise ConfigError("Brave search needs an API key (set BRAVE_API_KEY)")
        self._api_key = api_key
        self.endpoint = endpoint
        self.policy = policy if policy is not None else NetworkPolicy(allowed_origins=(origin_of(endpoint),))

    def __repr__(self) -> str:
        return f"BraveProvider(endpoint={self.endpoint!r})"

    async def _get(self, params: dict[str, str]) -> dict[str, Any]:
        url = f"{self.endpoint}?{urlencode(params)}"
        self.policy.check_url(url)
        host, port = host_and_port(url)
        client, backend = build_client(self.policy)
        headers = {"accept": "application/json", "x-subscription-token": self._api_key}
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.policy.retries + 1),
            wait=wait_exponential(multiplier=self.policy.backoff_seconds, max=self.policy.max_retry_after_seconds),
            retry=retry_if_exception_type((_Retry, httpx.ConnectError, httpx.ConnectTimeout)),
            reraise=True,
        )
        try:
            async with client:
                backend.pins[host] = await resolve_address(host, port, self.policy)
                async for attempt in retrying:
                    with attempt:
                        response = await client.get(url, headers=headers)
                        if response.status_code in (429, 503):
                            raise _Retry(response.status_code)
        except _Retry as exc:
            raise SearchProviderError(f"Brave search answered HTTP {exc.status}", retryable=True) from exc
        except httpx.HTTPError as exc:
            raise SearchProviderError(f"Brave search request failed: {type(exc).__name__}: {exc}") from exc
        if response.status_code != 200:
            raise SearchProviderError(
                f"Brave search answered HTTP {response.status_code}",
                retryable=response.status_code >= 500,
                help="Check BRAVE_API_KEY and the plan's rate limit." if response.status_code in (401, 403) else None,
            )
        if len(response.content) > self.policy.max_body_bytes:
            raise SearchProviderError("Brave search reply exceeds max_body_bytes", retryable=False)
        try:
            reply = json.loads(response.content)
        except ValueError as exc:
            raise SearchProviderError("Brave search reply is not JSON", retryable=False) from exc
        if not isinstance(reply, dict):
            raise SearchProviderError("Brave search reply is not a JSON object", retryable=False)
        return reply

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """Search the web; page with ``offset`` when ``limit`` exceeds 20.

        Args:
            query: search text.
            limit: most hits to return (1–100).

        Returns:
            Hits ranked 1..n (duplicate URLs dropped); ``[]`` when the reply has no web results.

        Raises:
            InvalidRequest: blank query or bad limit.
            SearchProviderError: transport failure, HTTP status other than 200 (401/403: bad
                key; 429: rate limit), or a non-JSON reply.
            PolicyViolation: the endpoint's origin or address is refused.
        """
        query = check_search_args(query, limit)
        count = min(limit, MAX_COUNT)
        hits: list[SearchHit] = []
        seen: set[str] = set()
        for offset in range(MAX_OFFSET + 1):
            reply = await self._get({"q": query, "count": str(count), "offset": str(offset)})
            web = reply.get("web")
            results = web.get("results") if isinstance(web, dict) else None
            if not isinstance(results, list) or not results:
                break
            for item in results:
                hit = self._hit(query, item, len(hits) + 1)
                if hit is not None and hit.url not in seen and len(hits) < limit:
                    seen.add(hit.url)
                    hits.append(hit)
            more = reply.get("query", {}).get("more_results_available") if isinstance(reply.get("query"), dict) else None
            if len(hits) >= limit or len(results) < count or more is False:
                break
        return hits

    def _hit(self, query: str, item: Any, rank: int) -> SearchHit | None:
        if not isinstance(item, dict) or not isinstance(item.get("url"), str):
            return None
        url = item["url"]
        try:
            origin = origin_of(url)
        except InvalidURL:
            return None
        title = item.get("title") if isinstance(item.get("title"), str) else ""
        description = item.get("description") if isinstance(item.get("description"), str) else ""
        return SearchHit(
            query=query,
            rank=rank,
            title=strip_html(title) or url,
            url=url,
            origin=origin,
            snippet=strip_html(description),
            provider=self.name,
        )


__all__ = ["BRAVE_ENDPOINT", "BraveProvider"]
