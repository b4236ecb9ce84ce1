"""The Web QA CLI: help texts, ask → show → resume against the sandbox web + scripted model, and
clear one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ditto_nb.sandbox import demo_corpus_path
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.fixtures.redis_fixtures import delete_keys
from tests.cli.conftest import AnswerScript

QUESTION = "Which river flows through the city where the Eiffel Tower stands?"


def test_console_script_lists_every_command() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "from ditto_nb.cli import main; main()", "--help"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "Usage:" in result.stdout
    for name in ("ask", "resume", "show", "demo"):
        assert f" {name} " in result.stdout


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("ask", ["--dir", "--id", "--max-queries", "--max-pages", "--cross-check", "--allow-partial",
                 "--reference-url", "--allowed-origin", "--provider", "--model", "--stop-after", "--sandbox"]),
        ("resume", ["--stop-after", "--config"]),
        ("show", ["--json"]),
        ("demo", ["--provider", "--question", "--dir"]),
    ],
)
def test_every_command_has_help(cli_app: typer.Typer, runner: CliRunner, command: str, options: list[str]) -> None:
    result = runner.invoke(cli_app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.stdout
    for option in options:
        assert option in result.stdout


def test_ask_show_resume_round_trip(
    tmp_path: Path, cli_app: typer.Typer, runner: CliRunner, cli_config: Path, scripted_model: ScriptedModel,
    task_id: str,
) -> None:
    script = AnswerScript("Seine")
    scripted_model.responder = script
    task_dir = tmp_path / "task"
    common = ["--config", str(cli_config), "--dir", str(task_dir), "--id", task_id, "--quiet"]

    first = runner.invoke(cli_app, ["ask", QUESTION, "--sandbox", str(demo_corpus_path()), "--stop-after", "searched",
                                    "--max-pages", "4", *common])
    assert first.exit_code == 0, first.output
    assert "stopped after stage 'searched'" in first.stdout
    assert script.seen == ["plan"]
    task_file = json.loads((task_dir / "task.json").read_text())
    assert task_file["pattern"] == "web_qa" and task_file["sandbox"]["port"] > 0

    checkpoint = runner.invoke(cli_app, ["show", str(task_dir)])
    assert checkpoint.exit_code == 0, checkpoint.output
    assert "[done]    plan" in checkpoint.stdout and "[done]    searched" in checkpoint.stdout
    assert "[pending] read" in checkpoint.stdout and "state:    checkpoint" in checkpoint.stdout

    finished = runner.invoke(cli_app, ["resume", str(task_dir), "--quiet"])
    assert finished.exit_code == 0, finished.output
    assert script.seen == ["plan", "select", "answer", "ground"]
    assert "status:   answered" in finished.stdout
    report = json.loads((task_dir / "output" / "report.json").read_text())
    citations = [c for claim in report["answer"]["claims"] for c in claim["citations"]]
    assert citations
    for citation in citations:
        assert "Seine" in citation["quote"]
        assert f'"{citation["quote"]}"' in finished.stdout
        assert f"{citation['final_url']}  paragraph {citation['paragraph_index']} " in finished.stdout
        chunk = next(c for c in report["evidence"] if c["chunk_id"] == citation["chunk_id"])
        assert chunk["text"][citation["start"]:citation["end"]] == citation["quote"]
    assert str(task_dir / "output" / "report.md") in finished.stdout

    shown = runner.invoke(cli_app, ["show", str(task_dir)])
    assert shown.exit_code == 0, shown.output
    assert "state:    published" in shown.stdout and "[done]    report" in shown.stdout
    assert citations[0]["final_url"] in shown.stdout
    as_json = runner.invoke(cli_app, ["show", str(task_dir), "--json"])
    assert json.loads(as_json.stdout) == report

    calls = scripted_model.call_count
    replay = runner.invoke(cli_app, ["resume", str(task_dir), "--quiet"])
    assert replay.exit_code == 0, replay.output
    assert scripted_model.call_count == calls, "a replay must make no model call"
    assert json.loads((task_dir / "output" / "report.json").read_text()) == report


def test_demo_command_answers_and_replays(
    tmp_path: Path, cli_app: typer.Typer, runner: CliRunner, cli_config: Path, scripted_model: ScriptedModel,
    redis_url: str,
) -> None:
    scripted_model.responder = AnswerScript("Seine")
    task_dir = tmp_path / "demo"
    args = ["demo", "--provider", "scripted", "--question", "demo-1", "--dir", str(task_dir),
            "--config", str(cli_config), "--quiet"]
    first = runner.invoke(cli_app, args)
    try:
        assert first.exit_code == 0, first.output
        assert "status:   answered" in first.stdout and "Seine" in first.stdout
        calls = scripted_model.call_count
        second = runner.invoke(cli_app, args)
        assert second.exit_code == 0, second.output
        assert scripted_model.call_count == calls
        assert second.stdout == first.stdout
    finally:
        delete_keys(redis_url, "*demo-scripted-demo-1*")




def test_changed_question_is_a_clear_error(
    tmp_path: Path, cli_app: typer.Typer, runner: CliRunner, cli_config: Path, scripted_model: ScriptedModel,
    task_id: str,
) -> None:
    scripted_model.responder = AnswerScript("Seine")
    task_dir = tmp_path / "task"
    common = ["--config", str(cli_config), "--dir", str(task_dir), "--id", task_id, "--quiet",
              "--sandbox", str(demo_corpus_path())]
    assert runner.invoke(cli_app, ["ask", QUESTION, "--stop-after", "plan", *common]).exit_code == 0
    changed = runner.invoke(cli_app, ["ask", "Which river runs through London?", *common])
    assert changed.exit_code == 2
    assert changed.stderr.startswith("error: ")
    assert "help: Use a new task id" in changed.stderr
    assert "Traceback" not in changed.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "{tmp}"], "is not a task directory made by ditto-nb"),
        (["show", "{tmp}/missing"], "{tmp}/missing does not exist"),
        (["resume", "{tmp}"], "is not a task directory made by ditto-nb"),
        (["ask", QUESTION, "--max-queries", "9", "--sandbox", "{corpus}", "--dir", "{tmp}/t"],
         "--max-queries must be 1–3 (got 9)"),
        (["ask", QUESTION, "--max-pages", "9", "--sandbox", "{corpus}", "--dir", "{tmp}/t"],
         "--max-pages must be 1–6 (got 9)"),
        (["ask", QUESTION, "--allowed-origin", "http://example.com", "--sandbox", "{corpus}", "--dir", "{tmp}/t"],
         "--allowed-origin must be https://host[:port] (got 'http://example.com')"),
        (["ask", QUESTION, "--stop-after", "bogus", "--sandbox", "{corpus}", "--dir", "{tmp}/t"],
         "--stop-after must be one of plan, searched, read, selected, hop-searched, hop-read, report (got 'bogus')"),
        (["resume", "{tmp}", "--stop-after", "bogus"], "--stop-after must be one of"),
        (["ask", QUESTION, "--provider", "nope", "--dir", "{tmp}/t"], "unknown provider 'nope'"),
        (["demo", "--question", "demo-99", "--dir", "{tmp}/d"], "unknown demo question"),
    ],
)
def test_ditto_errors_exit_2_with_one_line(
    tmp_path: Path, cli_app: typer.Typer, runner: CliRunner, cli_config: Path, args: list[str], message: str,
) -> None:
    filled = [a.format(tmp=tmp_path, corpus=demo_corpus_path()) for a in args]
    result = runner.invoke(cli_app, [*filled, "--config", str(cli_config)] if filled[0] != "show" else filled)
    assert result.exit_code == 2, result.output
    first_line = result.stderr.splitlines()[0]
    assert first_line.startswith("error: ") and message.format(tmp=tmp_path) in first_line
    assert result.stderr.splitlines()[1].startswith("help: ")
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not (tmp_path / "t").exists(), "a rejected request left a task directory behind"
    assert not (tmp_path / "d").exists()
