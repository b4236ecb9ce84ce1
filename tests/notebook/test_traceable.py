"""Traceable citations: mirror pages keep their own attribution; show_quote highlights exact offsets."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import ConfigError
from ditto_nb.notebook import claims_frame, evidence_frame, render_report_markdown
from ditto_nb.notebook.quotes import evidence_text, page_paragraphs, show_quote
from ditto_nb.notebook.memory_view import load_task
from ditto_nb.patterns.common import SearchSetup
from tests.patterns.web_qa.helpers import BRIDGE_A, BRIDGE_B, Script, make_request, run_once

MIRRORED = [{"url": "https://alpha.test/a", "title": "Bridge", "paragraphs": [BRIDGE_A]},
            {"url": "https://mirror.test/a", "title": "Bridge", "paragraphs": [BRIDGE_A]},
            {"url": "https://beta.test/b", "title": "Bridge facts", "paragraphs": [BRIDGE_B]}]


async def _mirror_task(tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any) -> tuple[Path, Any]:
    """A task whose claim quotes one of two byte-identical pages (same chunk ids)."""
    web = sandbox_factory(MIRRORED)
    order: list[str] = []

    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        copies = [c for c in chunks if c[2].endswith(BRIDGE_A)]
        order.extend(c[1] for c in copies)
        label = copies[-1][0]
        return {"status": "answered", "answer": "The span is 1,280 meters long.", "claims": [
            {"claim": "The main span is 1,280 meters long.", "chunk_id": label, "quote": "1,280 meters long"}]}

    scripted_model.responder = Script(queries=["bridge main span"], answer=answer, repair=answer)  # every page has all three words (AND search)
    task = tmp_path / "mirror"
    report = await run_once(task, make_request(web, max_pages=3), config, SearchSetup.from_sandbox(web), scripted_model)
    assert len(order) == 1  # the pattern offers the content once (mirrors count once)
    return task, report


async def test_mirror_keeps_its_own_attribution(tmp_path: Path, sandbox_factory: Any, config: Any,
                                                scripted_model: Any) -> None:
    task, report = await _mirror_task(tmp_path, sandbox_factory, config, scripted_model)
    cite = report.answer.claims[0].citations[0]
    evidence = evidence_frame(task)
    copies = evidence[evidence["chunk_id"] == cite.chunk_id]
    assert len(copies) == 2 and copies["final_url"].nunique() == 2  # one row per page, same content id
    assert copies["mirror_of"].notna().sum() == 1  # counted once: one copy names the other
    quoted = copies[copies["quote"].notna()]
    assert quoted["final_url"].tolist() == [cite.final_url] and quoted["origin"].tolist() == [cite.origin]
    assert quoted["title"].tolist() == [cite.title]
    other = copies[copies["quote"].isna()]
    assert other["final_url"].tolist() != [cite.final_url]
    claims = claims_frame(task)
    assert claims["links"].tolist() == [[cite.final_url]] and claims["titles"].tolist() == [[cite.title]]
    view = show_quote(task, claims["chunks"][0][0])
    assert view.paragraph.final_url == cite.final_url and view.paragraph.title == cite.title
    text = render_report_markdown(task)
    sources = re.findall(r"^\d+\. \*\*(.+?)\*\* — <(\S+)> — retrieved (\S+) — SHA-256 `([0-9a-f]{64})`$", text, re.M)
    assert (cite.title, cite.final_url, cite.fetched_at, cite.sha256) in set(sources)
    assert [u for _t, u, _r, _s in sources].count(cite.final_url) == 1
    assert cite.final_url in text


async def test_show_quote_highlights_exact_offsets(tmp_path: Path, sandbox_factory: Any, config: Any,
                                                   scripted_model: Any) -> None:
    task, report = await _mirror_task(tmp_path, sandbox_factory, config, scripted_model)
    cite = report.answer.claims[0].citations[0]
    assert cite.start > 0  # the quote is in the middle of its paragraph
    views = show_quote(task, 1)
    assert len(views) == 1
    view = views[0]
    assert (view.start, view.end) == (cite.start, cite.end)
    html = view._repr_html_()
    paragraph = view.paragraph.text
    marked = re.search(r"<p[^>]*>(.*?)<mark class='ditto-quote'>(.*?)</mark>(.*?)</p>", html, re.S)
    assert marked is not None
    assert marked.group(1) == paragraph[: cite.start] and marked.group(2) == cite.quote
    assert marked.group(3) == paragraph[cite.end:]
    for detail in (cite.final_url, cite.fetched_at, cite.sha256, cite.title):
        assert detail in html
    assert f"href='{cite.final_url}'" in html
    assert evidence_text(task, f"{cite.chunk_id}@{cite.final_url}") == paragraph and paragraph.endswith(BRIDGE_A)
    with pytest.raises(ConfigError):
        show_quote(task, 9)
    with pytest.raises(ConfigError):
        show_quote(task, "000000000000:0")


async def test_show_quote_rejects_offsets_that_do_not_match(tmp_path: Path, sandbox_factory: Any, config: Any,
                                                            scripted_model: Any) -> None:
    task, report = await _mirror_task(tmp_path, sandbox_factory, config, scripted_model)
    cite = report.answer.claims[0].citations[0].model_dump()
    shifted = {**cite, "start": cite["start"] + 1, "end": cite["end"] + 1}
    with pytest.raises(ConfigError, match="does not match"):
        show_quote(task, shifted)
    assert len({p.final_url for p in page_paragraphs(load_task(task))}) == 3
