"""The sandbox web over real HTTPS on 127.0.0.1, read with the project's policy-checked fetcher."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Callable
from typing import Any

import pytest

from ditto_nb.errors import FetchError, PolicyViolation
from ditto_nb.sandbox import SandboxPage, SandboxWeb
from ditto_nb.web.fetch import fetch, read_page

Factory = Callable[..., SandboxWeb]


def _text(paragraphs: list[str]) -> str:
    return " ".join(paragraphs)


async def test_host_routing_across_two_origins(sandbox_factory: Factory) -> None:
    web = sandbox_factory(
        [
            {"url": "https://alpha.test/same", "title": "A", "paragraphs": ["Served by alpha."]},
            {"url": "https://beta.test/same", "title": "B", "paragraphs": ["Served by beta."]},
        ]
    )
    policy = web.policy()
    assert set(web.allowed_origins) == {f"https://{h}:{web.port}" for h in ("alpha.test", "beta.test", "wiki.test")}
    alpha = await read_page(web.url_for("https://alpha.test/same"), policy=policy)
    beta = await read_page(web.url_for("https://beta.test/same"), policy=policy)
    assert "Served by alpha." in _text(alpha.paragraphs)
    assert "Served by beta." in _text(beta.paragraphs) and "alpha" not in _text(beta.paragraphs)
    assert web.requests == [("alpha.test", "/same"), ("beta.test", "/same")]
    assert web.sni_names == ["alpha.test", "beta.test"]  # one TLS handshake per host, named by SNI
    assert web.request_count == 2


async def test_unknown_path_is_404_and_policy_limits_origins(sandbox_factory: Factory) -> None:
    web = sandbox_factory([{"url": "https://alpha.test/", "title": "A", "html": "<p>a</p>"}])
    raw = await fetch(web.url_for("https://alpha.test/missing"), web.policy())
    assert raw.status == 404
    only_wiki = web.policy(allowed_origins=(f"https://wiki.test:{web.port}",))
    with pytest.raises(PolicyViolation):
        await fetch(web.url_for("https://alpha.test/"), only_wiki)


async def test_status_redirect_and_extra_headers(sandbox_factory: Factory) -> None:
    web = sandbox_factory(
        [
            {"url": "https://a.test/gone", "title": "Gone", "html": "<p>gone</p>", "status": 410},
            {"url": "https://a.test/old", "title": "Old", "redirect": "https://b.test/new"},
            {"url": "https://b.test/new", "title": "New", "paragraphs": ["The new place."], "headers": {"X-Sandbox": "yes"}},
        ]
    )
    policy = web.policy()
    assert (await fetch(web.url_for("https://a.test/gone"), policy)).status == 410
    moved = await fetch(web.url_for("https://a.test/old"), policy)
    assert moved.status == 200
    assert moved.final_url == web.url_for("https://b.test/new")
    assert moved.redirects == (web.url_for("https://b.test/new"),)
    assert moved.headers["x-sandbox"] == "yes"


async def test_gzip_and_charset_behaviours(sandbox_factory: Factory) -> None:
    web = sandbox_factory(
        [
            {"url": "https://a.test/gz", "title": "Gz", "paragraphs": ["Compressed text here."], "gzip": True},
            {"url": "https://a.test/latin", "title": "Latin", "html": "<html><body><p>Crème brûlée à Paris.</p></body></html>",
             "charset": "iso-8859-1"},
            {"url": "https://a.test/bare", "title": "Bare", "html": "<p>x</p>", "content_type": "text/html"},
        ]
    )
    policy = web.policy()
    raw = await fetch(web.url_for("https://a.test/gz"), policy)
    assert raw.headers["content-encoding"] == "gzip"
    assert b"Compressed text here." in raw.body  # decoded by the client
    latin = await fetch(web.url_for("https://a.test/latin"), policy)
    assert latin.headers["content-type"] == "text/html; charset=iso-8859-1"
    assert "Crème brûlée à Paris.".encode("iso-8859-1") in latin.body
    page = await read_page(web.url_for("https://a.test/latin"), policy=policy)
    assert "Crème brûlée à Paris." in _text(page.paragraphs)
    bare = await fetch(web.url_for("https://a.test/bare"), policy)
    assert bare.headers["content-type"] == "text/html"


async def test_raw_body_is_served_byte_for_byte(sandbox_factory: Factory) -> None:
    blob = gzip.compress(b"%PDF-1.4 not really", mtime=0)
    web = sandbox_factory(
        [{"url": "https://a.test/doc", "title": "Doc", "raw_body_b64": base64.b64encode(blob).decode(), "content_type": "application/pdf"}]
    )
    raw = await fetch(web.url_for("https://a.test/doc"), web.policy())
    assert raw.body == blob and raw.headers["content-type"] == "application/pdf"
    # A raw body declared gzip is sent as given (already compressed) and decoded by the client.
    web.set_page(SandboxPage(url="https://a.test/z", title="Z", raw_body_b64=base64.b64encode(blob).decode(), gzip=True))
    unpacked = await fetch(web.url_for("https://a.test/z"), web.policy())
    assert unpacked.body == b"%PDF-1.4 not really" and unpacked.headers["content-encoding"] == "gzip"


async def test_delay_triggers_client_timeout(sandbox_factory: Factory) -> None:
    web = sandbox_factory([{"url": "https://a.test/slow", "title": "Slow", "html": "<p>slow</p>", "delay_seconds": 1.5}])
    with pytest.raises(FetchError) as caught:
        await fetch(web.url_for("https://a.test/slow"), web.policy(read_timeout=0.3, retries=0))
    assert caught.value.failure == "timeout"


async def test_set_page_replaces_and_adds_hosts(sandbox_factory: Factory) -> None:
    web = sandbox_factory([{"url": "https://a.test/p", "title": "P", "paragraphs": ["first version"]}])
    web.set_page(SandboxPage(url="https://a.test/p", title="P", paragraphs=["second version"]))
    web.set_page(SandboxPage(url="https://late.test/q", title="Q", paragraphs=["a host added at runtime"]))
    policy = web.policy()
    assert "second version" in _text((await read_page(web.url_for("https://a.test/p"), policy=policy)).paragraphs)
    late = await read_page(web.url_for("https://late.test/q"), policy=policy)
    assert late.failure is None and "a host added at runtime" in _text(late.paragraphs)


async def test_wiki_title_route_redirects_to_the_page(demo_sandbox: SandboxWeb) -> None:
    raw = await fetch(f"https://wiki.test:{demo_sandbox.port}/wiki/Eiffel_Tower_(Atlas_of_Landmarks)", demo_sandbox.policy())
    assert raw.status == 200
    assert raw.final_url == demo_sandbox.url_for("https://atlas.test/landmarks/eiffel-tower")


async def _api(web: SandboxWeb, **params: Any) -> dict[str, Any]:
    from urllib.parse import urlencode

    query = {"action": "query", "list": "search", "format": "json", "srwhat": "text", **params}
    raw = await fetch(f"{web.api_url}?{urlencode(query)}", web.policy(), accept="application/json")
    assert raw.status == 200
    reply: dict[str, Any] = json.loads(raw.body)
    return reply


async def test_search_api_shape_and_bm25_ranking(demo_sandbox: SandboxWeb) -> None:
    reply = await _api(demo_sandbox, srsearch="Tyrrhenian Sea", srlimit="10")
    assert reply["batchcomplete"] == ""
    hits = reply["query"]["search"]
    assert reply["query"]["searchinfo"]["totalhits"] == len(hits) >= 1
    assert hits[0]["title"] == "Tiber"
    assert hits[0]["fullurl"] == demo_sandbox.url_for("https://wiki.test/wiki/Tiber")
    assert '<span class="searchmatch">Tyrrhenian</span>' in hits[0]["snippet"]
    assert set(hits[0]) >= {"ns", "title", "pageid", "size", "wordcount", "snippet", "timestamp"}
    assert "continue" not in reply
    # Terms are AND-ed (like MediaWiki): every hit holds every term; OR only when asked for.
    ranked = [hit["title"] for hit in (await _api(demo_sandbox, srsearch="Seine river"))["query"]["search"]]
    assert ranked and ranked[0].startswith("Seine") and "River Thames" not in ranked


async def test_search_ands_terms_and_ors_only_when_asked(demo_sandbox: SandboxWeb) -> None:
    both = await _api(demo_sandbox, srsearch="Tiber Thames")
    assert both["query"]["searchinfo"]["totalhits"] == 0 and both["query"]["search"] == []
    wordy = await _api(demo_sandbox, srsearch="Seine river length kilometres")
    assert wordy["query"]["search"] == []
    either = [h["title"] for h in (await _api(demo_sandbox, srsearch="Tiber OR Thames"))["query"]["search"]]
    assert {"Tiber", "River Thames"} <= set(either)
    titles = [h["title"] for h in (await _api(demo_sandbox, srsearch="Seine", srwhat="title"))["query"]["search"]]
    assert titles and all("Seine" in t for t in titles) and "Paris" not in titles


async def test_prefix_search_api_matches_title_starts_like_mediawiki(demo_sandbox: SandboxWeb) -> None:
    reply = await _api(demo_sandbox, list="prefixsearch", pssearch="seine", pslimit="5")
    titles = [h["title"] for h in reply["query"]["prefixsearch"]]
    assert titles and all(t.startswith("Seine") for t in titles)  # first letter case-blind
    assert titles == sorted(titles) and all(h["fullurl"] for h in reply["query"]["prefixsearch"])
    assert (await _api(demo_sandbox, list="prefixsearch", pssearch="eine"))["query"]["prefixsearch"] == []
    assert (await _api(demo_sandbox, list="prefixsearch", pssearch=" "))["error"]["code"] == "missingparam"


async def test_search_api_continuation_and_errors(demo_sandbox: SandboxWeb) -> None:
    first = await _api(demo_sandbox, srsearch="Paris", srlimit="2")
    total = first["query"]["searchinfo"]["totalhits"]
    assert total > 2 and first["continue"] == {"sroffset": 2, "continue": "-||"}
    second = await _api(demo_sandbox, srsearch="Paris", srlimit="2", sroffset="2")
    titles = [h["pageid"] for h in first["query"]["search"]] + [h["pageid"] for h in second["query"]["search"]]
    assert len(set(titles)) == 4
    assert (await _api(demo_sandbox, srsearch="zzqxv"))["query"]["search"] == []
    assert (await _api(demo_sandbox, srsearch=""))["error"]["code"] == "missingparam"
    assert (await _api(demo_sandbox, srsearch="Paris", srlimit="many"))["error"]["code"] == "badinteger"


async def test_percent_encoded_titles_are_served(sandbox_factory: Factory) -> None:
    from ditto_nb.sandbox import wiki_url

    web = sandbox_factory([{"url": wiki_url("Café & Co"), "title": "Café & Co", "paragraphs": ["A café page."]}])
    assert wiki_url("Café & Co") == "https://wiki.test/wiki/Caf%C3%A9_%26_Co"
    raw = await fetch(web.url_for(wiki_url("Café & Co")), web.policy())
    assert raw.status == 200 and b"A caf\xc3\xa9 page." in raw.body
    assert web.requests == [("wiki.test", "/wiki/Café_&_Co")]


async def test_generator_search_gives_page_urls(demo_sandbox: SandboxWeb) -> None:
    from urllib.parse import urlencode

    query = {"action": "query", "generator": "search", "gsrsearch": "Seine river", "gsrlimit": "1",
             "prop": "info", "inprop": "url", "format": "json"}
    raw = await fetch(f"{demo_sandbox.api_url}?{urlencode(query)}", demo_sandbox.policy(), accept="application/json")
    reply = json.loads(raw.body)
    (page,) = reply["query"]["pages"].values()
    assert page["title"] == "Seine (Atlas of Rivers)" and page["index"] == 1
    assert page["fullurl"] == demo_sandbox.url_for("https://atlas.test/rivers/seine")
    assert reply["continue"]["gsroffset"] == 1


def test_head_request_has_headers_but_no_body(sandbox_factory: Factory) -> None:
    import ssl

    import httpx

    web = sandbox_factory([{"url": "https://a.test/h", "title": "H", "html": "<p>head</p>", "headers": {"X-Kind": "head"}}])
    transport = httpx.HTTPTransport(verify=ssl.create_default_context(cafile=str(web.ca_path)))
    with httpx.Client(transport=transport) as client:
        request = client.build_request("HEAD", f"https://127.0.0.1:{web.port}/h", headers={"host": "a.test"},
                                       extensions={"sni_hostname": "a.test"})
        response = client.send(request)
    assert response.status_code == 200 and response.headers["x-kind"] == "head" and response.content == b""
    assert web.sni_names == ["a.test"]


def test_index_mode_or_is_an_explicit_option() -> None:
    from ditto_nb.sandbox import SandboxPage
    from ditto_nb.sandbox.index import SearchIndex

    pages = [SandboxPage(url="https://w.test/a", title="Tiber", paragraphs=["The Tiber flows through Rome."]),
             SandboxPage(url="https://w.test/b", title="Thames", paragraphs=["The Thames flows through London."])]
    default, either = SearchIndex(), SearchIndex(mode="or")
    for page in pages:
        default.add(page)
        either.add(page)
    assert default.search("Tiber Thames") == (0, [])
    assert either.search("Tiber Thames")[0] == 2
    assert default.search("Tiber Thames", mode="or")[0] == 2
    assert [h.title for h in default.search("flows Rome")[1]] == ["Tiber"]
