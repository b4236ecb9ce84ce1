"""Main-text paragraphs of a cleaned HTML tree (step 4 of :mod:`ditto_nb.web.extract`).

The page's ``<main>`` / ``role="main"`` region, when it declares one, is the input (a short page
otherwise came back with its navigation menu appended). ``trafilatura.extract(...,
output_format="xml", include_tables=True, favor_recall=True)`` picks the main-content blocks; one
paragraph per block (``p``, heading, list item, quote, code; a table row is one paragraph with
cells joined by ``" | "``); ``<br>`` becomes a space. When trafilatura finds nothing, a block walk
over the ``<body>`` does the same with HTML block elements.
"""

from __future__ import annotations

import copy

import lxml.etree
import lxml.html
import trafilatura

from ditto_nb.text import normalize_text

_BLOCK_TAGS = frozenset(
    "address article aside blockquote body caption center dd details dialog div dl dt fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr html legend li main nav ol p pre "
    "section summary table tbody thead tfoot ul".split()
)
_CELL_TAGS = frozenset({"td", "th"})
_TRAFILATURA_BLOCKS = frozenset({"p", "head", "item", "quote", "code"})


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


def main_paragraphs(clean: lxml.html.HtmlElement) -> list[str]:
    """Paragraphs of the page's ``<main>`` / ``role="main"`` region when it declares one (a short
    page otherwise came back with its navigation menu appended), else of the whole page."""
    main = next((el for el in clean.xpath("//main | //*[@role='main']") if el.text_content().strip()), None)
    if main is not None:
        clean = lxml.html.fromstring(f"<html><body>{lxml.html.tostring(main, encoding='unicode')}</body></html>")
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


__all__ = ["main_paragraphs"]
