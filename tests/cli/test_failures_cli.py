"""Failures and withheld claims stay visible after the run: ``show``, the frames and ``load_task``
read them from Memory; ``research`` takes ``--sandbox`` and names its flags in errors."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from ditto_nb.cli import research
from ditto_nb.notebook import claims_frame, failures_frame, load_task
from ditto_nb.sandbox import demo_corpus_path
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.cli.conftest import AnswerScript, _chunks, _purpose

QUESTION = "Which river flows through the city where the Eiffel Tower stands?"
BAD_QUOTE = "The Eiffel Tower stands beside the river Danube."


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_failed_run_is_recorded_and_shown(
    tmp_path: Path, cli_app: typer.Typer, runner: CliRunner, redis_url: str, task_id: str
) -> None:
    config = tmp_path / "dead.yaml"
    config.write_text(
        "model: {provider: dead, model: m}\n"
        f"providers:\n  dead: {{base_url: 'http://127.0.0.1:{_closed_port()}/v1', model: m,"
        " structured_output: json_schema, timeout_seconds: 5}\n"
        f"context: {{redis_url: '{redis_url}', ttl_seconds: 600}}\n",
        encoding="utf-8",
    )
    task_dir = tmp_path / "task"
    failed = runner.invoke(cli_app, ["ask", QUESTION, "--config", str(config), "--dir", str(task_dir), "--id", task_id,
                                     "--quiet", "--sandbox", str(demo_corpus_path())])
    assert failed.exit_code == 2, failed.output
    assert failed.stderr.startswith("error: dead (http://127.0.0.1:")

    view = load_task(task_dir)
    assert [f["stage"] for f in view.failures] == ["plan"]
    record = view.failures[0]
    assert record["error_type"] == "ModelTransportError" and "unreachable" in record["message"]
    assert record["at"][:4].isdigit() and record["retryable"] is True
    assert view.last_failure == record
    runs = failures_frame(task_dir).query("kind == 'run'")
    assert list(runs["source"]) == ["plan"] and list(runs["failure"]) == ["ModelTransportError"]

    shown = runner.invoke(cli_app, ["show", str(task_dir)])
    assert shown.exit_code == 0, shown.output
    assert "state:    failed" in shown.stdout
    assert "failed:   stage 'plan' at " in shown.stdout and "ModelTransportError" in shown.stdout
    assert "not started" not in shown.stdout


@dataclass
class WithholdingScript(AnswerScript):
    """Answers with one claim whose quote is not on the page; the repair keeps it and concludes
    insufficient-evidence, so the run publishes that verdict and withholds the claim."""

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        purpose = _purpose(request)
        if purpose in ("answer", "repair"):
            self.seen.append(purpose)
            label = _chunks(request)[0][0]
            status = "answered" if purpose == "answer" else "insufficient-evidence"
            return {"status": status, "answer": "The Danube.",
                    "claims": [{"claim": "The Eiffel Tower stands by the Danube.", "chunk_id": label, "quote": BAD_QUOTE}]}
        return super().__call__(request)


def test_withheld_claim_is_listed_with_its_reason(
    tmp_path: Path, cli_app: typer.Typer, runner: CliRunner, cli_config: Path, scripted_model: ScriptedModel,
    task_id: str,
) -> None:
    scripted_model.responder = WithholdingScript("Seine")
    task_dir = tmp_path / "task"
    result = runner.invoke(cli_app, ["ask", QUESTION, "--config", str(cli_config), "--dir", str(task_dir),
                                     "--id", task_id, "--quiet", "--sandbox", str(demo_corpus_path())])
    assert result.exit_code == 0, result.output
    report = json.loads((task_dir / "output" / "report.json").read_text(encoding="utf-8"))
    assert report["answer"]["status"] == "insufficient-evidence"
    assert "(1 unverified claim(s) withheld.)" in report["answer"]["text"]
    published = (task_dir / "output" / "report.json").read_text() + (task_dir / "output" / "report.md").read_text()
    assert "Danube" not in published  # no invalid draft is published

    withheld = load_task(task_dir).withheld
    assert [w["claim"] for w in withheld] == ["The Eiffel Tower stands by the Danube."]
    assert withheld[0]["quote_found"] is False and "quote not found in chunk" in withheld[0]["reason"]
    claims = claims_frame(task_dir)
    rejected = claims[claims["status"] == "rejected"]
    assert list(rejected["claim"]) == ["The Eiffel Tower stands by the Danube."]
    assert "quote not found" in rejected.iloc[0]["grounding"] and not rejected.iloc[0]["quotes_verified"]

    shown = runner.invoke(cli_app, ["show", str(task_dir)])
    assert shown.exit_code == 0, shown.output
    assert "withheld claims (rejected by verification, not published):" in shown.stdout
    assert "[rejected] The Eiffel Tower stands by the Danube." in shown.stdout
    assert "why: quote not found in chunk" in shown.stdout


def _research_app() -> typer.Typer:
    app = typer.Typer()
    research.register(app)
    app.command("noop")(lambda: None)  # a second command keeps "research" a sub-command
    return app


def test_research_takes_a_sandbox_and_resumes_against_it(
    tmp_path: Path, runner: CliRunner, cli_config: Path, scripted_model: ScriptedModel, task_id: str
) -> None:
    from ditto_nb.notebook.demo import DemoResponder

    scripted_model.responder = DemoResponder()
    task_dir = tmp_path / "research"
    result = runner.invoke(_research_app(), [
        "research", "Which river flows through Paris?", "--sandbox", str(demo_corpus_path()), "--dir", str(task_dir),
        "--id", task_id, "--config", str(cli_config), "--stop-after", "plan", "--max-rounds", "1",
    ])
    assert result.exit_code == 0, result.output
    assert '"stage": "plan"' in result.stdout
    data = json.loads((task_dir / "task.json").read_text(encoding="utf-8"))
    assert data["sandbox"]["corpus"] == str(demo_corpus_path().resolve()) and data["sandbox"]["port"] > 0
    origins = data["request"]["allowed_origins"]
    assert origins and all(o.startswith("https://") and o.endswith(f":{data['sandbox']['port']}") for o in origins)

    research.resume_research_cli(task_dir, cli_config)  # serves the recorded sandbox again
    report = json.loads((task_dir / "output" / "report.json").read_text(encoding="utf-8"))
    assert report["stop_reason"] and report["rounds"]


def test_research_flag_errors_name_the_flag(tmp_path: Path, runner: CliRunner, cli_config: Path) -> None:
    for args, message in [
        (["--max-pages", "9"], "error: --max-pages must be 1–6 (got 9)"),
        (["--max-model-calls", "2"], "error: --max-model-calls must be 8–24 (got 2)"),
        (["--type", "gossip"], "error: --type must be one of market, industry"),
        (["--stop-after", "bogus"], "error: --stop-after must be one of plan, round, report (got 'bogus')"),
        (["--allowed-origin", "http://example.com"], "error: --allowed-origin must be https://host[:port] (got 'http://example.com')"),
    ]:
        result = runner.invoke(_research_app(), ["research", "topic", "--dir", str(tmp_path / "r"),
                                                 "--config", str(cli_config), "--sandbox", str(demo_corpus_path()), *args])
        assert result.exit_code == 2, result.output
        assert result.stderr.splitlines()[0].startswith(message), result.stderr
        assert "Traceback" not in result.output
        assert not (tmp_path / "r").exists()
