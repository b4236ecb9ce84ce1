"""Frames over a Web QA task run stage by stage (sandbox HTTPS web, scripted model, Redis, SQLite)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import ConfigError
from ditto_nb.notebook import frames as F
from ditto_nb.notebook.styles import style_claims
from ditto_nb.notebook.widgets import StageProgress
from ditto_nb.patterns.web_qa import STAGES, open_web_qa, run_web_qa
from tests.patterns.web_qa.helpers import Script, make_request, model_input


def _columns_ok(task: Path) -> None:
    for fn, columns in [(F.query_plan_frame, F.QUERY_PLAN_COLUMNS), (F.search_hits_frame, F.SEARCH_HITS_COLUMNS),
                        (F.pages_frame, F.PAGES_COLUMNS), (F.evidence_frame, F.EVIDENCE_COLUMNS),
                        (F.claims_frame, F.CLAIMS_COLUMNS), (F.budget_frame, F.BUDGET_COLUMNS),
                        (F.failures_frame, F.FAILURES_COLUMNS), (F.omitted_frame, F.OMITTED_COLUMNS)]:
        assert list(fn(task).columns) == columns, fn.__name__


async def test_frames_follow_the_stages(tmp_path: Path, web: Any, search: Any, config: Any, scripted_model: Any) -> None:
    scripted_model.responder = Script(queries=["Golden Gate Bridge", "bridge main span"])
    request = make_request(web, max_pages=3)
    task = tmp_path / "task"
    app = await open_web_qa(task, request, config, search)
    progress = StageProgress(STAGES)
    try:
        await run_web_qa(app.runtime, model_input(request, scripted_model), stop_after="plan", on_graph=progress)
        _columns_ok(task)
        plan = F.query_plan_frame(task)
        assert plan["query"].tolist() == ["Golden Gate Bridge"]  # the first hop; "bridge main span" waits for the second
        assert F.search_hits_frame(task).empty and F.pages_frame(task).empty and F.claims_frame(task).empty

        await run_web_qa(app.runtime, model_input(request, scripted_model), stop_after="searched", on_graph=progress)
        hits = F.search_hits_frame(task)
        assert len(hits) >= 2 and hits["discovery_only"].all()
        assert set(hits["query"]) <= {"Golden Gate Bridge", "bridge main span"}

        await run_web_qa(app.runtime, model_input(request, scripted_model), stop_after="read", on_graph=progress)
        pages = F.pages_frame(task)
        assert len(pages) == 2 and pages["failure"].isna().all()
        assert (pages["status"] == 200).all() and (pages["bytes"] > 0).all() and (pages["paragraphs"] == 2).all()
        assert pages["sha256"].str.len().eq(12).all()
        evidence = F.evidence_frame(task)
        assert len(evidence) == 4 and evidence["selected"].isna().all()

        await run_web_qa(app.runtime, model_input(request, scripted_model), stop_after="selected", on_graph=progress)
        evidence = F.evidence_frame(task)
        assert evidence["selected"].map(lambda v: v is True or v is False).all()

        await run_web_qa(app.runtime, model_input(request, scripted_model), on_graph=progress)
    finally:
        await app.close()
        progress.close()
    _columns_ok(task)
    claims = F.claims_frame(task)
    assert len(claims) >= 1 and claims["grounded"].all() and claims["quotes_verified"].all()
    evidence = F.evidence_frame(task)
    cited = evidence[evidence["quote"].notna()]
    assert len(cited) >= 1
    for row in cited.itertuples():
        assert row.text[row.start:row.end] == row.quote
    budget = F.budget_frame(task).set_index("budget")
    assert budget.loc["model", "used"] == 4 and budget.loc["search", "used"] == 2 and budget.loc["read", "used"] == 2
    assert budget.loc["search", "limit"] == 2 and budget.loc["read", "limit"] == 3
    assert F.failures_frame(task).empty
    assert "plan" in progress.graph_names and progress.graph_names[-1] == "publish"
    assert progress.bar.n == len(STAGES)
    html = style_claims(claims).to_html()
    assert "#d4edda" in html


async def test_failures_and_omissions_are_frames(tmp_path: Path, web: Any, search: Any, config: Any,
                                                  scripted_model: Any) -> None:
    scripted_model.responder = Script()
    alpha = next(o for o in web.allowed_origins if "alpha.test" in o)
    missing = f"{alpha}/wiki/Missing_page"
    request = make_request(web, max_pages=2, reference_urls=[missing])
    task = tmp_path / "task"
    app = await open_web_qa(task, request, config, search)
    try:
        await run_web_qa(app.runtime, model_input(request, scripted_model), stop_after="read")
    finally:
        await app.close()
    failures = F.failures_frame(task)
    assert failures["source"].tolist() == [missing] and failures["failure"].iloc[0].startswith("http-")
    pages = F.pages_frame(task)
    assert pages.set_index("url").loc[missing, "failure"] == failures["failure"].iloc[0]
    omitted = F.omitted_frame(task)
    assert len(omitted) >= 1 and set(omitted["reason"]) == {"page-budget"}


def test_not_a_task(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        F.pages_frame(tmp_path)
