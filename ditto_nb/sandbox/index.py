"""Full-text index of a sandbox corpus: SQLite FTS5 with BM25 ranking.

Ranking is SQLite's built-in ``bm25()`` auxiliary function (Okapi BM25, k1=1.2, b=0.75; see
https://www.sqlite.org/fts5.html#the_bm25_function) with the title column weighted 5x the body.
The tokenizer is ``porter unicode61`` (Porter stemming over Unicode word tokens). Like
MediaWiki's default search (and Wikipedia's CirrusSearch), a query matches only pages holding
**every** one of its terms (terms are AND-ed, then ranked); OR is an explicit option
(``mode="or"``), never the default, so code developed against the sandbox meets the same
zero-hit queries a real wiki returns. Snippets are built with FTS5 ``snippet()`` and marked up
like MediaWiki's (``<span class="searchmatch">``).
"""

from __future__ import annotations

import html as html_module
import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

import lxml.html

from ditto_nb.sandbox.corpus import SandboxPage

_TOKEN = re.compile(r"\w+", re.UNICODE)
_START, _END = "\ue000", "\ue001"
_TITLE_WEIGHT, _BODY_WEIGHT = 5.0, 1.0
#: Fixed edit timestamp reported for every page (the sandbox is reproducible).
SANDBOX_TIMESTAMP = "2024-01-01T00:00:00Z"


@dataclass(frozen=True)
class IndexHit:
    """One search result.

    Attributes:
        pageid: the page's id (1-based position of its URL in the index).
        title: page title.
        url: the page's canonical sandbox URL (no port).
        snippet: MediaWiki-style HTML snippet (text escaped, matches in ``<span class="searchmatch">``).
        size: body size in bytes (UTF-8 HTML).
        wordcount: words in the indexed text.
        score: the BM25 score (lower is better, as SQLite returns it).
    """

    pageid: int
    title: str
    url: str
    snippet: str
    size: int
    wordcount: int
    score: float


def page_text(page: SandboxPage) -> str | None:
    """Return the searchable plain text of a page, or None when it is not indexable.

    Only pages answering 2xx with HTML or paragraphs are indexed (not redirects, errors or raw
    bodies). HTML is parsed with lxml; ``script``/``style`` are dropped.

    Args:
        page: the page.

    Returns:
        The text (paragraphs joined by newlines) or None.
    """
    if page.redirect is not None or not 200 <= page.status < 300 or page.raw_body_b64 is not None:
        return None
    if page.paragraphs is not None:
        return "\n".join(page.paragraphs)
    if not page.html or not page.html.strip():
        return None
    root = lxml.html.document_fromstring(page.html)
    for element in root.xpath("//script|//style|//head"):
        element.drop_tree()
    return " ".join(str(root.text_content()).split())


SEARCH_MODES = ("and", "or")
"""How the terms of a query combine: ``and`` (every term must match, the default) or ``or``."""


def fts_query(query: str, mode: str = "and") -> str | None:
    """Turn free text into an FTS5 MATCH expression: quoted terms joined with AND (or OR).

    Args:
        query: the user's search text.
        mode: ``"and"`` (default, like MediaWiki) or ``"or"``.

    Returns:
        The MATCH expression, or None when the text has no word token.

    Raises:
        ValueError: ``mode`` is not one of :data:`SEARCH_MODES`.
    """
    if mode not in SEARCH_MODES:
        raise ValueError(f"mode must be one of {SEARCH_MODES}, not {mode!r}")
    terms = list(dict.fromkeys(token.lower() for token in _TOKEN.findall(query)))
    if not terms:
        return None
    joiner = " AND " if mode == "and" else " OR "
    return joiner.join('"' + term.replace('"', '""') + '"' for term in terms)


class SearchIndex:
    """A thread-safe FTS5 index over sandbox pages (one row per URL; upserts replace).

    Args:
        path: SQLite file for the index, or ``":memory:"``.
        mode: how query terms combine when a search does not say: ``"and"`` (default, like
            MediaWiki) or ``"or"``.

    Raises:
        ValueError: ``mode`` is not one of :data:`SEARCH_MODES`.
    """

    def __init__(self, path: str | Path = ":memory:", mode: str = "and") -> None:
        if mode not in SEARCH_MODES:
            raise ValueError(f"mode must be one of {SEARCH_MODES}, not {mode!r}")
        self.mode = mode
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        if str(path) != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("DROP TABLE IF EXISTS pages_fts")
        self._db.execute("DROP TABLE IF EXISTS pages")
        self._db.execute(
            "CREATE TABLE pages (pageid INTEGER PRIMARY KEY, url TEXT UNIQUE NOT NULL, title TEXT NOT NULL,"
            " size INTEGER NOT NULL, wordcount INTEGER NOT NULL)"
        )
        self._db.execute(
            "CREATE VIRTUAL TABLE pages_fts USING fts5(title, body, tokenize='porter unicode61')"
        )

    def add(self, page: SandboxPage) -> bool:
        """Index (or re-index) one page; a non-indexable page is removed from the index.

        Args:
            page: the page.

        Returns:
            True when the page is now in the index.
        """
        text = page_text(page)
        with self._lock, self._db:
            row = self._db.execute("SELECT pageid FROM pages WHERE url = ?", (page.url,)).fetchone()
            if text is None:
                if row is not None:
                    self._db.execute("DELETE FROM pages_fts WHERE rowid = ?", (row[0],))
                return False
            size = len((page.render_html() or "").encode("utf-8"))
            wordcount = len(text.split())
            if row is None:
                cursor = self._db.execute(
                    "INSERT INTO pages (url, title, size, wordcount) VALUES (?, ?, ?, ?)",
                    (page.url, page.title, size, wordcount),
                )
                pageid = int(cursor.lastrowid or 0)
            else:
                pageid = int(row[0])
                self._db.execute(
                    "UPDATE pages SET title = ?, size = ?, wordcount = ? WHERE pageid = ?",
                    (page.title, size, wordcount, pageid),
                )
                self._db.execute("DELETE FROM pages_fts WHERE rowid = ?", (pageid,))
            self._db.execute(
                "INSERT INTO pages_fts (rowid, title, body) VALUES (?, ?, ?)", (pageid, page.title, text)
            )
        return True

    def search(
        self, query: str, limit: int = 10, offset: int = 0, *, what: str = "text", mode: str | None = None
    ) -> tuple[int, list[IndexHit]]:
        """Rank pages for ``query`` with BM25.

        Args:
            query: free text (every term must match; ``mode="or"``: any term).
            limit: most hits to return.
            offset: hits to skip (for continuation).
            what: ``"text"`` (title and body) or ``"title"`` (title column only).
            mode: ``"and"`` or ``"or"`` (None: the index's mode), see :func:`fts_query`.

        Returns:
            ``(totalhits, hits)``: the number of matching pages and the requested slice,
            best first (ties broken by pageid).
        """
        expression = fts_query(query, mode or self.mode)
        if expression is None:
            return 0, []
        if what == "title":
            expression = "title : (" + expression + ")"
        with self._lock:
            total = int(
                self._db.execute("SELECT count(*) FROM pages_fts WHERE pages_fts MATCH ?", (expression,)).fetchone()[0]
            )
            rows = self._db.execute(
                "SELECT p.pageid, p.title, p.url, p.size, p.wordcount,"
                " snippet(pages_fts, 1, ?, ?, ' ... ', 24), bm25(pages_fts, ?, ?) AS score"
                " FROM pages_fts JOIN pages p ON p.pageid = pages_fts.rowid"
                " WHERE pages_fts MATCH ? ORDER BY score, p.pageid LIMIT ? OFFSET ?",
                (_START, _END, _TITLE_WEIGHT, _BODY_WEIGHT, expression, max(0, limit), max(0, offset)),
            ).fetchall()
        hits = [
            IndexHit(
                pageid=int(row[0]),
                title=str(row[1]),
                url=str(row[2]),
                size=int(row[3]),
                wordcount=int(row[4]),
                snippet=_markup(str(row[5])),
                score=float(row[6]),
            )
            for row in rows
        ]
        return total, hits

    def prefix(self, prefix: str, limit: int = 10) -> list[IndexHit]:
        """Pages whose title starts with ``prefix``, in title order, like MediaWiki's
        ``list=prefixsearch`` on its database backend: the first letter is matched case-blind
        (titles start upper-case), the rest exactly.

        Args:
            prefix: the start of a title ("" matches nothing).
            limit: most hits.

        Returns:
            Hits (no snippet, score 0).
        """
        text = " ".join(prefix.split())
        if not text:
            return []
        start = text[:1].upper() + text[1:]
        with self._lock:
            rows = self._db.execute(
                "SELECT pageid, title, url, size, wordcount FROM pages WHERE substr(title, 1, ?) = ?"
                " ORDER BY title, pageid LIMIT ?", (len(start), start, max(0, limit)),
            ).fetchall()
        return [IndexHit(pageid=int(r[0]), title=str(r[1]), url=str(r[2]), size=int(r[3]), wordcount=int(r[4]),
                         snippet="", score=0.0) for r in rows]

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._db.close()


def _markup(raw: str) -> str:
    """Escape snippet text and turn the private-use match markers into MediaWiki spans."""
    escaped = html_module.escape(raw, quote=False)
    return escaped.replace(_START, '<span class="searchmatch">').replace(_END, "</span>")


__all__ = ["SANDBOX_TIMESTAMP", "SEARCH_MODES", "IndexHit", "SearchIndex", "fts_query", "page_text"]
