"""``ditto-nb batch`` on 5 HotpotQA dev questions with the scripted model, then ``--resume``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from ditto_nb.cli import batch as batch_cli

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "data" / "hotpotqa-dev-5.jsonl"


def make_app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """ditto-nb (test app)."""

    batch_cli.register(app)
    return app


@pytest.fixture
def questions() -> Path:
    """The first 5 records of dev-150 (copied into tests/fixtures/data so CI has them)."""
    return FIXTURE


def test_batch_prints_the_table_and_resumes(
    client: Any, questions: Path, tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DITTO_WORKER_CONTEXT_REDIS_URL", redis_url)
    app = make_app()
    client.cluster.scale(2)
    client.wait_for_workers(2, timeout=120)
    ids = [json.loads(line)["_id"] for line in questions.read_text().splitlines()]
    out = tmp_path / "batch"
    runner = CliRunner()
    first = runner.invoke(app, ["batch", str(questions), "--out", str(out), "--provider", "scripted",
                                "--scheduler", client.scheduler.address, "--quiet"])
    assert first.exit_code == 0, first.output
    header = next(line for line in first.stdout.splitlines() if line.strip().startswith("id"))
    for column in ("status", "correct", "f1", "model_calls", "seconds", "worker", "answer"):
        assert column in header
    for qid in ids:
        assert qid in first.stdout
    assert "tasks=5" in first.stdout and f"ditto-nb batch --resume {out}" in first.stdout
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [row["id"] for row in rows] == ids
    assert all(row["model_calls"] >= 1 for row in rows)
    manifest = json.loads((out / "batch.json").read_text())
    assert manifest["sandbox"]["port"] > 0 and manifest["provider"] == "scripted"

    again = runner.invoke(app, ["batch", "--resume", str(out), "--scheduler", client.scheduler.address, "--quiet"])
    assert again.exit_code == 0, again.output
    resumed = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in resumed] == [r["status"] for r in rows]
    assert [r["answer"] for r in resumed] == [r["answer"] for r in rows]
    assert all(r["new_model_calls"] == 0 and r["attempts"] == 2 for r in resumed)  # replayed from Memory


def test_batch_argument_errors(tmp_path: Path) -> None:
    app = make_app()
    runner = CliRunner()
    neither = runner.invoke(app, ["batch"])
    assert neither.exit_code == 2 and "QUESTIONS.jsonl or --resume" in neither.output
    missing = runner.invoke(app, ["batch", "--resume", str(tmp_path)])
    assert missing.exit_code == 2 and "not a batch directory" in missing.output and "Traceback" not in missing.output
