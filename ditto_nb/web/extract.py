"""HTML → title and main-text paragraphs.

Pipeline (one parse per page):

1. ``lxml.html`` parses the decoded text (malformed HTML never raises; an unparseable page
   yields no paragraphs).
2. Hidden content is dropped: ``script``, ``style``, ``template``, ``noscript`` (and other
   non-text elements), elements with the ``hidden`` attribute, ``aria-hidden="true"``, or an
   inline ``display:none`` / ``visibility:hidden`` style.
3. :func:`classify_page` spots pages that are not content (meta-refresh or script redirect
   stubs, bot walls, cookie walls); they yield no paragraphs.
4. ``trafilatura.extract(..., output_format="xml", include_tables=True, favor_recall=True)``
   picks the main-content blocks of the cleaned tree; one paragraph per block (``p``, heading,
   list item, quote, code; a table row is one paragraph with cells joined by ``" | "``); ``<br>``
   becomes a space. When trafilatura finds nothing, a block walk over the cleaned ``<body>``
   does the same with HTML block elements.
5. Every paragraph is normalized with :func:`ditto_nb.text.normalize_text`.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

import lxml.etree
import lxml.html
import trafilatura

from ditto_nb.text import normalize_text
from ditto_nb.web.decode import decode_html

_DROPPED_TAGS = (
    "script", "style", "template", "noscript", "iframe", "object", "embed", "svg", "canvas",
    "select", "button", "input", "textarea", "head",
)  # fmt: skip
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_BLOCK_TAGS = frozenset(
    "address article aside blockquote body caption center dd details dialog div dl dt fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr html legend li main nav ol p pre "
    "section summary table tbody thead tfoot ul".split()
)
_CELL_TAGS = frozenset({"td", "th"})
_TRAFILATURA_BLOCKS = frozenset({"p", "head", "item", "quote", "code"})

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
        kind: None for a content page, else ``"redirect-stub"``, ``"bot-wall"`` or ``"cookie-wall"``.
        paragraphs: main-text paragraphs (empty when ``kind`` is set).
    """

    title: str | None
    kind: str | None
    paragraphs: list[str] = field(default_factory=list)


def _parse(text: str) -> lxml.html.HtmlElement | None:
    text = _XML_DECLARATION.sub("", text, count=1).replace("\x00", "")
    if not text.strip():
        return None
    try:
        return lxml.html.document_fromstring(text)
    except (lxml.etree.ParserError, ValueError, lxml.etree.XMLSyntaxError):
        return None


_SITE_SEPARATORS = (" - ", " – ", " — ", " | ", " · ")


def _title(tree: lxml.html.HtmlElement) -> str | None:
    """The title as the page shows it: the ``<title>`` (else ``og:title``, else the first ``<h1>``),
    except that a ``<title>`` of the form ``<h1> - SiteName`` (MediaWiki, most CMSs) gives the
    first ``<h1>``."""
    found_titles: list[str] = []
    for xpath in ("//title", "//meta[@property='og:title']/@content", "//h1"):
        for found in tree.xpath(xpath):
            value = found if isinstance(found, str) else found.text_content()
            title = normalize_text(str(value))
            if title:
                found_titles.append(title)
                break
    if not found_titles:
        return None
    first = found_titles[0]
    heading = next((normalize_text(str(h.text_content())) for h in tree.xpath("//h1")), "")
    if heading and heading != first and any(first.startswith(heading + sep) for sep in _SITE_SEPARATORS):
        return heading
    return first


def _is_hidden(element: lxml.html.HtmlElement) -> bool:
    if element.get("hidden") is not None:
        return True
    if (element.get("aria-hidden") or "").strip().lower() == "true":
        return True
    return bool(_HIDDEN_STYLE.search(element.get("style") or ""))


def _drop_hidden(tree: lxml.html.HtmlElement) -> None:
    doomed = [
        el
        for el in tree.iter()
        if isinstance(el.tag, str) and (el.tag.lower() in _DROPPED_TAGS or _is_hidden(el))
    ]
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


def _xml_text(element: lxml.etree._Element) -> str:
    parts = [element.text or ""]
    for child in element:
        parts.append(" " if child.tag == "lb" else _xml_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _from_trafilatura_xml(xml: str) -> list[str]:
    try:
        doc = lxml.etree.fromstring(xml.encode("utf-8"))
    except lxml.etree.XMLSyntaxError:
        return []
    main = doc.find("main")
    if main is None:
        return []
    out: list[str] = []

    def walk(element: lxml.etree._Element) -> None:
        for child in element:
            tag = child.tag
            if tag == "row":
                cells = [normalize_text(_xml_text(cell)) for cell in child if cell.tag == "cell"]
                row = " | ".join(cell for cell in cells if cell)
                if row:
                    out.append(row)
            elif tag in _TRAFILATURA_BLOCKS and not any(
                grand.tag in _TRAFILATURA_BLOCKS or grand.tag in ("list", "table") for grand in child
            ):
                out.append(normalize_text(_xml_text(child)))
            else:
                if child.text and child.text.strip():
                    out.append(normalize_text(child.text))
                walk(child)
                if tag in _TRAFILATURA_BLOCKS and child.tail and child.tail.strip():
                    out.append(normalize_text(child.tail))

    walk(main)
    return [p for p in out if p]


def _block_walk(root: lxml.html.HtmlElement) -> list[str]:
    out: list[str] = []
    buffer: list[str] = []

    def flush() -> None:
        text = normalize_text("".join(buffer))
        if text:
            out.append(text)
        buffer.clear()

    def walk(element: lxml.html.HtmlElement) -> None:
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if tag == "br":
            buffer.append(" ")
        elif tag == "tr":
            flush()
            cells = [normalize_text(c.text_content()) for c in element if isinstance(c.tag, str) and c.tag in _CELL_TAGS]
            row = " | ".join(cell for cell in cells if cell)
            if row:
                out.append(row)
        elif tag in _BLOCK_TAGS or tag in _CELL_TAGS:
            flush()
            buffer.append(element.text or "")
            for child in element:
                walk(child)
            flush()
        else:
            buffer.append(element.text or "")
            for child in element:
                walk(child)
        buffer.append(element.tail or "")

    body = root.find("body")
    walk(body if body is not None else root)
    flush()
    return out


def _main_paragraphs(clean: lxml.html.HtmlElement) -> list[str]:
    try:
        xml = trafilatura.extract(
            copy.deepcopy(clean),
            output_format="xml",
            include_tables=True,
            include_comments=False,
            favor_recall=True,
            with_metadata=False,
        )
    except Exception:  # trafilatura on hostile markup: fall back to the block walk
        xml = None
    paragraphs = _from_trafilatura_xml(xml) if xml else []
    return paragraphs or _block_walk(clean)


def analyze_html(text: str) -> Extraction:
    """Parse decoded HTML once and return its title, non-content kind and paragraphs.

    Args:
        text: the decoded HTML (see :func:`ditto_nb.web.decode.decode_html`).

    Returns:
        An :class:`Extraction`; never raises on malformed HTML.
    """
    tree = _parse(text)
    if tree is None:
        return Extraction(title=None, kind=None, paragraphs=[])
    title = _title(tree)
    signals = _redirect_signals(tree)
    _drop_hidden(tree)
    kind = _classify(signals, _visible_text(tree))
    if kind is not None:
        return Extraction(title=title, kind=kind, paragraphs=[])
    return Extraction(title=title, kind=None, paragraphs=_main_paragraphs(tree))


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
