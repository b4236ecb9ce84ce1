"""Export a task's report: shareable Markdown (claims with footnoted quotes, a sources table) and
the machine JSON (the same text as the published ``output/report.json``).

Both read the final report from the task's Memory (read-only), so they work on any finished Web QA
or deep research task directory, also before (or without) publishing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ditto_nb.errors import ConfigError
from ditto_nb.notebook.frames import TaskRef, as_view
from ditto_nb.notebook.memory_view import TaskView
from ditto_nb.patterns.common import report_json_text


def _cell(value: Any) -> str:
    """Escape a value for one Markdown table cell."""
    return str(value if value is not None else "").replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _claims(view: TaskView, report: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """``(claim text, citations)``; each citation has quote, origin, final_url, title, fetched_at, sha256."""
    if view.pattern == "web_qa":
        return [(str(c["claim"]), list(c.get("citations", []))) for c in (report.get("answer") or {}).get("claims", [])]
    grouped: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for c in report.get("conclusions", []):
        grouped.setdefault((int(c.get("index", 0)), str(c["statement"])), []).append(c)
    return [(statement, cites) for (_i, statement), cites in grouped.items()]


def _conflicts(view: TaskView, report: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    if view.pattern == "web_qa":
        return [(str(c["topic"]), list(c["sides"])) for c in (report.get("selection") or {}).get("conflicts", [])]
    return [(str(c.get("question", "")), list(c.get("sides", []))) for c in report.get("conflicts", [])]


def _failures(view: TaskView, report: dict[str, Any]) -> list[str]:
    if view.pattern == "web_qa":
        return [f"{f['stage']}: {f['source']} — {f['failure']}" for f in report.get("failures", [])]
    return [f"{f.get('kind')}: {f.get('source')} — {f.get('error')}" for f in report.get("failures", [])]


def _omissions(report: dict[str, Any]) -> list[str]:
    lines = [f"URL not read: {o['url']} ({o['reason']})" for o in report.get("omitted_urls", [])]
    lines += [f"evidence left out: {o.get('chunk_id')} from {o.get('final_url', '?')} ({o.get('reason')})"
              for o in report.get("omitted", [])]
    missing = (report.get("selection") or {}).get("missing", []) if "selection" in report else report.get("unknowns", [])
    lines += [f"not established: {m}" for m in missing]
    return lines


def render_report_markdown(task: TaskRef) -> str:
    """Render the task's final report as shareable Markdown.

    Layout: the question; status and answer (research: summary, status and stop reason); claims,
    each followed by footnote markers whose footnotes hold the exact quote and its source; conflicts
    (both sides, unresolved); a sources table (URL, title, retrieval time UTC, SHA-256 of the raw
    HTML); failures and omissions. Footnotes use the Markdown footnote syntax ``[^n]``.

    Args:
        task: the task directory (or view).

    Returns:
        Markdown text ending with a newline.

    Raises:
        ConfigError: the task has no report yet.
    """
    view = as_view(task)
    report = view.report
    if report is None:
        raise ConfigError(f"{view.directory}: the task has no report yet; run it to the report stage first")
    notes: list[str] = []
    sources: dict[str, dict[str, Any]] = {}

    def footnote(cite: dict[str, Any]) -> str:
        sources.setdefault(str(cite["sha256"]), cite)
        notes.append(f'[^{len(notes) + 1}]: "{cite["quote"]}" — {cite.get("title") or cite["final_url"]}, '
                     f'<{cite["final_url"]}> ({cite["origin"]}), retrieved {cite["fetched_at"]}')
        return f"[^{len(notes)}]"

    lines = [f"# {report['question']}", ""]
    if view.pattern == "web_qa":
        answer = report.get("answer") or {}
        lines += [f"**Status:** {answer.get('status')}", "", str(answer.get("text", "")), ""]
    else:
        lines += [f"**Status:** {report.get('status')} (stop reason: {report.get('stop_reason')})", "",
                  f"**Goal:** {report.get('goal', '')}", "", str(report.get("summary", "")), ""]
    claims = _claims(view, report)
    if claims:
        lines += ["## Claims", ""]
        for n, (text, cites) in enumerate(claims, 1):
            lines.append(f"{n}. {text}" + "".join(footnote(c) for c in cites))
        lines.append("")
    conflicts = _conflicts(view, report)
    if conflicts:
        lines += ["## Conflicts (unresolved)", ""]
        for topic, sides in conflicts:
            lines.append(f"- {topic}: " + ", ".join(
                f'"{s["quote"]}" ({s.get("origin", "")})' for s in sides))
        lines.append("")
    if sources:
        lines += ["## Sources", "", "| # | URL | Title | Retrieved (UTC) | SHA-256 |", "|---|---|---|---|---|"]
        for n, cite in enumerate(sources.values(), 1):
            lines.append(f"| {n} | {_cell(cite['final_url'])} | {_cell(cite.get('title'))} | "
                         f"{_cell(cite['fetched_at'])} | `{cite['sha256']}` |")
        lines.append("")
    failures, omissions = _failures(view, report), _omissions(report)
    if failures:
        lines += ["## Failures", ""] + [f"- {f}" for f in failures] + [""]
    if omissions:
        lines += ["## Omissions", ""] + [f"- {o}" for o in omissions] + [""]
    lines += [f"_Generated {report.get('generated_at')}; task {report.get('task_id') or report.get('id')}._", ""]
    if notes:
        lines += notes + [""]
    return "\n".join(lines)


def export_markdown(task_dir: str | os.PathLike[str], path: str | os.PathLike[str]) -> Path:
    """Write the task's shareable Markdown report (see :func:`render_report_markdown`).

    Args:
        task_dir: a Web QA or deep research task directory with a report.
        path: the file to write (parent directories are created; UTF-8).

    Returns:
        The written path.

    Raises:
        ConfigError: no report yet (or not a task directory).
        StorageError: Memory cannot be read.
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_report_markdown(task_dir), encoding="utf-8")
    return out


def export_json(task_dir: str | os.PathLike[str], path: str | os.PathLike[str]) -> Path:
    """Write the machine report: the same text the task publishes as ``output/report.json``
    (sorted keys, 2-space indent), from Memory.

    Args:
        task_dir: a task directory with a report.
        path: the file to write.

    Returns:
        The written path.

    Raises:
        ConfigError: no report yet.
    """
    view = as_view(task_dir)
    if view.report is None:
        raise ConfigError(f"{view.directory}: the task has no report yet")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report_json_text(view.report), encoding="utf-8")
    return out


__all__ = ["export_json", "export_markdown", "render_report_markdown"]
