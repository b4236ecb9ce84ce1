"""Benchmark questions and the wikis they run against (shared by web_qa.py and deep_research.py).

- :func:`load_benchmark`: the 250 questions of the wiki benchmark (dev-150's bridge questions and
  comparison-100's comparison questions), each with its kind and its half of the fixed split
  (``benchmarks/data/split.json``, see ``wiki_split.py``), gold titles and gold paragraphs.
- :func:`load_questions`: the first N HotpotQA records of a file (plus, optionally, every record of
  a second file), for ``deep_research.py``.
- :func:`open_mediawiki`: the real MediaWiki (:mod:`ditto_nb.sandbox.mediawiki`) in a folder,
  attached when already running there, else installed / imported / started (and stopped by
  ``close``). Pages: every context paragraph of every given file.
- :func:`open_sandbox_and`: the same pages on the sandbox web, with AND search when this
  checkout's sandbox offers it (the printed note says which).

A :class:`WikiTarget` tells which ``/wiki/<Title>`` pages were served between two marks (the
MediaWiki access log, or the sandbox's request list), so "pages read" is measured at the
server, independently of the kit's report.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import trustme

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.sandbox import SandboxPage, SandboxWeb, import_hotpotqa
from ditto_nb.sandbox.mediawiki import MediaWikiSite
from ditto_nb.sandbox.mediawiki_files import wiki_title

from wiki_split import COMPARISON_100, DEV_150, SPLIT_FILE, kind_of, load_split


@dataclass(frozen=True)
class Question:
    """One benchmark question.

    Attributes:
        id: the record's ``_id``.
        question: the question text.
        answer: the gold answer.
        kind: ``bridge``, ``comparison-yesno`` or ``comparison-entity`` (:func:`wiki_split.kind_of`).
        gold_titles: the supporting pages' titles, in MediaWiki form.
        gold_paragraphs: ``{title: paragraph}`` of the supporting pages (what the oracle is given).
        half: ``tuning`` or ``check`` (the fixed split), "" outside it.
    """

    id: str
    question: str
    answer: str
    kind: str
    gold_titles: tuple[str, ...]
    gold_paragraphs: dict[str, str] = field(default_factory=dict)
    half: str = ""


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_questions(dev: Path, count: int, comparison: Path | None) -> list[Question]:
    """The first ``count`` records of ``dev`` followed by every record of ``comparison``."""
    return _questions(_records(dev)[:count] + (_records(comparison) if comparison is not None else []), {})


def load_benchmark(sources: tuple[Path, ...] = (DEV_150, COMPARISON_100), split: Path = SPLIT_FILE) -> list[Question]:
    """Every record of ``sources`` (bridge first, then comparison, in file order) with its half."""
    return _questions([record for source in sources for record in _records(source)], load_split(split))


def _questions(records: list[dict[str, Any]], halves: dict[str, str]) -> list[Question]:
    out = []
    for record in records:
        context = {title: " ".join(s.strip() for s in sentences if s.strip()) for title, sentences in record["context"]}
        titles = tuple(dict.fromkeys(title for title, _ in record["supporting_facts"]))
        out.append(Question(
            id=record["_id"], question=record["question"], answer=record["answer"],
            kind=kind_of(record), half=halves.get(record["_id"], ""),
            gold_titles=tuple(wiki_title(title) or title for title in titles),
            gold_paragraphs={wiki_title(title) or title: context.get(title, "") for title in titles},
        ))
    return out


def wiki_pages(sources: list[Path]) -> list[SandboxPage]:
    """Every context paragraph of every source file as a page (first title wins)."""
    pages: dict[str, SandboxPage] = {}
    for source in sources:
        for page in import_hotpotqa(source):
            pages.setdefault(wiki_title(page.title) or page.title, page)
    return list(pages.values())


@dataclass
class WikiTarget:
    """A running wiki the benchmark asks questions of."""

    name: str
    search: SearchSetup
    allowed_origins: tuple[str, ...]
    mark: Callable[[], int]
    titles_since: Callable[[int], list[str]]
    close: Callable[[], None]
    note: str = ""


def open_mediawiki(folder: Path, pages: list[SandboxPage]) -> WikiTarget:
    """The real MediaWiki in ``folder``: attach if running there, else build/import/start it.

    Pages missing from an installed wiki are imported first (a running wiki is stopped and
    restarted around the import). ``close`` stops the wiki only when this call started it.
    """
    started = time.perf_counter()
    note = "reused"
    site = MediaWikiSite.attach(folder)
    wanted = {wiki_title(page.title) for page in pages} - {None}
    if site is not None and wanted <= set(site.imported_titles()):
        owned = False
    else:
        if site is not None:
            site.stop()
        site = MediaWikiSite(folder)
        site.install()
        installed = time.perf_counter()
        added = site.import_pages(pages)
        imported = time.perf_counter()
        site.start()
        owned = True
        note = (f"built: install {installed - started:.0f} s, import of {added} pages and search index "
                f"{imported - installed:.0f} s, start {time.perf_counter() - imported:.0f} s")
        print(f"MediaWiki: imported {added} pages into {site.folder} ({note})", flush=True)
    count = len(site.imported_titles())
    print(f"MediaWiki ready at {site.api_url} ({count} pages, {time.perf_counter() - started:.1f} s)", flush=True)
    search = SearchSetup(provider="mediawiki", mediawiki_api_url=site.api_url, ca_bundle=str(site.ca_path),
                         resolve_overrides=site.resolve_overrides)
    running = site
    return WikiTarget(
        name="mediawiki", search=search, allowed_origins=site.allowed_origins,
        mark=running.log_offset, titles_since=running.pages_requested,
        close=running.stop if owned else (lambda: None),
        note=f"MediaWiki 1.39 (Debian), SQLite search: every term must match; {count} pages, {note}",
    )


def _and_option() -> dict[str, Any]:
    """Keyword arguments asking SandboxWeb for AND search, when this checkout offers such an option."""
    parameters = inspect.signature(SandboxWeb.__init__).parameters
    for name, value in (("search_mode", "and"), ("search_operator", "and"), ("match", "and"), ("operator", "AND"),
                        ("and_search", True), ("require_all_terms", True)):
        if name in parameters:
            return {name: value}
    return {}


def open_sandbox_and(pages: list[SandboxPage], workdir: Path) -> WikiTarget:
    """The same pages on the sandbox web (AND search when available; see :attr:`WikiTarget.note`)."""
    option = _and_option()
    web = SandboxWeb(pages, workdir, ca=trustme.CA(), **option).start()
    note = f"sandbox web, {option}" if option else "sandbox web: NO AND option in this checkout, its search ORs terms"
    print(f"Sandbox ready at {web.api_url} ({len(pages)} pages; {note})", flush=True)

    def titles_since(mark: int) -> list[str]:
        return [unquote(path[len("/wiki/"):]).replace("_", " ")
                for host, path in web.requests[mark:] if host == web.wiki_host and path.startswith("/wiki/")]

    return WikiTarget(
        name="sandbox-and" if option else "sandbox-or", search=SearchSetup.from_sandbox(web),
        allowed_origins=tuple(web.allowed_origins), mark=lambda: web.request_count, titles_since=titles_since,
        close=web.close, note=note,
    )


__all__ = ["COMPARISON_100", "DEV_150", "Question", "WikiTarget", "load_benchmark", "load_questions", "open_mediawiki",
           "open_sandbox_and", "wiki_pages"]
