"""MediaWikiProvider and the search tool against the sandbox's MediaWiki API over real HTTPS."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ditto_nb.errors import InvalidRequest, SearchProviderError
from ditto_nb.sandbox import SandboxPage, SandboxWeb
from ditto_nb.web.search import MediaWikiProvider, create_web_search_tool

Factory = Callable[..., SandboxWeb]


def _pages(count: int) -> list[dict[str, object]]:
    return [
        {"url": f"https://wiki.test/wiki/Lake_{n}", "title": f"Lake {n}", "paragraphs": [f"Lake {n} is a lake with {n} islands."]}
        for n in range(count)
    ]


async def test_continuation_merges_all_pages(sandbox_factory: Factory) -> None:
    web = sandbox_factory(_pages(7))
    provider = MediaWikiProvider(web.api_url, web.policy(), page_size=2)
    hits = await provider.search("lake islands", 6)
    assert [hit.rank for hit in hits] == [1, 2, 3, 4, 5, 6]
    assert len({hit.url for hit in hits}) == 6
    api_calls = [path for _, path in web.requests if path == "/w/api.php"]
    assert len(api_calls) == 3  # srlimit=2 → three pages for six hits
    everything = await provider.search("lake", 20)
    assert len(everything) == 7  # stops when the wiki has no more (no continue)


async def test_hits_have_plain_snippets_and_page_urls(demo_sandbox: SandboxWeb) -> None:
    provider = MediaWikiProvider(demo_sandbox.api_url, demo_sandbox.policy())
    hits = await provider.search("Tyrrhenian", 3)
    top = hits[0]
    assert top.title == "Tiber" and top.provider == "mediawiki" and top.discovery_only
    assert top.url == demo_sandbox.url_for("https://wiki.test/wiki/Tiber")
    assert top.origin == f"https://wiki.test:{demo_sandbox.port}"
    assert "Tyrrhenian Sea" in top.snippet and "<" not in top.snippet and "searchmatch" not in top.snippet
    atlas = await provider.search("Atlas of Rivers Seine", 5)
    assert any(hit.url == demo_sandbox.url_for("https://atlas.test/rivers/seine") for hit in atlas)


async def test_entities_unescaped_and_title_url_fallback(sandbox_factory: Factory) -> None:
    reply = (
        '{"batchcomplete":"","query":{"searchinfo":{"totalhits":1},"search":[{"ns":0,"title":"Fish & Chips",'
        '"snippet":"<span class=\\"searchmatch\\">Fish</span> &amp; chips &lt;3"}]}}'
    )
    import base64

    web = sandbox_factory(
        [{"url": "https://other.test/w/api.php", "title": "api", "raw_body_b64": base64.b64encode(reply.encode()).decode(),
          "content_type": "application/json"}]
    )
    provider = MediaWikiProvider(web.url_for("https://other.test/w/api.php"), web.policy())
    hits = await provider.search("fish", 5)
    assert len(hits) == 1
    assert hits[0].snippet == "Fish & chips <3"
    assert hits[0].url == f"https://other.test:{web.port}/wiki/Fish_%26_Chips"


async def test_empty_search_is_an_empty_list(demo_sandbox: SandboxWeb) -> None:
    provider = MediaWikiProvider(demo_sandbox.api_url, demo_sandbox.policy())
    assert await provider.search("qqqzzzx", 5) == []
    with pytest.raises(InvalidRequest):
        await provider.search("   ", 5)


async def test_server_error_is_a_provider_error(sandbox_factory: Factory) -> None:
    web = sandbox_factory(_pages(2))
    web.set_page(SandboxPage(url="https://wiki.test/w/api.php", title="broken", html="<p>boom</p>", status=500))
    provider = MediaWikiProvider(web.api_url, web.policy(retries=0))
    with pytest.raises(SearchProviderError, match="HTTP 500"):
        await provider.search("lake", 5)


async def test_unreachable_api_is_a_provider_error(sandbox_factory: Factory) -> None:
    web = sandbox_factory(_pages(1))
    port = web.port
    web.stop()
    provider = MediaWikiProvider(f"https://wiki.test:{port}/w/api.php", web.policy(retries=0, connect_timeout=1.0))
    with pytest.raises(SearchProviderError):
        await provider.search("lake", 5)


async def test_search_tool_returns_dicts(demo_sandbox: SandboxWeb) -> None:
    tool = create_web_search_tool(provider=MediaWikiProvider(demo_sandbox.api_url, demo_sandbox.policy()))
    rows = await tool(query="London", limit=2)
    assert len(rows) == 2
    assert rows[0]["title"] == "London" and rows[0]["rank"] == 1
    assert set(rows[0]) == {"query", "rank", "title", "url", "origin", "snippet", "discovery_only", "provider"}


async def test_failed_continuation_keeps_the_first_pages(sandbox_factory: Factory) -> None:
    web = sandbox_factory(_pages(5))
    second = "action=query&list=search&srsearch=lake&srwhat=text&srlimit=2&sroffset=2&format=json"
    web.set_page(SandboxPage(url=f"https://wiki.test/w/api.php?{second}", title="broken", html="<p>x</p>", status=500))
    provider = MediaWikiProvider(web.api_url, web.policy(retries=0), page_size=2)
    hits = await provider.search("lake", 5)
    assert len(hits) == 2  # page one kept; page two failed (logged), not an empty success
    assert sum(1 for _, path in web.requests if path == "/w/api.php") == 2
