"""A Web QA task whose Memory is in PostgreSQL (the directory holds only its ``task-id``) is read
through the configured MemoryStore: ``ditto-nb show`` lists its stages and the notebook frames
see its claims, hits and budgets."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ditto_nb.notebook import budget_frame, claims_frame, load_task, search_hits_frame
from ditto_nb.runtime.config import MemoryConfig
from ditto_nb.sandbox import demo_corpus_path
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.cli.conftest import AnswerScript

QUESTION = "Which river flows through the city where the Eiffel Tower stands?"


def test_show_and_frames_read_a_postgres_task(
    tmp_path: Path, cli_app: typer.Typer, runner: CliRunner, cli_config: Path, scripted_model: ScriptedModel,
    task_id: str, postgres_dsn: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    with cli_config.open("a", encoding="utf-8") as config:
        config.write(f"memory: {{backend: postgres, dsn: '{postgres_dsn}', pool_max_size: 2}}\n")
    scripted_model.responder = AnswerScript("Seine")
    task_dir = tmp_path / "task"
    common = ["--config", str(cli_config), "--dir", str(task_dir), "--id", task_id, "--quiet"]

    first = runner.invoke(cli_app, ["ask", QUESTION, "--sandbox", str(demo_corpus_path()), "--stop-after", "searched",
                                    "--max-pages", "4", *common])
    assert first.exit_code == 0, first.output
    assert (task_dir / "task-id").is_file() and not (task_dir / "memory.sqlite3").exists()

    checkpoint = runner.invoke(cli_app, ["show", str(task_dir)])
    assert checkpoint.exit_code == 0, checkpoint.output
    assert "[done]    plan" in checkpoint.stdout and "[done]    searched" in checkpoint.stdout
    assert "[pending] read" in checkpoint.stdout

    finished = runner.invoke(cli_app, ["resume", str(task_dir), "--quiet"])
    assert finished.exit_code == 0, finished.output
    assert not (task_dir / "memory.sqlite3").exists()
    shown = runner.invoke(cli_app, ["show", str(task_dir)])
    assert shown.exit_code == 0, shown.output
    assert "[done]    report" in shown.stdout and "state:    published" in shown.stdout

    # Notebook frames: the configuration found in the working directory names the database.
    monkeypatch.chdir(cli_config.parent)
    claims = claims_frame(task_dir)
    assert len(claims) >= 1 and all("Seine" in q for quotes in claims["quotes"] for q in quotes)
    assert len(search_hits_frame(task_dir)) >= 1
    budgets = dict(zip(budget_frame(task_dir)["budget"], budget_frame(task_dir)["used"]))
    assert budgets["model"] >= 3 and budgets["search"] >= 1 and budgets["read"] >= 1

    view = load_task(task_dir, memory=MemoryConfig(backend="postgres", dsn=postgres_dsn))
    assert view.pattern == "web_qa" and view.report is not None and view.stage("read") is not None


def test_a_postgres_task_needs_a_postgres_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    (task_dir / "task-id").write_text("00000000-0000-0000-0000-000000000000\n", encoding="ascii")
    monkeypatch.chdir(tmp_path)  # no ditto.yaml: the packaged default keeps Memory in SQLite
    from ditto_nb.errors import ConfigError

    with pytest.raises(ConfigError, match="PostgreSQL"):
        load_task(task_dir)
