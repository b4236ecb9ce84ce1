"""Trace a quote to its page: evidence per page (mirrors kept apart), full paragraphs on demand,
and :func:`show_quote`, the cited paragraph with the quote highlighted at its exact offsets.

Chunk ids are content-addressed (``<sha256[:12]>:<paragraph index>``, see
:func:`ditto_nb.evidence.chunk_id_for`), so two mirror pages with the same bytes share them. For
attribution this module names a paragraph *of a page*: the **page chunk id**
``<chunk id>@<final URL>`` (:func:`page_chunk_id`). It is derived from the stored read records, so
task directories written before it existed load unchanged. Mirrors are still counted once (the
``mirror_of`` field names the first page read with the same content).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ditto_nb.errors import ConfigError
from ditto_nb.evidence import Chunk, chunks_from_page
from ditto_nb.notebook.memory_view import TaskView, as_view


def page_chunk_id(chunk_id: str, final_url: str) -> str:
    """The id of one paragraph of one page: ``<chunk id>@<final URL>``.

    Args:
        chunk_id: the content-addressed chunk id (``<sha256[:12]>:<paragraph index>``).
        final_url: the page's URL after redirects.

    Returns:
        e.g. ``"3f2a9c0b11de:4@https://mirror.test:8443/wiki/Paris"``.
    """
    return f"{chunk_id}@{final_url}"


class PageParagraph(Chunk):
    """One extracted paragraph of one page read by the task: a :class:`~ditto_nb.evidence.Chunk`
    (``chunk_id`` content-addressed and shared by mirrors, ``url``, ``final_url`` the page cited,
    ``origin``, ``title``, ``fetched_at``, ``sha256``, ``paragraph_index``, ``text`` whose characters
    quotes' offsets count) plus:

    Attributes:
        page_chunk_id: ``<chunk id>@<final URL>``.
        mirror_of: final URL of the first page read with the same content, or None.
    """

    page_chunk_id: str
    mirror_of: str | None


def page_paragraphs(view: TaskView) -> list[PageParagraph]:
    """Every paragraph of every page read successfully, in ledger order, mirrors included.

    Args:
        view: the task view (Web QA or deep research).

    Returns:
        One :class:`PageParagraph` per (page, paragraph); a page whose body equals an earlier
        page's has ``mirror_of`` set to that page's final URL.
    """
    first_url: dict[str, str] = {}
    out: list[PageParagraph] = []
    seen_pages: set[str] = set()
    for _key, row in view.ledger("read"):
        page = row.get("output")
        if row.get("status") != "done" or not isinstance(page, dict) or not page.get("ok") or not page.get("sha256"):
            continue
        chunks = chunks_from_page(page)
        if not chunks or chunks[0].final_url in seen_pages:
            continue
        final_url, sha = chunks[0].final_url, chunks[0].sha256
        seen_pages.add(final_url)
        mirror_of = first_url.setdefault(sha, final_url)
        for c in chunks:
            out.append(PageParagraph(**c.model_dump(), page_chunk_id=page_chunk_id(c.chunk_id, c.final_url),
                                     mirror_of=None if mirror_of == final_url else mirror_of))
    return out


def citations(view: TaskView) -> list[dict[str, Any]]:
    """The report's citations, each with ``claim`` (1-based claim number) and ``statement``.

    Args:
        view: the task view.

    Returns:
        Citation dicts (``chunk_id``, ``quote``, ``final_url``, ``origin``, ``title``,
        ``fetched_at``, ``sha256``, ``paragraph_index``, ``start``, ``end``, ``claim``,
        ``statement``); empty before the report.
    """
    report = view.report or {}
    out: list[dict[str, Any]] = []
    if view.pattern == "web_qa":
        for n, claim in enumerate((report.get("answer") or {}).get("claims", []), 1):
            out += [{**c, "claim": n, "statement": claim.get("claim")} for c in claim.get("citations", [])]
    else:
        numbers: dict[tuple[int, str], int] = {}
        for c in report.get("conclusions", []):
            n = numbers.setdefault((int(c.get("index", 0)), str(c.get("statement"))), len(numbers) + 1)
            out.append({**c, "claim": n})
    return out


@dataclass(frozen=True)
class QuoteView:
    """A paragraph of a page with an optional highlighted quote; renders as HTML in a notebook.

    Attributes:
        paragraph: the page paragraph (page, title, link, retrieval time, SHA-256, text).
        start: offset of the quote's first character in ``paragraph.text`` (None: no quote).
        end: offset one past the quote's last character (None: no quote).
        quote: the quote text (equal to ``paragraph.text[start:end]``), or None.
        statement: the claim the quote supports, or None.
    """

    paragraph: PageParagraph
    start: int | None = None
    end: int | None = None
    quote: str | None = None
    statement: str | None = None

    def _repr_html_(self) -> str:
        p = self.paragraph
        text = p.text
        if self.start is not None and self.end is not None:
            body = (html.escape(text[: self.start]) + "<mark class='ditto-quote'>" + html.escape(text[self.start: self.end])
                    + "</mark>" + html.escape(text[self.end:]))
        else:
            body = html.escape(text)
        claim = f"<div><b>Claim:</b> {html.escape(self.statement)}</div>" if self.statement else ""
        mirror = (f"<div>Same content as <a href='{html.escape(p.mirror_of)}' target='_blank'>"
                  f"{html.escape(p.mirror_of)}</a> (counted once)</div>" if p.mirror_of else "")
        span = f" · quote at characters {self.start}–{self.end}" if self.start is not None else ""
        return (
            "<div class='ditto-show-quote' style='border-left:4px solid #1565c0;padding:4px 10px;margin:6px 0'>"
            f"{claim}<div><b>{html.escape(p.title or p.final_url)}</b> — "
            f"<a href='{html.escape(p.final_url)}' target='_blank'>{html.escape(p.final_url)}</a></div>"
            f"<div style='color:#555;font-size:90%'>retrieved {html.escape(p.fetched_at)} · paragraph "
            f"{p.paragraph_index}{span} · SHA-256 <code style='word-break:break-all'>{p.sha256}</code></div>"
            f"{mirror}<p style='white-space:pre-wrap'>{body}</p></div>"
        )

    def __str__(self) -> str:
        p = self.paragraph
        marked = p.text if self.start is None or self.end is None else (
            f"{p.text[: self.start]}[[{p.text[self.start: self.end]}]]{p.text[self.end:]}")
        return f"{p.title} <{p.final_url}> retrieved {p.fetched_at} sha256 {p.sha256}\n{marked}"


class QuoteViews(list[QuoteView]):
    """Several :class:`QuoteView` (a claim with several quotes); renders them one after another."""

    def _repr_html_(self) -> str:
        return "".join(q._repr_html_() for q in self)


def _find(paragraphs: list[PageParagraph], chunk_id: str, final_url: str | None) -> PageParagraph:
    matches = [p for p in paragraphs if p.chunk_id == chunk_id and (final_url is None or p.final_url == final_url)]
    if not matches:
        where = f" of {final_url}" if final_url else ""
        raise ConfigError(f"chunk {chunk_id}{where} is not a paragraph of any page this task read")
    return matches[0]


def _quote_view(paragraphs: list[PageParagraph], cite: Mapping[str, Any]) -> QuoteView:
    paragraph = _find(paragraphs, str(cite["chunk_id"]), str(cite["final_url"]))
    start, quote = int(cite["start"]), str(cite["quote"])
    end = int(cite.get("end", start + len(quote)))
    if paragraph.text[start:end] != quote:
        raise ConfigError(f"quote of chunk {cite['chunk_id']} does not match its paragraph at [{start}, {end})")
    return QuoteView(paragraph, start, end, quote, cite.get("statement"))


def show_quote(task: Any, ref: int | str | Mapping[str, Any] | Any) -> QuoteView | QuoteViews:
    """The cited paragraph with the quote highlighted at its exact offsets, with page title, link,
    retrieval time and full SHA-256.

    Args:
        task: the task directory or :class:`TaskView`.
        ref: a claim number (1-based, the claims frame's row + 1) → every quote of that claim;
            a page chunk id (``<chunk id>@<final URL>``) or chunk id → that paragraph, with the
            report's quote highlighted when it is cited (a chunk id shared by mirrors picks the
            cited page, else the first page read); or a citation (mapping or model with
            ``chunk_id``, ``final_url``, ``quote``, ``start``, ``end``).

    Returns:
        A :class:`QuoteView` (or :class:`QuoteViews` for a claim); shown as HTML in a notebook.

    Raises:
        ConfigError: unknown claim number or chunk, or a quote that does not match its offsets.
    """
    view = as_view(task)
    paragraphs = page_paragraphs(view)
    cites = citations(view)
    if isinstance(ref, bool):
        raise ConfigError("show_quote needs a claim number, a chunk id or a citation")
    if isinstance(ref, int):
        chosen = [c for c in cites if c["claim"] == ref]
        if not chosen:
            raise ConfigError(f"claim {ref} does not exist (the report has {len({c['claim'] for c in cites})} claims)")
        return QuoteViews(_quote_view(paragraphs, c) for c in chosen)
    if isinstance(ref, str):
        chunk_id, _, final_url = ref.partition("@")
        cited = [c for c in cites if c["chunk_id"] == chunk_id and (not final_url or c["final_url"] == final_url)]
        if cited:
            return _quote_view(paragraphs, cited[0])
        return QuoteView(_find(paragraphs, chunk_id, final_url or None))
    cite = ref if isinstance(ref, Mapping) else ref.model_dump()
    return _quote_view(paragraphs, cite)


def evidence_text(task: Any, ref: str) -> str:
    """The full normalized paragraph of a chunk (frames shorten it for width).

    Args:
        task: the task directory or view.
        ref: a page chunk id or chunk id.

    Returns:
        The paragraph text.

    Raises:
        ConfigError: unknown chunk.
    """
    chunk_id, _, final_url = ref.partition("@")
    return _find(page_paragraphs(as_view(task)), chunk_id, final_url or None).text


def uses_stand_in(task: Any) -> bool:
    """Whether any model call of the task was answered by the scripted stand-in.

    Args:
        task: the task directory or view.

    Returns:
        True when a completed model dispatch recorded provider ``scripted``.
    """
    for _key, row in as_view(task).ledger("model"):
        out = row.get("output")
        if isinstance(out, dict) and out.get("provider") == "scripted":
            return True
    return False


__all__ = ["PageParagraph", "QuoteView", "QuoteViews", "citations", "evidence_text", "page_chunk_id",
           "page_paragraphs", "show_quote", "uses_stand_in"]
