"""Task directories whose ``task.json`` the previous CLI wrote (``ditto-nb ask``: a ``cli``
section; ``ditto-nb research``: request, model and sandbox at the top) still ``show`` and
``resume`` through today's CLI, which migrates the file to the one layout (issue 28)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from ditto_nb.cli import research
from ditto_nb.notebook.demo import DemoResponder
from ditto_nb.sandbox import demo_corpus_path
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.cli.conftest import AnswerScript

QUESTION = "Which river flows through the city where the Eiffel Tower stands?"


def _task_json(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / "task.json").read_text(encoding="utf-8"))
    return data


def _write(directory: Path, data: dict[str, Any]) -> None:
    (directory / "task.json").write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def test_web_qa_task_file_of_the_old_ask_shows_resumes_and_migrates(
    tmp_path: Path, cli_app: typer.Typer, runner: CliRunner, cli_config: Path, scripted_model: ScriptedModel,
    task_id: str,
) -> None:
    scripted_model.responder = AnswerScript("Seine")
    task_dir = tmp_path / "task"
    first = runner.invoke(cli_app, ["ask", QUESTION, "--sandbox", str(demo_corpus_path()), "--stop-after", "searched",
                                    "--config", str(cli_config), "--dir", str(task_dir), "--id", task_id, "--quiet"])
    assert first.exit_code == 0, first.output
    now = _task_json(task_dir)
    # the layout the previous `ditto-nb ask` wrote for the same task
    _write(task_dir, {"pattern": "web_qa", "cli": {"request": now["request"], "provider": "scripted",
                                                    "model": "scripted", "config": now["config"],
                                                    "sandbox": now["sandbox"]}})

    shown = runner.invoke(cli_app, ["show", str(task_dir)])
    assert shown.exit_code == 0, shown.output
    assert "model:    scripted / scripted" in shown.stdout and "[done]    searched" in shown.stdout
    assert _task_json(task_dir) == now  # migrated on open

    finished = runner.invoke(cli_app, ["resume", str(task_dir), "--quiet"])
    assert finished.exit_code == 0, finished.output
    assert (task_dir / "output" / "report.json").is_file()
    assert _task_json(task_dir) == now


def test_research_task_file_of_the_old_research_command_resumes_and_migrates(
    tmp_path: Path, runner: CliRunner, cli_config: Path, scripted_model: ScriptedModel, task_id: str
) -> None:
    scripted_model.responder = DemoResponder()
    task_dir = tmp_path / "research"
    app = typer.Typer()
    research.register(app)
    app.command("noop")(lambda: None)  # a second command keeps "research" a sub-command
    result = runner.invoke(app, [
        "research", "Which river flows through Paris?", "--sandbox", str(demo_corpus_path()), "--dir", str(task_dir),
        "--id", task_id, "--config", str(cli_config), "--stop-after", "plan", "--max-rounds", "1",
    ])
    assert result.exit_code == 0, result.output
    now = _task_json(task_dir)
    assert now["pattern"] == "deep_research" and now["model"] == {"provider": "scripted", "model": "scripted"}
    # the layout the previous `ditto-nb research` wrote (no version, no config)
    _write(task_dir, {"pattern": "deep_research", "request": now["request"], "model": now["model"],
                      "sandbox": {"corpus": now["sandbox"]["corpus"], "port": now["sandbox"]["port"]}})

    assert research.is_research_task(task_dir)
    research.resume_research_cli(task_dir, cli_config)  # serves the recorded sandbox again
    report = json.loads((task_dir / "output" / "report.json").read_text(encoding="utf-8"))
    assert report["stop_reason"] and report["rounds"]
    assert _task_json(task_dir) == {**now, "config": None}
