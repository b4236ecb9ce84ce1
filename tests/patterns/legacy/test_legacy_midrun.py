"""Task directories stopped mid-run by the previous engine (``midrun/``, made by
``make_midrun_fixture.py`` with commit 28c8559) resume on today's stage runner and grounded-answer
component and end with the report the previous code wrote in one go."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from ditto_nb.patterns.deep_research import ResearchReport, ResearchRequest, open_research, run_research
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest, open_web_qa, run_web_qa
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.patterns.deep_research.helpers import bridge_script
from tests.patterns.legacy.offline import offline_search

MIDRUN = Path(__file__).parent / "midrun"
MODEL = {"provider": "scripted", "model": "scripted"}


def _cited(report: Any) -> list[tuple[str, str, str, int, int]]:
    return [(claim["claim"], c["chunk_id"], c["quote"], c["start"], c["end"])
            for claim in report["answer"]["claims"] for c in claim["citations"]]


def _purposes(model: ScriptedModel) -> list[str]:
    return [r["messages"][0]["content"].splitlines()[0].removeprefix("Task: ") for r in model.requests]


async def test_research_stopped_after_its_rounds_resumes_to_the_same_report(
    tmp_path: Path, scripted_model: ScriptedModel, scripted_config: Any
) -> None:
    directory = tmp_path / "research"
    shutil.copytree(MIDRUN / "research", directory)
    expected = json.loads((MIDRUN / "research.expected.json").read_text())
    request = ResearchRequest.model_validate_json((MIDRUN / "research.request.json").read_text())
    scripted_model.responder = bridge_script()
    app = await open_research(directory, request, scripted_config(), offline_search(request.allowed_origins))
    try:
        done = await run_research(app.runtime, {"request": request, "model": MODEL})
    finally:
        await app.close()
    assert isinstance(done, ResearchReport)
    report = done.model_dump(mode="json")
    # only the report's calls were left: no plan, no assessment, no search and no read again
    assert set(_purposes(scripted_model)) <= {"report", "review", "repair", "coverage"} and "report" in _purposes(scripted_model)
    assert report["failures"] == [] and report["budgets"]["search"] == expected["budgets"]["search"]
    assert report["budgets"]["read"] == expected["budgets"]["read"]
    for key in ("status", "stop_reason", "sub_questions", "unknowns", "withheld"):
        assert report[key] == expected[key], key
    assert [(r["round"], r["stop_reason"]) for r in report["rounds"]] == [
        (r["round"], r["stop_reason"]) for r in expected["rounds"]] == [(1, None), (2, "coverage-complete")]
    # the same findings; today's report puts the one the coverage call names for the topic first
    assert sorted((c["statement"], c["quote"]) for c in report["conclusions"]) == sorted(
        (c["statement"], c["quote"]) for c in expected["conclusions"])
    assert [(r["question"], r["status"]) for r in report["coverage"]] == [
        (r["question"], r["status"]) for r in expected["coverage"]]
    assert (directory / "output" / "report.json").exists()


async def test_web_qa_stopped_after_its_report_publishes_the_same_answer(
    tmp_path: Path, scripted_model: ScriptedModel, scripted_config: Any
) -> None:
    directory = tmp_path / "web_qa"
    shutil.copytree(MIDRUN / "web_qa", directory)
    expected = json.loads((MIDRUN / "web_qa.expected.json").read_text())
    request = WebQaRequest.parse(json.loads((MIDRUN / "web_qa.request.json").read_text()))
    app = await open_web_qa(directory, request, scripted_config(), offline_search(request.allowed_origins))
    try:
        report = await run_web_qa(app.runtime, {"request": request, "model": MODEL})
    finally:
        await app.close()
    assert scripted_model.requests == []
    assert isinstance(report, WebQaReport)
    after = report.model_dump(mode="json")
    assert after["answer"]["status"] == expected["answer"]["status"] == "answered"
    assert after["answer"]["text"] == expected["answer"]["text"]
    assert _cited(after) == _cited(expected) and _cited(after)  # the staged task fetched at its own times
    assert after["queries"] == expected["queries"] and (directory / "output" / "report.json").exists()
