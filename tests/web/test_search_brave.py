"""BraveProvider against canned Brave replies served by the sandbox over real HTTPS."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest

from ditto_nb.errors import ConfigError, SearchProviderError
from ditto_nb.sandbox import SandboxWeb
from ditto_nb.web.search import BraveProvider

Factory = Callable[..., SandboxWeb]
PATH = "/res/v1/web/search"


def _reply(path: str, body: Any, status: int = 200) -> dict[str, Any]:
    raw = json.dumps(body).encode()
    return {"url": f"https://brave.test{path}", "title": "brave", "status": status,
            "raw_body_b64": base64.b64encode(raw).decode(), "content_type": "application/json"}


REPLY = {
    "type": "search",
    "query": {"original": "b", "more_results_available": False},
    "web": {
        "type": "search",
        "results": [
            {"title": "The <strong>Seine</strong>", "url": "https://atlas.test/rivers/seine",
             "description": "a <strong>b</strong> &amp; c"},
            {"title": "no url here"},
            {"title": "Paris", "url": "https://wiki.test/wiki/Paris", "description": "Capital &quot;city&quot;"},
        ],
    },
}


@pytest.fixture
def brave(sandbox_factory: Factory) -> SandboxWeb:
    return sandbox_factory(
        [
            _reply(PATH, REPLY),
            _reply("/no-web", {"type": "search"}),
            _reply("/null-web", {"type": "search", "web": None}),
            _reply("/denied", {"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID"}}, status=401),
        ]
    )


def _provider(web: SandboxWeb, path: str) -> BraveProvider:
    return BraveProvider("test-key", web.policy(retries=0), endpoint=web.url_for(f"https://brave.test{path}"))


async def test_results_are_stripped_and_ranked(brave: SandboxWeb) -> None:
    hits = await _provider(brave, PATH).search("seine", 5)
    assert [(h.rank, h.title, h.snippet) for h in hits] == [
        (1, "The Seine", "a b & c"),
        (2, "Paris", 'Capital "city"'),
    ]
    assert hits[0].url == "https://atlas.test/rivers/seine" and hits[0].origin == "https://atlas.test:443"
    assert hits[0].provider == "brave"
    assert brave.requests == [("brave.test", PATH)]
    assert brave.request_headers[0]["x-subscription-token"] == "test-key"


async def test_no_web_section_is_empty(brave: SandboxWeb) -> None:
    assert await _provider(brave, "/no-web").search("x", 5) == []
    assert await _provider(brave, "/null-web").search("x", 5) == []


async def test_unauthorized_is_a_provider_error(brave: SandboxWeb) -> None:
    with pytest.raises(SearchProviderError, match="401"):
        await _provider(brave, "/denied").search("x", 5)


def test_key_is_required() -> None:
    with pytest.raises(ConfigError):
        BraveProvider("")
    assert "test-key" not in repr(BraveProvider("test-key"))
