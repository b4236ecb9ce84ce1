"""Coverage frames of a deep research task, and the validating request form."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import ConfigError
from ditto_nb.notebook import coverage_frame, evidence_frame, export_markdown, rounds_frame, stop_reason_summary
from ditto_nb.notebook.research_frames import COVERAGE_COLUMNS
from ditto_nb.notebook.styles import style_coverage
from ditto_nb.notebook.widgets import RequestForm, StageProgress
from ditto_nb.patterns.deep_research import ResearchRequest
from ditto_nb.patterns.web_qa import WebQaRequest
from ditto_nb.runtime.loop import GraphRecord
from tests.patterns.deep_research.helpers import bridge_corpus, bridge_script, make_request, run_once


async def test_coverage_frame_per_round(tmp_path: Path, sandbox_factory: Any, scripted_model: Any,
                                        scripted_config: Any, redis_url: str) -> None:
    web = sandbox_factory(bridge_corpus())
    config = scripted_config(redis_url=redis_url)
    scripted_model.responder = bridge_script()
    request = make_request(web)
    task = tmp_path / "research"
    await run_once(web, config, task, request, stop_after="plan")
    assert coverage_frame(task).empty and list(coverage_frame(task).columns) == COVERAGE_COLUMNS
    result = await run_once(web, config, task, request, stop_after="round")
    assert result["round"] == 1
    first = coverage_frame(task)
    assert len(first) == 2 and first["status"].tolist() == ["covered", "gap"]
    assert evidence_frame(task)["selected"].isna().all() and len(evidence_frame(task)) >= 2
    await run_once(web, config, task, request)
    cov = coverage_frame(task)
    assert list(dict.fromkeys(cov["round"])) == [1, 2, "report"]
    assert cov[cov["round"] == 2]["status"].tolist() == ["covered", "covered"]
    assert all(reason.startswith("the assessment cites E") for reason in cov[cov["round"] == 2]["reason"])
    final = cov[cov["round"] == "report"]
    assert final["status"].tolist() == ["covered", "covered"]
    assert all(reason.startswith("finding ") and " answers it" in reason for reason in final["reason"])
    rounds = rounds_frame(task)
    assert rounds["covered"].tolist() == [1, 2] and rounds["gaps"].tolist() == [1, 0]
    summary = stop_reason_summary(task)
    assert summary["stop_reason"] == "coverage-complete" and summary["rounds"] == 2 and summary["gaps"] == []
    assert summary["budgets"]["model"]["used"] >= 4
    assert "#d4edda" in style_coverage(cov).to_html()
    text = export_markdown(task, tmp_path / "r.md").read_text(encoding="utf-8")
    assert "stop reason: coverage-complete" in text and "## Sources" in text and "was born in Kessendorf" in text


def test_request_form_rejects_out_of_range() -> None:
    form = RequestForm(WebQaRequest, {"id": "t1", "tenant": "demo", "principal": "analyst",
                                      "question": "Which river flows through Paris?",
                                      "allowed_origins": ["https://wiki.test"], "max_queries": 2, "max_pages": 4,
                                      "cross_check": False})
    form.set(max_queries=5)
    assert form.validate() is None
    assert "max_queries" in form.error and "less than or equal to 3" in form.error
    assert "max_queries" in form.message.value
    form.set(max_queries=3, allowed_origins="https://wiki.test\nhttps://atlas.test")
    request = form.validate()
    assert isinstance(request, WebQaRequest) and request.allowed_origins == ("https://wiki.test:443", "https://atlas.test:443")
    assert form.error == ""


def test_research_form_budgets() -> None:
    form = RequestForm(ResearchRequest, {"id": "r1", "tenant": "demo", "principal": "analyst",
                                         "question": "Rivers of Paris", "allowed_origins": ["https://wiki.test"],
                                         "max_rounds": 2, "max_model_calls": 8})
    form.set(max_model_calls=7)
    assert form.validate() is None and "max_model_calls" in form.error


def test_stage_progress_in_a_console() -> None:
    from datetime import datetime, timezone

    out = io.StringIO()
    progress = StageProgress(["plan", "round", "report"], desc="research", file=out)
    now = datetime.now(timezone.utc)
    for name in ["resume", "plan", "search:r1", "round:r1", "report"]:
        progress(GraphRecord(index=0, name=name, node_ids=(), started_at=now, ended_at=now, seconds=0.1,
                             outcome="ok", error=None))
    progress.close()
    assert progress.bar.n == 3 and progress.graph_names[-1] == "report"
    assert "research" in out.getvalue() and "3/3" in out.getvalue()


def test_research_frames_refuse_web_qa(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        coverage_frame(tmp_path)
