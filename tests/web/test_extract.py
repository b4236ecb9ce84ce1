"""Extraction rules: bytes in, paragraphs out (no server)."""

from __future__ import annotations

import pytest

from ditto_nb.web import classify_page, extract_paragraphs, extract_title

FILLER = (
    "<p>The valley was settled by farmers in the early nineteenth century, and the first mill "
    "was built on the river in 1823 to grind the grain of the surrounding farms.</p>"
)


def _doc(body: str, head: str = "<title>Doc</title>") -> bytes:
    return f"<!doctype html><html><head>{head}</head><body>{body}</body></html>".encode()


def test_br_does_not_glue_words() -> None:
    paragraphs = extract_paragraphs(_doc(f"<article>{FILLER}<p>183 Main St<br>East Copper</p></article>"), "text/html")
    assert "183 Main St East Copper" in paragraphs
    assert not any("StEast" in p for p in paragraphs)


def test_headings_and_paragraphs_are_separate() -> None:
    paragraphs = extract_paragraphs(b"<h3>Foo</h3><p>Bar</p>", "text/html")
    assert paragraphs == ["Foo", "Bar"]
    rich = extract_paragraphs(_doc(f"<article><h2>History</h2>{FILLER}<h2>Economy</h2>{FILLER}</article>"), None)
    assert rich.count("History") == 1 and rich.count("Economy") == 1
    assert not any("HistoryThe" in p or "Economy The" in p for p in rich)


def test_list_items_and_table_cells_are_separate() -> None:
    body = (
        f"<article>{FILLER}<ul><li>alpha item</li><li>beta item</li></ul>"
        "<table><tr><th>Population</th><td>5,000</td></tr><tr><td>Area</td><td>12 km</td></tr></table></article>"
    )
    paragraphs = extract_paragraphs(_doc(body), "text/html")
    assert "alpha item" in paragraphs and "beta item" in paragraphs
    assert "Population | 5,000" in paragraphs and "Area | 12 km" in paragraphs


def test_block_walk_fallback_keeps_boundaries() -> None:
    # Too little text for trafilatura's main-content detection: the block walk answers.
    paragraphs = extract_paragraphs(b"<div>One<br>Two</div><ul><li>x</li><li>y</li></ul><table><tr><td>a</td><td>b</td></tr></table>", None)
    assert paragraphs == ["One Two", "x", "y", "a | b"]


@pytest.mark.parametrize(
    "hidden",
    [
        '<div style="display:none">SECRETWORD</div>',
        '<div style="visibility: hidden">SECRETWORD</div>',
        "<p hidden>SECRETWORD</p>",
        '<span aria-hidden="true">SECRETWORD</span>',
        "<script>var x = 'SECRETWORD';</script>",
        "<style>.SECRETWORD{color:red}</style>",
        "<template><p>SECRETWORD</p></template>",
        "<noscript><p>SECRETWORD</p></noscript>",
    ],
)
def test_hidden_content_never_reaches_paragraphs(hidden: str) -> None:
    for body in (f"<article>{FILLER}<p>Visible text here. {hidden} More visible.</p>{FILLER}</article>",
                 f"<div>short {hidden} page</div>"):
        paragraphs = extract_paragraphs(_doc(body), "text/html")
        assert paragraphs, body
        assert not any("SECRETWORD" in p for p in paragraphs), paragraphs


def test_paragraphs_are_normalized() -> None:
    paragraphs = extract_paragraphs(_doc(f"<article>{FILLER}<p>final&nbsp;words.\u200b  And   more.</p></article>"), None)
    assert "final words. And more." in paragraphs


def test_utf8_without_charset_keeps_typographic_quote() -> None:
    paragraphs = extract_paragraphs("<p>It\u2019s the town\u2019s mill.</p>".encode(), "text/html")
    assert paragraphs == ["It\u2019s the town\u2019s mill."]


def test_gb2312_meta_with_bare_header() -> None:
    html = '<html><head><meta charset=gb2312><title>\u94dc\u9547\u7b80\u4ecb</title></head><body><p>\u94dc\u9547</p></body></html>'
    assert extract_title(html.encode("gb2312"), "text/html") == "\u94dc\u9547\u7b80\u4ecb"


def test_title_fallbacks() -> None:
    assert extract_title(b"<html><head><title> A &amp;  B </title></head></html>") == "A & B"
    assert extract_title(b'<html><head><meta property="og:title" content="OG"></head></html>') == "OG"
    assert extract_title(b"<html><body><h1>Heading</h1></body></html>") == "Heading"
    assert extract_title(b"") is None


@pytest.mark.parametrize(
    ("html", "kind"),
    [
        ('<html><head><meta http-equiv="Refresh" content="0; URL=https://x.test/"></head><body>Redirecting…</body></html>', "redirect-stub"),
        ("<html><body><script>window.location.href = '/next';</script><p>Loading</p></body></html>", "redirect-stub"),
        ("<html><body><h1>Checking your browser before accessing</h1><p>Verify you are human.</p></body></html>", "bot-wall"),
        ("<html><body><p>You need to enable JavaScript to run this app.</p></body></html>", "bot-wall"),
        ("<html><body><h2>Before you continue</h2><p>We use cookies. Accept all cookies to continue.</p></body></html>", "cookie-wall"),
    ],
)
def test_not_content_pages_are_classified_and_yield_nothing(html: str, kind: str) -> None:
    assert classify_page(html.encode()) == kind
    assert extract_paragraphs(html.encode(), "text/html") == []


def test_content_pages_are_not_classified() -> None:
    distinct = "".join(FILLER.replace("1823", str(1800 + i)) for i in range(12))
    article = _doc(f"<article>{distinct}<p>This site uses cookies. Accept cookies?</p></article>"
                   "<noscript>Please enable JavaScript</noscript><script>location.href='/x'</script>")
    assert classify_page(article) is None
    assert len(extract_paragraphs(article, "text/html")) >= 12


@pytest.mark.parametrize(
    "body",
    [b"", b"   ", b"<", b"<<<>>><p <div>>", b"\x00\x01\x02", b"<?xml version='1.0' encoding='utf-8'?><html><p>x</p></html>",
     b"<html><body><table><tr><td>unclosed", b"\xff\xfe\xfa\xfb" * 50, b"<p>" * 5000],
)
def test_malformed_html_never_crashes(body: bytes) -> None:
    assert isinstance(extract_paragraphs(body, "text/html"), list)
    extract_title(body)
    classify_page(body)


def test_skip_links_are_navigation_not_content() -> None:
    """MediaWiki's hidden-by-stylesheet "Jump to navigation" links (and "Skip to main content")
    never reach the paragraphs; an in-page link inside a sentence keeps its words."""
    page = (
        b'<html><body><div id="content"><a class="mw-jump-link" href="#mw-head">Jump to navigation</a>'
        b'<a class="mw-jump-link" href="#searchInput">Jump to search</a>'
        b'<a href="#main">Skip to main content</a>'
        b"<p>Lake Mira lies east of Lakeside and feeds the river Avel.</p>"
        b'<p>See the map, or <a href="#map">jump to the map</a> below.</p>'
        b'<p><a href="/wiki/Jump">Jump to conclusions</a> is a phrase.</p></div></body></html>'
    )
    paragraphs = extract_paragraphs(page, "text/html; charset=utf-8")
    text = " ".join(paragraphs)
    assert "Jump to navigation" not in text and "Jump to search" not in text and "Skip to main" not in text
    assert "Lake Mira lies east of Lakeside and feeds the river Avel." in paragraphs
    assert "See the map, or jump to the map below." in paragraphs
    assert "Jump to conclusions is a phrase." in paragraphs


def test_mediawiki_chrome_and_heading_stay_out_of_the_paragraphs() -> None:
    """A short MediaWiki article: no 'From <site>', no heading paragraph, no navigation menu."""
    page = (
        "<html><head><title>Kansas Song - Ditto Wiki</title></head><body>"
        '<div id="content" class="mw-body" role="main"><h1 id="firstHeading">Kansas Song</h1>'
        '<div id="siteSub" class="noprint">From Ditto Wiki</div>'
        '<div class="mw-parser-output"><p>Kansas Song is a fight song of the University of Kansas.</p></div>'
        '<div class="printfooter">Retrieved from "https://wiki.test/w/index.php?title=Kansas_Song"</div></div>'
        '<div id="mw-navigation"><h2>Navigation menu</h2><ul><li>Main page</li><li>Recent changes</li></ul></div>'
        "</body></html>"
    ).encode()
    assert extract_title(page) == "Kansas Song"
    assert extract_paragraphs(page, "text/html") == ["Kansas Song is a fight song of the University of Kansas."]
    # without a main region the heading-only paragraph is still dropped
    bare = b"<html><head><title>Cho Kyuhyun</title></head><body><p>Cho Kyuhyun</p><p>Cho Kyu-hyun is a singer.</p></body></html>"
    assert extract_paragraphs(bare, "text/html") == ["Cho Kyu-hyun is a singer."]
