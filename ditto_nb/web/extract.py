"""HTML → title and main-text paragraphs.

Pipeline (one parse per page):

0. Text that is not text (a binary body decoded as text: many NULs, control characters or
   U+FFFD, see :func:`ditto_nb.web.decode.looks_binary`) is classified ``"not-text"``.
1. ``lxml.html`` parses the decoded text (malformed HTML never raises; an unparseable page
   yields no paragraphs). When libxml2 stops at its nesting limit (256 levels), tags nested
   deeper than 128 levels are removed (their text kept) and the page is parsed again.
2. Hidden content is dropped: ``script``, ``style``, ``template``, ``noscript`` (and other
   non-text elements), elements with the ``hidden`` attribute, ``aria-hidden="true"``, or an
   inline style hiding them: ``display:none``, ``visibility:hidden``, ``opacity:0``,
   ``font-size:0`` (unless a descendant sets its own non-zero inline ``font-size``),
   off-screen positioning (``left``/``top``/``right``/``text-indent`` of -1000px or beyond)
   or a clip to an empty (at most 1px) ``rect``. Skip links go too: an in-page link (``href``
   starting with ``#``) whose text starts "Jump to" or "Skip to" (MediaWiki's ``mw-jump-link``
   "Jump to navigation", many sites' "Skip to main content"): screen-reader navigation that a
   stylesheet hides, never content.
3. :func:`classify_page` spots pages that are not content (meta-refresh or script redirect
   stubs, bot walls, cookie walls); they yield no paragraphs.
   Page chrome goes as well: MediaWiki's ``noprint`` / ``printfooter`` elements ("From <site>",
   "Retrieved from …").
4. :func:`ditto_nb.web.paragraphs.main_paragraphs` (trafilatura over the page's ``<main>`` /
   ``role="main"`` region when it has one, a block walk when trafilatura finds nothing) gives one
   paragraph per block; a paragraph that only repeats the title (the heading) is dropped, and a
   heading merged into the first paragraph is cut off.
5. Every paragraph is normalized with :func:`ditto_nb.text.normalize_text`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import lxml.etree
import lxml.html

from ditto_nb.text import normalize_text
from ditto_nb.web.decode import decode_html, looks_binary
from ditto_nb.web.paragraphs import main_paragraphs

_DROPPED_TAGS = (
    "script", "style", "template", "noscript", "iframe", "object", "embed", "svg", "canvas",
    "select", "button", "input", "textarea", "head",
)  # fmt: skip
_ZERO = r"(?:0+(?:\.0*)?|\.0+)"  # a CSS zero: 0, 0.0, .0
_HIDDEN_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden"
    rf"|(?<![\w-])opacity\s*:\s*{_ZERO}\s*(?:!important\s*)?(?:;|$)"
    r"|(?<![\w-])(?:left|top|right|text-indent)\s*:\s*-\s*"
    r"(?:\d{4,}(?:\.\d*)?(?:px)?|\d{3,}(?:\.\d*)?(?:em|rem))\b"  # off-screen: -1000px or beyond
    r"|(?<![\w-])clip\s*:\s*rect\((?:\s*[01](?:\.0*)?(?:px)?\s*,?){4}\s*\)",  # empty clip
    re.IGNORECASE,
)
_ZERO_FONT = re.compile(
    rf"(?<![\w-])font-size\s*:\s*{_ZERO}(?:px|em|rem|pt|%)?\s*(?:!important\s*)?(?:;|$)", re.IGNORECASE
)
_ANY_FONT = re.compile(r"(?<![\w-])font-size\s*:", re.IGNORECASE)
_INLINE_CONTEXT = frozenset({"p", "li", "td", "th", "dd", "dt", "blockquote", "span", "em", "strong", "b", "i"})
"""Parents in which an in-page "jump to" link is part of a sentence, not a skip link."""
_SKIP_LINK_TEXT = re.compile(r"^\s*(?:jump|skip)\s+to\b", re.IGNORECASE)
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)\b[^>]*>")
_VOID_TAGS = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_MAX_NESTING = 128  # tags deeper than this are removed when libxml2 hits its limit (256)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)

_SCRIPT_REDIRECT = re.compile(
    r"(?:window\.|document\.|top\.|self\.)?location(?:\.href)?\s*=|location\.(?:replace|assign)\s*\(",
    re.IGNORECASE,
)
_BOT_WALL = re.compile(
    r"verify (?:that )?you are (?:a )?human|are you a robot|checking (?:if the site connection is secure|"
    r"your browser)|complete the security check|captcha|enable javascript|javascript is (?:disabled|required)|"
    r"please turn javascript on|unusual traffic from your",
    re.IGNORECASE,
)
_COOKIE_WALL = re.compile(
    r"accept (?:all )?cookies|cookie (?:consent|settings|preferences)|we use cookies|consent to (?:the use of )?cookies",
    re.IGNORECASE,
)
_STUB_TEXT_CHARS = 300  # a redirect stub shows at most this much visible text (characters)
_WALL_TEXT_CHARS = 1500  # a bot/cookie wall shows at most this much visible text (characters)


@dataclass(frozen=True)
class Extraction:
    """What one parse of a page yields.

    Attributes:
        title: the ``<title>`` (else ``og:title``, else the first ``<h1>``), normalized, or None.
        kind: None for a content page, else ``"redirect-stub"``, ``"bot-wall"``, ``"cookie-wall"``
            or ``"not-text"`` (a binary body).
        paragraphs: main-text paragraphs (empty when ``kind`` is set).
    """

    title: str | None
    kind: str | None
    paragraphs: list[str] = field(default_factory=list)


def _flatten_deep(text: str, limit: int = _MAX_NESTING) -> str:
    """Remove start and end tags nested deeper than ``limit`` (their text stays, as one run)."""
    out: list[str] = []
    depth, position = 0, 0
    for match in _TAG.finditer(text):
        if match.group(2).lower() in _VOID_TAGS or match.group(0).endswith("/>"):
            continue
        if match.group(1):
            drop = depth > limit
            depth = max(depth - 1, 0)
        else:
            depth += 1
            drop = depth > limit
        if drop:
            out += [text[position : match.start()], " "]
            position = match.end()
    out.append(text[position:])
    return "".join(out)


def _parse_once(text: str) -> tuple[lxml.html.HtmlElement | None, bool]:
    """Parse; also say whether libxml2 stopped at its nesting limit."""
    parser = lxml.html.HTMLParser()
    try:
        tree = lxml.html.document_fromstring(text, parser=parser)
    except (lxml.etree.ParserError, ValueError, lxml.etree.XMLSyntaxError):
        tree = None
    too_deep = any("Excessive depth" in entry.message for entry in parser.error_log)
    return tree, too_deep


def _parse(text: str) -> lxml.html.HtmlElement | None:
    text = _XML_DECLARATION.sub("", text, count=1).replace("\x00", "")
    if not text.strip():
        return None
    tree, too_deep = _parse_once(text)
    if too_deep:
        tree, _ = _parse_once(_flatten_deep(text))
    return tree


_SITE_SEPARATORS = (" - ", " – ", " — ", " | ", " · ")


def _title(tree: lxml.html.HtmlElement) -> str | None:
    """The title as the page shows it: the ``<title>`` (else ``og:title``, else the first ``<h1>``),
    except that a ``<title>`` of the form ``<h1> - SiteName`` (MediaWiki, most CMSs) gives the
    first ``<h1>``."""
    def first(xpath: str) -> str:
        found = (f if isinstance(f, str) else f.text_content() for f in tree.xpath(xpath))
        return next((text for text in (normalize_text(str(f)) for f in found) if text), "")

    title = first("//title") or first("//meta[@property='og:title']/@content")
    heading = first("//h1")
    if title and heading and heading != title and any(title.startswith(heading + sep) for sep in _SITE_SEPARATORS):
        return heading
    return title or heading or None


def _is_skip_link(element: lxml.html.HtmlElement) -> bool:
    """An accessibility skip link: ``<a href="#...">Jump to navigation</a>`` (step 2)."""
    parent = element.getparent()
    return (
        str(element.tag).lower() == "a"
        and (element.get("href") or "").startswith("#")
        and (parent is None or str(parent.tag).lower() not in _INLINE_CONTEXT)
        and bool(_SKIP_LINK_TEXT.match(element.text_content() or ""))
    )


def _is_hidden(element: lxml.html.HtmlElement) -> bool:
    if element.get("hidden") is not None:
        return True
    if _is_skip_link(element):
        return True
    if (element.get("aria-hidden") or "").strip().lower() == "true":
        return True
    style = element.get("style") or ""
    if not style:
        return False
    if _HIDDEN_STYLE.search(style):
        return True
    if _ZERO_FONT.search(style):  # hidden unless a descendant sizes its own text again
        return not any(
            _ANY_FONT.search(child.get("style") or "") and not _ZERO_FONT.search(child.get("style") or "")
            for child in element.iterdescendants()
            if isinstance(child.tag, str)
        )
    return False


def _is_chrome(element: lxml.html.HtmlElement) -> bool:
    """Page chrome by its own markup: MediaWiki's ``noprint`` and ``printfooter`` classes (``From
    <site>``, jump links, ``Retrieved from``)."""
    return bool({"noprint", "printfooter"} & set((element.get("class") or "").split()))


def _without_heading(paragraph: str, title: str | None) -> str:
    """``paragraph`` minus a leading copy of the title that the page's heading left before a
    sentence starting with the title ("Kansas Song Kansas Song (We're From Kansas) is …"); the
    ``<h1>`` itself stays in the tree: trafilatura finds the article by it (measured: removing it
    cost 1 point of recall on the article-extraction benchmark)."""
    if title and paragraph.startswith(f"{title} {title}"):
        return paragraph[len(title) + 1:]
    return paragraph


def _drop_hidden(tree: lxml.html.HtmlElement) -> None:
    doomed = [el for el in tree.iter() if isinstance(el.tag, str)
              and (el.tag.lower() in _DROPPED_TAGS or _is_hidden(el) or _is_chrome(el))]
    doomed += [el for el in tree.iter(lxml.etree.Comment, lxml.etree.ProcessingInstruction)]
    for el in doomed:
        if el.getparent() is not None:
            el.drop_tree()  # keeps the element's tail text, which belongs to its parent


def _visible_text(tree: lxml.html.HtmlElement) -> str:
    body = tree.find("body")
    return " ".join((body if body is not None else tree).text_content().split())


def _redirect_signals(raw: lxml.html.HtmlElement) -> tuple[bool, bool]:
    """(meta refresh with a URL, script assigning ``location``) — read before hidden parts go."""
    refresh = raw.xpath("//meta[translate(@http-equiv,'REFSH','refsh')='refresh']/@content")
    scripts = " ".join(str(s.text or "") for s in raw.iter("script"))
    return any("url" in str(value).lower() for value in refresh), bool(_SCRIPT_REDIRECT.search(scripts))


def _classify(signals: tuple[bool, bool], visible: str) -> str | None:
    if len(visible) <= _STUB_TEXT_CHARS and any(signals):
        return "redirect-stub"
    if len(visible) <= _WALL_TEXT_CHARS:
        if _BOT_WALL.search(visible):
            return "bot-wall"
        if _COOKIE_WALL.search(visible):
            return "cookie-wall"
    return None


def analyze_html(text: str) -> Extraction:
    """Parse decoded HTML once and return its title, non-content kind and paragraphs.

    Args:
        text: the decoded HTML (see :func:`ditto_nb.web.decode.decode_html`).

    Returns:
        An :class:`Extraction`; never raises on malformed HTML.
    """
    if looks_binary(text):
        return Extraction(title=None, kind="not-text", paragraphs=[])
    tree = _parse(text)
    if tree is None:
        return Extraction(title=None, kind=None, paragraphs=[])
    title = _title(tree)
    signals = _redirect_signals(tree)
    _drop_hidden(tree)
    kind = _classify(signals, _visible_text(tree))
    if kind is not None:
        return Extraction(title=title, kind=kind, paragraphs=[])
    # a paragraph that only repeats the title (the page's heading) states nothing
    paragraphs = [_without_heading(p, title) for p in main_paragraphs(tree)
                  if not title or p.casefold() != title.casefold()]
    return Extraction(title=title, kind=None, paragraphs=paragraphs)


def _as_text(html: str | bytes, content_type: str | None) -> str:
    return decode_html(html, content_type)[0] if isinstance(html, bytes) else html


def extract_paragraphs(body: bytes, content_type: str | None) -> list[str]:
    """Main-text paragraphs of an HTML body, each normalized with ``normalize_text``.

    Args:
        body: the HTML bytes (after content-encoding decoding).
        content_type: the ``Content-Type`` header value (its charset is honoured), or None.

    Returns:
        Paragraphs in document order; empty for non-content pages (:func:`classify_page`)
        and for unparseable input.
    """
    return analyze_html(_as_text(body, content_type)).paragraphs


def extract_title(body: str | bytes, content_type: str | None = None) -> str | None:
    """The page title (``<title>``, else ``og:title``, else the first ``<h1>``), normalized, or None.

    Args:
        body: HTML text, or bytes decoded with :func:`ditto_nb.web.decode.decode_html`.
        content_type: the ``Content-Type`` header value when ``body`` is bytes.
    """
    raw = _parse(_as_text(body, content_type))
    return _title(raw) if raw is not None else None


def classify_page(body: str | bytes, content_type: str | None = None) -> str | None:
    """Say whether a page is not content: ``"redirect-stub"``, ``"bot-wall"``, ``"cookie-wall"`` or None.

    A redirect stub has a meta refresh with a URL or a script assigning ``location`` and at
    most 300 characters of visible text; a bot/cookie wall shows at most 1500 visible characters
    including a challenge phrase ("verify you are human", "enable JavaScript", ...) or a cookie
    consent phrase.

    Args:
        body: HTML text or bytes.
        content_type: the ``Content-Type`` header value when ``body`` is bytes.
    """
    return analyze_html(_as_text(body, content_type)).kind


__all__ = ["Extraction", "analyze_html", "classify_page", "extract_paragraphs", "extract_title"]
