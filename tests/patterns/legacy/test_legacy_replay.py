"""Task directories written before the pattern framework (``tasks/``, made by ``make_fixture.py``
with commit 4f160f9) still open, migrate and replay with zero model calls and zero fetches."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from ditto_nb.patterns.deep_research import open_research, run_research
from ditto_nb.patterns.tasks import read_task
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest, open_web_qa, run_web_qa
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.patterns.legacy.offline import offline_search

TASKS = Path(__file__).parent / "tasks"
MODEL = {"provider": "scripted", "model": "scripted"}


async def test_legacy_research_task_replays_with_zero_calls(
    tmp_path: Path, scripted_model: ScriptedModel, scripted_config: Any
) -> None:
    directory = tmp_path / "research"
    shutil.copytree(TASKS / "research", directory)
    before = json.loads((directory / "output" / "report.json").read_text())
    request = read_task(directory)
    assert request is not None
    app = await open_research(directory, request, scripted_config(), offline_search(request.allowed_origins))
    try:
        report = await run_research(app.runtime, {"request": request, "model": MODEL})
    finally:
        await app.close()
    assert len(scripted_model.requests) == 0
    after = report.model_dump(mode="json") if hasattr(report, "model_dump") else report
    assert after["status"] == before["status"] == "complete"
    assert after["stop_reason"] == before["stop_reason"]
    assert [r["round"] for r in after["rounds"]] == [r["round"] for r in before["rounds"]] == [1, 2]
    assert [c["quote"] for c in after["conclusions"]] == [c["quote"] for c in before["conclusions"]]


async def test_legacy_web_qa_task_replays_with_zero_calls(
    tmp_path: Path, scripted_model: ScriptedModel, scripted_config: Any
) -> None:
    directory = tmp_path / "web_qa"
    shutil.copytree(TASKS / "web_qa", directory)
    before = json.loads((directory / "output" / "report.json").read_text())
    request = WebQaRequest.parse(json.loads((TASKS / "web_qa.request.json").read_text()))
    app = await open_web_qa(directory, request, scripted_config(), offline_search(request.allowed_origins))
    try:
        report = await run_web_qa(app.runtime, {"request": request, "model": MODEL})
    finally:
        await app.close()
    assert len(scripted_model.requests) == 0
    assert isinstance(report, WebQaReport)
    after = report.model_dump(mode="json")
    assert after["answer"]["status"] == before["answer"]["status"] == "answered"
    assert after["answer"]["claims"] == before["answer"]["claims"]
