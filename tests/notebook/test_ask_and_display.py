"""The ask form (validates as you type, fresh ids, Run starts a new task), in-cell progress, and
the readable views of frames."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ditto_nb.errors import ConfigError
from ditto_nb.notebook import load_task
from ditto_nb.notebook.ask import AskForm, fresh_task_id, tasks_folder, web_qa_runner
from ditto_nb.notebook.demo import open_notebook_env
from ditto_nb.notebook.display import (Notice, show, show_budget, show_failures, stand_in_banner,
                                       summary_frame)
from ditto_nb.notebook.progress import CellProgress
from ditto_nb.patterns.web_qa import WebQaRequest


def _form(tmp_path: Path, runner: Any = None, origins: list[str] | None = None) -> AskForm:
    return AskForm(WebQaRequest, {"question": "Which river flows through Paris?",
                                  "allowed_origins": origins or ["https://wiki.test"], "max_queries": 1,
                                  "max_pages": 3, "cross_check": False},
                   fixed={"tenant": "demo", "principal": "analyst"}, prefix="web-qa", tasks_dir=tmp_path,
                   runner=runner)


def test_form_validates_as_you_type(tmp_path: Path) -> None:
    form = _form(tmp_path)
    assert form.error == "" and "valid request" in form.message.value
    form.inputs["max_queries"].value = 9  # what typing into the box does: no button press
    assert "max_queries" in form.error and "max_queries" in form.message.value
    form.inputs["max_queries"].value = 1
    assert form.error == ""
    form.inputs["allowed_origins"].value = "http://wiki.test"
    assert form.error.startswith("allowed_origins: ") and "allowed_origins.allowed_origins" not in form.error
    assert "Value error" not in form.error
    with pytest.raises(ConfigError, match="allowed_origins"):
        form.request()


def test_form_request_gives_a_fresh_id_each_time(tmp_path: Path) -> None:
    form = _form(tmp_path)
    first = form.request()
    form.set(question="How long is the Seine?")
    second = form.request()
    assert isinstance(first, WebQaRequest) and isinstance(second, WebQaRequest)
    assert first.id != second.id and re.fullmatch(r"web-qa-\d{8}-\d{6}-[0-9a-f]{6}", second.id)
    assert second.question == "How long is the Seine?" and first.question == "Which river flows through Paris?"
    assert fresh_task_id("x") != fresh_task_id("x")


def test_tasks_folder_default_and_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DITTO_NOTEBOOK_TASKS", raising=False)
    assert tasks_folder() == (tmp_path / "tasks").resolve() and (tmp_path / "tasks").is_dir()
    monkeypatch.setenv("DITTO_NOTEBOOK_TASKS", str(tmp_path / "elsewhere"))
    assert tasks_folder() == (tmp_path / "elsewhere").resolve()


async def test_run_starts_a_new_task_with_the_typed_question(tmp_path: Path, redis_url: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DITTO_WORKER_CONTEXT_REDIS_URL", redis_url)
    env = open_notebook_env("scripted")
    try:
        form = _form(tmp_path, web_qa_runner(env), list(env.web.allowed_origins))
        form.set(question="How long is the Seine river?")
        running = form.run()
        assert running is not None
        await running
        form.set(question="How long is the River Thames?")
        running = form.run()
        assert running is not None
        await running
    finally:
        env.close()
    (first, first_dir), (second, second_dir) = form.started
    assert first_dir != second_dir and first_dir.parent == second_dir.parent == tmp_path
    assert load_task(first_dir).request["question"] == "How long is the Seine river?"
    assert load_task(second_dir).request["question"] == "How long is the River Thames?"
    assert load_task(second_dir).report is not None
    assert "How long is the River Thames?" in form.status.value and "ditto-outcome" in form.status.value
    assert len(form.output.outputs) == 2  # one progress widget per Run


async def test_run_does_nothing_when_invalid(tmp_path: Path) -> None:
    calls: list[Any] = []

    async def runner(*args: Any) -> str:
        calls.append(args)
        return ""

    form = _form(tmp_path, runner)
    form.set(question="")
    assert form.run() is None and calls == [] and "question" in form.error


async def test_cell_progress_counts_model_calls_and_time() -> None:
    calls: list[int] = []
    async with CellProgress("report", calls=lambda: len(calls), limit=6, tick=0.01) as progress:
        calls.extend([1, 2])
    assert progress.model_calls == 2 and progress.bar.value == 2 and progress.bar.bar_style == "success"
    assert re.fullmatch(r"report · done · model call 2 of 6 · \d+\.\d s", progress.text())
    with pytest.raises(ConfigError):
        async with CellProgress("plan", calls=lambda: 0, limit=6, tick=0.01) as failing:
            raise ConfigError("boom")
    assert failing.text().startswith("plan · failed (ConfigError)") and failing.bar.bar_style == "danger"


def test_show_renders_links_lists_and_empty_frames(tmp_path: Path) -> None:
    df = pd.DataFrame([{"claim": "A <b>", "quotes": ["q1", "q2"], "links": ["https://wiki.test/a"],
                        "cross_check": None, "status": "answered"}])
    html = show(df).to_html()
    assert "<a href='https://wiki.test/a' target='_blank'" in html and "“q1”<br>“q2”" in html
    assert "A &lt;b&gt;" in html and "not requested" in html and "['q1'" not in html
    empty = show_failures(pd.DataFrame(columns=["kind", "source", "failure", "error"]))
    assert isinstance(empty, Notice) and "no failures" in empty._repr_html_()
    budget = pd.DataFrame([{"budget": "model", "used": 3, "limit": 6, "scope": "run"}])
    bar = show_budget(budget).to_html()
    assert "50% of limit" in bar and "linear-gradient" in bar
    one = summary_frame({"correct": 0.5, "budgets": {"reads": {"used": 2, "limit": 4}}, "gaps": []})
    assert one.shape == (1, 3) and one.loc[0, "budgets"] == "reads 2/4" and one.loc[0, "gaps"] == "none"


def test_stand_in_banner() -> None:
    banner = stand_in_banner("scripted", "scripted")._repr_html_()
    assert "Stand-in model" in banner and "not a language model" in banner and "ditto-stand-in" in banner
    assert "Stand-in" not in stand_in_banner("local", "qwen")._repr_html_()
