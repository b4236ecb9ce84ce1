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

FOOTNOTE = re.compile(r'^\[\^(\d+)\]: "(.*)" — .*?, <(https://[^>]+)> \((https://[^)]+)\), retrieved (\S+)$', re.M)


async def test_cross_checked_export(tmp_path: Path, web: Any, search: Any, config: Any, scripted_model: Any) -> None:
    scripted_model.responder = Script()
    request = make_request(web, cross_check=True)
    task = tmp_path / "task"
    report = await run_once(task, request, config, search, scripted_model)
    assert report.answer.status == "answered"
    path = export_markdown(task, tmp_path / "share" / "report.md")
    text = path.read_text(encoding="utf-8")
    assert text.startswith(f"# {request.question}\n")
    notes = {int(m.group(1)): m for m in FOOTNOTE.finditer(text)}
    claim_lines = re.findall(r"^\d+\. (.*)$", text.split("## Claims", 1)[1].split("##", 1)[0], re.M)
    assert len(claim_lines) == len(claims_frame(task)) >= 1
    for line in claim_lines:
        refs = [int(n) for n in re.findall(r"\[\^(\d+)\]", line)]
        assert len({notes[n].group(4) for n in refs}) >= 2, line  # quotes from two origins
    sources = text.split("## Sources", 1)[1]
    rows = re.findall(r"^\| \d+ \| (https://\S+) \| (.*?) \| (\S+) \| `([0-9a-f]{64})` \|$", sources, re.M)
    assert len(rows) == 2 and {r[0].split("/")[2].split(":")[0] for r in rows} == {"alpha.test", "beta.test"}
    store = SnapshotStore(task)
    by_url = {r[0]: r[3] for r in rows}
    for match in notes.values():
        snapshot = store.load(by_url[match.group(3)])
        assert match.group(2) in "\n".join(normalize_text(p) for p in snapshot.paragraphs)
        assert match.group(5) == snapshot.fetched_at
    published = (task / "output" / "report.json").read_text(encoding="utf-8")
    assert export_json(task, tmp_path / "r.json").read_text(encoding="utf-8") == published
    assert json.loads(published)["answer"]["status"] == "answered"
