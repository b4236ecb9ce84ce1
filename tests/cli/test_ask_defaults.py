"""``ditto-nb ask`` without budget flags asks with the request model's defaults, the budgets notebook
01's form starts from, and the two-hop example then reads the bridge's page on a second hop."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from ditto_nb.notebook.demo import DemoResponder
from ditto_nb.patterns.web_qa.request import DEFAULT_MAX_PAGES, DEFAULT_MAX_QUERIES
from ditto_nb.sandbox import demo_corpus_path, demo_questions_path, load_hotpotqa_questions
from ditto_nb.testing.scripted_model import ScriptedModel

EXAMPLE = load_hotpotqa_questions(demo_questions_path())[0]


def test_ask_help_names_the_request_defaults(cli_app: typer.Typer, runner: CliRunner) -> None:
    result = runner.invoke(cli_app, ["ask", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert f"Search queries (1-3; default {DEFAULT_MAX_QUERIES})" in result.stdout
    assert f"Pages read (1-6; default {DEFAULT_MAX_PAGES})" in result.stdout


def test_ask_with_the_defaults_answers_the_two_hop_example_from_the_bridge_page(
    tmp_path: Path, cli_app: typer.Typer, runner: CliRunner, cli_config: Path, scripted_model: ScriptedModel,
    task_id: str,
) -> None:
    scripted_model.responder = DemoResponder()
    task_dir = tmp_path / "task"
    result = runner.invoke(cli_app, ["ask", EXAMPLE.question, "--sandbox", str(demo_corpus_path()), "--dir",
                                     str(task_dir), "--id", task_id, "--config", str(cli_config), "--quiet"])
    assert result.exit_code == 0, result.output
    task = json.loads((task_dir / "task.json").read_text(encoding="utf-8"))
    assert (task["request"]["max_queries"], task["request"]["max_pages"]) == (2, 6)
    report = json.loads((task_dir / "output" / "report.json").read_text(encoding="utf-8"))
    assert report["answer"]["status"] == "answered" and EXAMPLE.answer in report["answer"]["text"]
    assert report["queries"][1:] == ["Paris"]  # the second hop looked the bridge up
    titles = [c["title"] for claim in report["answer"]["claims"] for c in claim["citations"]]
    assert "Paris" in titles and report["budget"]["model_calls"] <= 6
