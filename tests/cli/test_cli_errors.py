"""The ``ditto-nb`` console command on bad input, bad files and damaged storage (issue 10): a
typed ``error:`` line with a hint and exit code 2, never a Python traceback. Each case runs the
real console entry point in a subprocess."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ditto_nb.patterns.common import STAGE_PREFIX
from ditto_nb.sandbox import demo_corpus_path
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.cli.conftest import AnswerScript

QUESTION = "Which river flows through the city where the Eiffel Tower stands?"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from ditto_nb.cli import main; main()", *args],
        capture_output=True, text=True, timeout=120, cwd=cwd,
    )


def _assert_clean_error(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr[-3000:])
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert any(line.startswith("error:") for line in lines), result.stderr
    assert any(line.startswith(("help:", "hint:")) for line in lines), result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("not a task folder\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", ["", "/sub"], ids=["file", "file-sub"])
def test_ask_dir_that_is_a_file(tmp_path: Path, cli_config: Path, a_file: Path, suffix: str) -> None:
    result = _cli("ask", QUESTION, "--dir", f"{a_file}{suffix}", "--config", str(cli_config),
                  "--allowed-origin", "https://en.wikipedia.org", "--quiet", cwd=tmp_path)
    _assert_clean_error(result, str(a_file))
    assert a_file.read_text(encoding="utf-8") == "not a task folder\n"


def test_research_dir_that_is_a_file(tmp_path: Path, cli_config: Path, a_file: Path) -> None:
    result = _cli("research", "copper mining", "--dir", str(a_file), "--config", str(cli_config), cwd=tmp_path)
    _assert_clean_error(result, str(a_file))


def test_research_task_file_that_is_not_json(tmp_path: Path, cli_config: Path) -> None:
    task_dir = tmp_path / "research"
    task_dir.mkdir()
    (task_dir / "task.json").write_text("{this is not json", encoding="utf-8")
    result = _cli("research", "copper mining", "--dir", str(task_dir), "--config", str(cli_config), cwd=tmp_path)
    _assert_clean_error(result, "task.json")


@pytest.mark.parametrize(
    ("command", "origin"),
    [("ask", "https://alpha.test/wiki/Only_This_Page"), ("ask", "https://*.test"),
     ("research", "https://user@alpha.test"), ("research", "https://alpha.test/?q=1")],
)
def test_allowed_origin_that_is_not_an_origin(tmp_path: Path, cli_config: Path, command: str, origin: str) -> None:
    question = QUESTION if command == "ask" else "copper mining"
    result = _cli(command, question, "--dir", str(tmp_path / "t"), "--config", str(cli_config),
                  "--allowed-origin", origin, cwd=tmp_path)
    _assert_clean_error(result, origin, "not an origin")


def test_memory_value_that_is_not_json(
    tmp_path: Path, cli_app: typer.Typer, runner: CliRunner, cli_config: Path, scripted_model: ScriptedModel,
    task_id: str,
) -> None:
    scripted_model.responder = AnswerScript("Seine")
    task_dir = tmp_path / "task"
    first = runner.invoke(cli_app, ["ask", QUESTION, "--sandbox", str(demo_corpus_path()), "--stop-after", "read",
                                    "--config", str(cli_config), "--dir", str(task_dir), "--id", task_id, "--quiet"])
    assert first.exit_code == 0, first.output
    with sqlite3.connect(task_dir / "memory.sqlite3") as db:
        changed = db.execute("UPDATE memory SET value = 'not json at all' WHERE substr(key, 1, ?) = ?",
                             (len(STAGE_PREFIX), STAGE_PREFIX)).rowcount
    assert changed > 0
    for command in ("show", "resume"):
        result = _cli(command, str(task_dir), cwd=tmp_path)
        _assert_clean_error(result, "not JSON", "memory.sqlite3")
