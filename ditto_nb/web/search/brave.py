"""Brave Search API provider (whole web; needs an API key).

Source: https://api-dashboard.search.brave.com/docs — ``GET /res/v1/web/search?q=..&count=..
&offset=..`` with header ``X-Subscription-Token``; the reply's ``web.results[]`` carry
``title``, ``url`` and ``description`` (HTML with ``<strong>`` highlights). A reply without
``web`` (e.g. ``{"type": "search"}``) or with ``"web": null`` means no web results.

Requests go through the policy-checked :func:`ditto_nb.web.fetch.fetch` (pinned connections,
allowed origins, the streaming body cap, the wall-clock deadline, retries of 429/503 honouring
``Retry-After``) under a :class:`NetworkPolicy`; without a policy, one allowing only the
endpoint's origin is used. The key is never sent to a redirect target on another origin.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from ditto_nb.errors import ConfigError, FetchError, InvalidURL, RedirectLimit, SearchProviderError
from ditto_nb.web.fetch import fetch
from ditto_nb.web.policy import NetworkPolicy, origin_of
from ditto_nb.web.search.base import SearchHit, check_search_args, strip_html

BRAVE_ENDPOINT = "https://api.search.brave.com/res/v1/web/search"
MAX_COUNT = 20  # Brave's largest page (count) per request
MAX_OFFSET = 9  # Brave's largest page offset


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
        try:
            raw = await fetch(
                url, self.policy, accept="application/json", headers={"x-subscription-token": self._api_key}
            )
        except FetchError as exc:
            raise SearchProviderError(
                f"Brave search request failed ({exc.failure}): {exc}", retryable=exc.retryable
            ) from exc
        except (RedirectLimit, InvalidURL) as exc:
            raise SearchProviderError(f"Brave search request failed: {exc}", retryable=False) from exc
        if raw.status in (429, 503):
            raise SearchProviderError(f"Brave search answered HTTP {raw.status}", retryable=True)
        if raw.status != 200:
            raise SearchProviderError(
                f"Brave search answered HTTP {raw.status}",
                retryable=raw.status >= 500,
                help="Check BRAVE_API_KEY and the plan's rate limit." if raw.status in (401, 403) else None,
            )
        try:
            reply = json.loads(raw.body)
        except (ValueError, UnicodeDecodeError) as exc:
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
            SearchProviderError: transport failure, deadline passed, reply over the body cap,
                HTTP status other than 200 (401/403: bad key; 429: rate limit), or a non-JSON reply.
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
