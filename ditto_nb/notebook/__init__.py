"""The notebook face: DataFrames of a task's Memory, styled views, widgets, and Markdown export.

Public API:

- frames (:mod:`ditto_nb.notebook.frames`): :func:`query_plan_frame`, :func:`search_hits_frame`,
  :func:`pages_frame`, :func:`evidence_frame`, :func:`claims_frame`, :func:`budget_frame`,
  :func:`failures_frame`, :func:`omitted_frame`; research (:mod:`~ditto_nb.notebook.research_frames`):
  :func:`rounds_frame`, :func:`coverage_frame`, :func:`stop_reason_summary`.
- styles: :func:`style_coverage`, :func:`style_claims`.
- export: :func:`export_markdown`, :func:`export_json`, :func:`render_report_markdown`.
- :func:`without_times`: compare reports of two runs, ignoring timestamps.
- :func:`load_task` / :class:`TaskView`: the read-only Memory view the frames use.

Widgets (:mod:`ditto_nb.notebook.widgets`: ``RequestForm``, ``StageProgress``) and the notebook
environment (:mod:`ditto_nb.notebook.demo`) are imported from their modules.
"""

from ditto_nb.notebook.compare import without_times
from ditto_nb.notebook.export import export_json, export_markdown, render_report_markdown
from ditto_nb.notebook.frames import (
    budget_frame,
    claims_frame,
    evidence_frame,
    failures_frame,
    omitted_frame,
    pages_frame,
    query_plan_frame,
    search_hits_frame,
)
from ditto_nb.notebook.memory_view import TaskView, load_task
from ditto_nb.notebook.research_frames import coverage_frame, rounds_frame, stop_reason_summary
from ditto_nb.notebook.styles import style_claims, style_coverage

__all__ = [
    "TaskView",
    "budget_frame",
    "claims_frame",
    "coverage_frame",
    "evidence_frame",
    "export_json",
    "export_markdown",
    "failures_frame",
    "load_task",
    "omitted_frame",
    "pages_frame",
    "query_plan_frame",
    "render_report_markdown",
    "rounds_frame",
    "search_hits_frame",
    "stop_reason_summary",
    "style_claims",
    "style_coverage",
    "without_times",
]
