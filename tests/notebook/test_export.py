"""Markdown export of a cross-checked Web QA answer and of a deep research task."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ditto_nb.notebook import export_json, export_markdown
from ditto_nb.notebook.frames import claims_frame
from ditto_nb.text import normalize_text
from ditto_nb.web.snapshots import SnapshotStore
from tests.patterns.web_qa.helpers import Script, make_request, run_once

SOURCE_LINE = re.compile(r"^(\d+)\. \*\*(.+?)\*\* — <(https://[^>]+)> — retrieved (\S+) — SHA-256 `([0-9a-f]{64})`$", re.M)


async def test_cross_checked_export(tmp_path: Path, web: Any, search: Any, config: Any, scripted_model: Any) -> None:
    scripted_model.responder = Script()
    request = make_request(web, cross_check=True)
    task = tmp_path / "task"
    report = await run_once(task, request, config, search, scripted_model)
    assert report.answer.status == "answered"
    path = export_markdown(task, tmp_path / "share" / "report.md")
    text = path.read_text(encoding="utf-8")
    assert text.startswith(f"# {request.question}\n")
    assert "[^" not in text and "| --- |" not in text and "|---|" not in text
    assert "Stand-in model" in text  # the scripted model answered: the report says so
    sources_part = text.split("## Sources", 1)[1].split("\n## ", 1)[0]
    source_lines = [line for line in sources_part.splitlines() if line.strip() and not line.startswith("_")]
    matches = [SOURCE_LINE.match(line) for line in source_lines]
    assert source_lines and all(matches), source_lines  # every source line: title, URL, time, full SHA-256
    sources = {int(m.group(1)): m for m in matches if m}
    assert {m.group(3).split("/")[2].split(":")[0] for m in sources.values()} == {"alpha.test", "beta.test"}
    store = SnapshotStore(task)
    for m in sources.values():
        snapshot = store.load(m.group(5))
        assert m.group(4) == snapshot.fetched_at and m.group(2) == snapshot.title and snapshot.final_url == m.group(3)
    claims_part = text.split("## Claims", 1)[1].split("\n## ", 1)[0]
    claim_lines = re.findall(r"^\d+\. (.*)$", claims_part, re.M)
    quote_lines = re.findall(r'^ +- "(.*)" \[(\d+)\]$', claims_part, re.M)
    assert len(claim_lines) == len(claims_frame(task)) >= 1
    assert len(quote_lines) == sum(len(c.citations) for c in report.answer.claims)
    for quote, number in quote_lines:
        snapshot = store.load(sources[int(number)].group(5))
        assert quote.replace("\\", "") in "\n".join(normalize_text(p) for p in snapshot.paragraphs)
    for line in claim_lines:
        refs = {int(n) for n in re.findall(r"\[(\d+)\]", line)}
        assert len({sources[n].group(3).split("/")[2] for n in refs}) >= 2, line  # quotes from two origins
    published = (task / "output" / "report.json").read_text(encoding="utf-8")
    assert export_json(task, tmp_path / "r.json").read_text(encoding="utf-8") == published
    assert json.loads(published)["answer"]["status"] == "answered"
