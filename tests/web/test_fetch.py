"""read_page / fetch against the sandbox web: real HTTPS on 127.0.0.1, trustme CA, ``.test`` hosts.

The ``.test`` names are pinned to 127.0.0.1 through ``NetworkPolicy.resolve_overrides`` (the
sandbox's policy), so TLS verifies the names while the connection goes to loopback.
"""

from __future__ import annotations

import base64
import email.utils
import gzip
import hashlib
import socket
import tempfile
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from ditto_nb.errors import InvalidURL, PolicyViolation, RedirectLimit
from ditto_nb.sandbox import SandboxPage, SandboxWeb
from ditto_nb.web import NetworkPolicy, fetch, parse_retry_after, read_page
from ditto_nb.web.transport import resolve_address

Factory = Callable[..., SandboxWeb]
ARTICLE = (
    "<html><head><title>East Copper</title></head><body><nav><a href='/'>Home</a></nav>"
    "<article><h1>East Copper</h1><p>East Copper is a small town known for its copper mine, "
    "which opened in 1872 and closed in 1961 after the ore ran out.</p>"
    "<p>The town hall stands at 183 Main St<br>East Copper.</p></article></body></html>"
)


def _page(url: str, **fields: Any) -> SandboxPage:
    return SandboxPage(url=url, **fields)


def _bomb_b64() -> str:
    """~1 MB of gzip that inflates to 1 GiB of zeros; generated once, streaming, cached under tmp."""
    path = Path(tempfile.gettempdir()) / "ditto-nb-test-gzip-bomb-1gib.gz"
    if not (path.exists() and path.stat().st_size > 0):
        tmp = path.with_suffix(f".{threading.get_ident()}.tmp")
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: gzip container
        chunk = bytes(1 << 20)
        with tmp.open("wb") as out:
            for _ in range(1024):
                out.write(compressor.compress(chunk))
            out.write(compressor.flush())
        tmp.replace(path)
    data = path.read_bytes()
    assert len(data) < 2 * 1024 * 1024
    return base64.b64encode(data).decode("ascii")


async def test_reads_article_with_title_paragraphs_and_hash(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/article", html=ARTICLE)])
    page = await read_page(web.url_for("https://a.test/article"), policy=web.policy())
    assert page.failure is None and page.status == 200
    assert page.title == "East Copper"
    assert any("opened in 1872" in p for p in page.paragraphs)
    assert "The town hall stands at 183 Main St East Copper." in page.paragraphs
    assert page.charset == "utf-8"
    assert page.sha256 == hashlib.sha256(ARTICLE.encode()).hexdigest() and page.body == ARTICLE.encode()
    assert "body" not in page.model_dump_json()
    assert datetime.fromisoformat(page.fetched_at).tzinfo is not None


async def test_redirect_to_other_allowed_host_is_followed(sandbox_factory: Factory) -> None:
    web = sandbox_factory([
        _page("https://a.test/moved", status=301, redirect="https://b.test/target"),
        _page("https://b.test/target", html=ARTICLE),
    ])
    page = await read_page(web.url_for("https://a.test/moved"), policy=web.policy())
    assert page.final_url == web.url_for("https://b.test/target") and page.paragraphs
    assert page.requested_url == web.url_for("https://a.test/moved")
    assert web.requests == [("a.test", "/moved"), ("b.test", "/target")]


async def test_http_scheme_is_refused(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/article", html=ARTICLE)])
    with pytest.raises(PolicyViolation):
        await read_page(f"http://a.test:{web.port}/article", policy=web.policy())
    assert web.request_count == 0


async def test_origin_not_allowed_is_refused(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/x", html=ARTICLE), _page("https://b.test/x", html=ARTICLE)])
    policy = web.policy(allowed_origins=[f"https://a.test:{web.port}"])
    with pytest.raises(PolicyViolation):
        await read_page(web.url_for("https://b.test/x"), policy=policy)
    with pytest.raises(PolicyViolation):  # same host, another port: another origin
        await read_page(f"https://a.test:{web.port + 1}/x", policy=policy)
    assert web.request_count == 0


async def test_loopback_without_test_override_is_refused(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/x", html=ARTICLE)])
    for host in ("localhost", "127.0.0.1"):
        policy = NetworkPolicy(allowed_origins=(f"https://{host}:{web.port}",), ca_bundle=str(web.ca_path))
        with pytest.raises(PolicyViolation):
            await read_page(f"https://{host}:{web.port}/x", policy=policy)
    assert web.request_count == 0


def test_resolve_overrides_only_accept_test_names() -> None:
    with pytest.raises(ValidationError):
        NetworkPolicy(resolve_overrides={"example.com": "127.0.0.1"})
    with pytest.raises(ValidationError):
        NetworkPolicy(resolve_overrides={"a.test": "not-an-ip"})
    assert NetworkPolicy(resolve_overrides={"A.Test": "127.0.0.1"}).resolve_overrides == {"a.test": "127.0.0.1"}


def _with_private_host(web: SandboxWeb, **overrides: Any) -> NetworkPolicy:
    return web.policy(
        allowed_origins=(*web.allowed_origins, f"https://private.test:{web.port}"),
        resolve_overrides={**web.resolve_overrides, "private.test": "10.0.0.1"},
        **overrides,
    )


async def test_private_override_is_refused_before_connecting(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/x", html=ARTICLE)])
    policy = _with_private_host(web)
    with pytest.raises(PolicyViolation):
        await resolve_address("private.test", web.port, policy)
    assert await resolve_address("a.test", web.port, policy) == "127.0.0.1"


async def test_redirect_to_private_override_host_is_refused(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/x", html=ARTICLE)])
    web.set_page(_page("https://a.test/to-private", redirect=f"https://private.test:{web.port}/x"))
    started = time.monotonic()
    with pytest.raises(PolicyViolation, match="10.0.0.1"):
        await read_page(web.url_for("https://a.test/to-private"), policy=_with_private_host(web, connect_timeout=5.0))
    # Refused before any connection attempt to 10.0.0.1 (which would wait for the connect timeout).
    assert time.monotonic() - started < 2.0
    assert web.requests == [("a.test", "/to-private")]


async def test_redirect_to_itself_with_cookie_hits_the_limit(sandbox_factory: Factory) -> None:
    pages = [_page("https://a.test/loop", redirect="https://a.test/loop", headers={"set-cookie": "seen=1; Path=/"})]
    pages += [_page(f"https://a.test/chain{i}", redirect=f"https://a.test/chain{i + 1}") for i in range(4)]
    pages += [_page("https://a.test/chain4", html=ARTICLE)]
    web = sandbox_factory(pages)
    with pytest.raises(RedirectLimit):
        await read_page(web.url_for("https://a.test/loop"), policy=web.policy())
    assert 1 <= web.requests.count(("a.test", "/loop")) <= 6
    with pytest.raises(RedirectLimit):
        await read_page(web.url_for("https://a.test/chain0"), policy=web.policy(max_redirects=3))
    page = await read_page(web.url_for("https://a.test/chain0"), policy=web.policy(max_redirects=4))
    assert page.final_url.endswith("/chain4") and page.failure is None


async def test_https_to_http_redirect_is_refused(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/article", html=ARTICLE)])
    web.set_page(_page("https://a.test/downgrade", redirect=f"http://a.test:{web.port}/article"))
    with pytest.raises(PolicyViolation):
        await read_page(web.url_for("https://a.test/downgrade"), policy=web.policy())
    assert ("a.test", "/article") not in web.requests


async def test_malformed_location_raises_invalid_url(sandbox_factory: Factory) -> None:
    web = sandbox_factory([
        _page("https://a.test/badport", status=302, headers={"location": "https://a.test:99999999/x"}),
        _page("https://a.test/badv6", status=302, headers={"location": "https://[::1/x"}),
        _page("https://a.test/fine", html=ARTICLE),
    ])
    for path in ("/badport", "/badv6"):
        with pytest.raises(InvalidURL):
            await read_page(web.url_for(f"https://a.test{path}"), policy=web.policy())
    with pytest.raises(InvalidURL):
        await read_page("https:///nohost", policy=web.policy())
    assert (await read_page(web.url_for("https://a.test/fine"), policy=web.policy())).paragraphs


async def test_gzip_bomb_stops_at_the_cap(sandbox_factory: Factory) -> None:
    bomb = _page("https://a.test/bomb", raw_body_b64=_bomb_b64(), gzip=True, content_type="text/html; charset=utf-8")
    web = sandbox_factory([bomb])
    tracemalloc.start()
    started = time.monotonic()
    try:
        page = await read_page(web.url_for("https://a.test/bomb"), policy=web.policy())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert page.failure == "too-large" and page.paragraphs == []
    assert peak < 256 * 1024 * 1024, peak  # nowhere near the 1 GiB the body inflates to
    assert time.monotonic() - started < 10


async def test_body_cap_counts_decoded_bytes(sandbox_factory: Factory) -> None:
    text = "<html><body><p>" + "word " * 4000 + "</p></body></html>"
    assert len(gzip.compress(text.encode())) < 5000 < len(text)
    web = sandbox_factory([_page("https://a.test/gz", html=text, gzip=True)])
    page = await read_page(web.url_for("https://a.test/gz"), policy=web.policy(max_body_bytes=5000))
    assert page.failure == "too-large"
    page = await read_page(web.url_for("https://a.test/gz"), policy=web.policy(max_body_bytes=len(text)))
    assert page.failure is None and page.body == text.encode()


async def test_403_is_a_failed_page_and_others_still_read(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/forbidden", status=403), _page("https://a.test/fine", html=ARTICLE)])
    policy = web.policy()
    forbidden = await read_page(web.url_for("https://a.test/forbidden"), policy=policy)
    fine = await read_page(web.url_for("https://a.test/fine"), policy=policy)
    assert forbidden.failure == "http-403" and forbidden.status == 403 and forbidden.paragraphs == []
    assert forbidden.body == b""
    assert fine.failure is None and fine.paragraphs


async def test_429_with_retry_after_then_200(sandbox_factory: Factory) -> None:
    url = "https://a.test/flaky"
    web = sandbox_factory([_page(url, status=429, headers={"retry-after": "1"}, html="<p>slow down</p>")])

    def recover() -> None:  # once the 429 was served, the page comes back
        deadline = time.monotonic() + 10
        while web.request_count < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        web.set_page(_page(url, html=ARTICLE))

    watcher = threading.Thread(target=recover, daemon=True)
    watcher.start()
    started = time.monotonic()
    page = await read_page(web.url_for(url), policy=web.policy())
    watcher.join()
    assert page.failure is None and page.paragraphs and web.request_count == 2
    assert time.monotonic() - started >= 0.9  # Retry-After honoured (the backoff alone is 0.05 s)


async def test_retry_after_is_capped(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/busy", status=503, headers={"retry-after": "3600"})])
    started = time.monotonic()
    page = await read_page(web.url_for("https://a.test/busy"), policy=web.policy(retries=2, max_retry_after_seconds=0.2))
    assert page.failure == "http-503" and web.request_count == 3
    assert time.monotonic() - started < 5


def test_retry_after_parses_seconds_and_http_dates() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert parse_retry_after("120") == 120.0
    date = email.utils.format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(30.0)
    assert parse_retry_after(email.utils.format_datetime(now - timedelta(days=1), usegmt=True), now=now) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


async def test_pdf_is_unsupported(sandbox_factory: Factory) -> None:
    pdf = base64.b64encode(b"%PDF-1.4\n%...").decode()
    web = sandbox_factory([_page("https://a.test/doc.pdf", raw_body_b64=pdf, content_type="application/pdf")])
    page = await read_page(web.url_for("https://a.test/doc.pdf"), policy=web.policy())
    assert page.failure == "unsupported-content-type" and page.paragraphs == []
    assert page.status == 200 and page.content_type == "application/pdf" and page.body == b""


async def test_read_timeout_is_a_failed_page(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/slow", html=ARTICLE, delay_seconds=1.5)])
    page = await read_page(web.url_for("https://a.test/slow"), policy=web.policy(read_timeout=0.3, retries=0))
    assert page.failure == "timeout" and page.status == 0


async def test_connection_refused_is_a_failed_page(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/x", html=ARTICLE)])
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    closed_port = probe.getsockname()[1]
    probe.close()
    policy = web.policy(allowed_origins=[f"https://a.test:{closed_port}"], retries=1)
    page = await read_page(f"https://a.test:{closed_port}/x", policy=policy)
    assert page.failure == "connect"


async def test_untrusted_certificate_fails_to_connect(sandbox_factory: Factory) -> None:
    web = sandbox_factory([_page("https://a.test/x", html=ARTICLE)])
    page = await read_page(web.url_for("https://a.test/x"), policy=web.policy(ca_bundle=None, retries=0))
    assert page.failure == "connect" and web.request_count == 0


async def test_bot_wall_and_redirect_stub_are_not_content(sandbox_factory: Factory) -> None:
    wall = "<html><body><h1>Just a moment...</h1><p>Please verify you are human.</p></body></html>"
    stub = '<html><head><meta http-equiv="refresh" content="0;url=/article"></head><body></body></html>'
    web = sandbox_factory([_page("https://a.test/wall", html=wall), _page("https://a.test/stub", html=stub)])
    wall_page = await read_page(web.url_for("https://a.test/wall"), policy=web.policy())
    stub_page = await read_page(web.url_for("https://a.test/stub"), policy=web.policy())
    assert wall_page.failure == "not-content:bot-wall" and wall_page.paragraphs == []
    assert stub_page.failure == "not-content:redirect-stub" and stub_page.paragraphs == []


async def test_gb2312_page_with_bare_content_type(sandbox_factory: Factory) -> None:
    html = '<html><head><meta charset="gb2312"><title>铜镇简介</title></head><body><p>铜镇是一个小镇。</p></body></html>'
    web = sandbox_factory([_page("https://a.test/gb", html=html, charset="gb2312", content_type="text/html")])
    page = await read_page(web.url_for("https://a.test/gb"), policy=web.policy())
    assert page.title == "铜镇简介" and page.paragraphs == ["铜镇是一个小镇。"]


async def test_fetch_returns_raw_json_and_redirect_list(sandbox_factory: Factory) -> None:
    body = base64.b64encode(b'{"ok": true}').decode()
    web = sandbox_factory([
        _page("https://a.test/api", redirect="https://a.test/api2"),
        _page("https://a.test/api2", raw_body_b64=body, content_type="application/json"),
    ])
    raw = await fetch(web.url_for("https://a.test/api"), web.policy(), accept="application/json")
    assert raw.status == 200 and raw.body == b'{"ok": true}'
    assert raw.redirects == (web.url_for("https://a.test/api2"),) and raw.final_url == web.url_for("https://a.test/api2")
    assert raw.headers["content-type"] == "application/json"
