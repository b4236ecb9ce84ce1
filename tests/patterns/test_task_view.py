"""The one typed task reader (TaskView): stages, report, ledger and budgets of both patterns,
read-only, with legacy (pre-issue-11) key names mapped; ``ditto-nb show`` reads through it."""

from __future__ import annotations

import shutil
from pathlib import Path

import typer
from typer.testing import CliRunner

from ditto_nb.cli import qa
from ditto_nb.patterns.common import load_task
from ditto_nb.patterns.deep_research import ResearchReport
from ditto_nb.patterns.web_qa import WebQaReport

TASKS = Path(__file__).parent / "legacy" / "tasks"
PACKAGE = Path(__file__).resolve().parents[2] / "ditto_nb"


def test_view_reads_legacy_research_task_under_the_one_layout(tmp_path: Path) -> None:
    shutil.copytree(TASKS / "research", tmp_path / "r")
    view = load_task(tmp_path / "r")
    assert view.pattern == "deep_research"
    assert view.budgets() == {"model": 5, "search": 3, "read": 3}
    report = view.stage("report", ResearchReport)
    assert report is not None and report.stop_reason == "coverage-complete"
    assert len(view.ledger("model")) == 5 and view.unfinished() == []


def test_view_reads_web_qa_stages_typed(tmp_path: Path) -> None:
    shutil.copytree(TASKS / "web_qa", tmp_path / "w")
    view = load_task(tmp_path / "w")
    assert view.pattern == "web_qa"
    report = view.stage("report", WebQaReport)
    assert report is not None and report.answer.status == "answered"
    assert view.budgets() == {"model": 4, "search": 1, "read": 2}
    assert view.stage("missing") is None


def test_show_prints_a_research_report_from_memory(tmp_path: Path) -> None:
    shutil.copytree(TASKS / "research", tmp_path / "r")
    shutil.rmtree(tmp_path / "r" / "output")  # show reads Memory, not the published files
    app = typer.Typer()
    qa.register(app)
    result = CliRunner().invoke(app, ["show", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "Stop reason: `coverage-complete`" in result.output and "Kessendorf" in result.output


def test_no_sql_outside_workers() -> None:
    for folder in ("patterns", "notebook", "cli"):
        for path in (PACKAGE / folder).rglob("*.py"):
            assert "sqlite3" not in path.read_text(encoding="utf-8").replace("memory.sqlite3", ""), path
