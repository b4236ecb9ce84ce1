"""Deep research frames: rounds, coverage per sub-question per round, the stop reason.

Reads the research Memory layout (``docs/PATTERNS.md`` plus ``round/<n>/plan``,
``round/<n>/reads`` and ``stage/round/<n>`` written by
:mod:`ditto_nb.patterns.deep_research.plan`). Frames for a stage not reached yet are empty with
the documented columns.
"""

from __future__ import annotations

from typing import Any, cast

import pandas as pd

from ditto_nb.errors import ConfigError
from ditto_nb.notebook.evidence_frames import research_evidence
from ditto_nb.notebook.frames import budget_frame
from ditto_nb.notebook.memory_view import TaskRef, TaskView, as_view
from ditto_nb.notebook.table import frame

ROUNDS_COLUMNS = ["round", "queries", "reads", "new_evidence", "assessed", "covered", "gaps", "conflicts",
                  "next_queries"]
COVERAGE_COLUMNS = ["round", "index", "question", "status", "evidence_ids", "gap", "next_queries", "reason"]


def _require_research(view: TaskView) -> None:
    if view.pattern != "deep_research":
        raise ConfigError(f"{view.directory} is a {view.pattern} task, not deep research")


def _round_records(view: TaskView) -> list[dict[str, Any]]:
    records = [dict(v) for _k, v in view.prefixed("stage/round/") if isinstance(v, dict)]
    return sorted(records, key=lambda r: int(r["round"]))


def rounds_frame(task: TaskRef) -> pd.DataFrame:
    """One row per completed research round.

    Args:
        task: a research task directory (or view).

    Returns:
        Columns ``round`` (1-based), ``queries`` (list searched), ``reads`` (pages read, count),
        ``new_evidence`` (distinct new chunks, count), ``assessed`` (bool), ``covered`` / ``gaps`` /
        ``conflicts`` (sub-questions per status after the round, counts) and ``next_queries``
        (list). Empty before the first round completed.

    Raises:
        ConfigError: not a research task.
    """
    view = as_view(task)
    _require_research(view)
    rows = []
    for rec in _round_records(view):
        statuses = [c.get("status") for c in rec.get("coverage", [])]
        rows.append({
            "round": rec["round"], "queries": list(rec.get("queries", [])), "reads": len(rec.get("reads", [])),
            "new_evidence": rec.get("new_evidence"), "assessed": rec.get("assessed"),
            "covered": statuses.count("covered"), "gaps": statuses.count("gap"),
            "conflicts": statuses.count("conflict"), "next_queries": list(rec.get("next_queries", [])),
        })
    return frame(rows, ROUNDS_COLUMNS)


def coverage_frame(task: TaskRef) -> pd.DataFrame:
    """Coverage of every sub-question after every assessed round (sub-question × round), then
    the report's coverage, decided from the published findings.

    Args:
        task: a research task directory (or view).

    Returns:
        Columns ``round`` (1-based, or ``"report"`` for the report's rows), ``index`` (1-based
        sub-question number), ``question``, ``status`` (``covered`` / ``gap`` / ``conflict``),
        ``evidence_ids`` (list of ``E<n>``), ``gap`` (the concrete gap, "" when covered),
        ``next_queries`` (list) and ``reason`` (why the row has its status: the assessment's
        check, or the report's coverage call; "" for rows stored before reasons were kept).
        Empty before the first assessment.

    Raises:
        ConfigError: not a research task.
    """
    view = as_view(task)
    _require_research(view)
    rows = [{**c, "round": rec["round"]} for rec in _round_records(view) if rec.get("assessed")
            for c in rec.get("coverage", [])]
    report = view.report or {}
    rows += [{**c, "round": "report"} for c in report.get("coverage", []) if isinstance(c, dict)]
    return frame([{"reason": "", **row} for row in rows], COVERAGE_COLUMNS)


def stop_reason_summary(task: TaskRef) -> dict[str, Any]:
    """Why and where a research task stopped.

    Args:
        task: a research task directory (or view).

    Returns:
        ``{"stop_reason": str | None (None until the report), "status": "complete" | "partial" |
        "needs-clarification" | None, "rounds": int (completed), "max_rounds": int, "gaps": [str],
        "budgets": {name: {"used", "limit"}}}``.

    Raises:
        ConfigError: not a research task.
    """
    view = as_view(task)
    _require_research(view)
    report = view.report or {}
    records = _round_records(view)
    last = records[-1].get("coverage", []) if records else []
    coverage = report.get("coverage", last)
    budgets = {str(r["budget"]): {"used": int(r["used"]), "limit": int(r["limit"])}
               for r in budget_frame(view).to_dict("records")}
    return {
        "stop_reason": report.get("stop_reason"),
        "status": report.get("status"),
        "rounds": len(records),
        "max_rounds": view.request.get("max_rounds"),
        "gaps": [f"{c['question']}: {c.get('gap', '')}" for c in coverage if c.get("status") == "gap"],
        "budgets": budgets,
    }


__all__ = ["COVERAGE_COLUMNS", "ROUNDS_COLUMNS", "coverage_frame", "research_evidence", "rounds_frame",
           "stop_reason_summary"]
