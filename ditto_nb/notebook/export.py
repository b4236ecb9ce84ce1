"""Export a task's report: shareable Markdown (numbered claims with their quotes, a numbered sources list) and
the machine JSON (the same text as the published ``output/report.json``).

Both read the final report from the task's Memory (read-only), so they work on any finished Web QA
or deep research task directory, also before (or without) publishing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from ditto_nb.errors import ConfigError
from ditto_nb.notebook.frames import TaskRef, as_view
from ditto_nb.notebook.memory_view import TaskView
from ditto_nb.patterns.common import report_json_text
from ditto_nb.patterns.web_qa.report import published_report
from ditto_nb.patterns.web_qa.stage_models import WebQaReportJson


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


STAND_IN_NOTICE = ("**Stand-in model.** Every model call of this task was answered by the scripted stand-in "
                   "(`ditto_nb.testing`), a rule-based responder for quick offline runs, not a language model: "
                   "its answers and verdicts are not research results.")
"""The banner a report (and a notebook) shows when the scripted model was used."""

_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>|#"})


def _md(value: Any) -> str:
    """Inline Markdown text: specials backslash-escaped, newlines as spaces (nothing is cut)."""
    return str(value if value is not None else "").translate(_MD_SPECIAL).replace("\n", " ")


def _ref(value: Any) -> str:
    """A URL as a Markdown autolink ``<url>``; any other value as escaped text."""
    text = str(value if value is not None else "")
    return f"<{text}>" if text.startswith(("https://", "http://")) and not any(ch.isspace() for ch in text) else _md(text)


def _failures(view: TaskView, report: dict[str, Any]) -> list[str]:
    """Failure lines, already Markdown."""
    if view.pattern == "web_qa":
        return [f"{_md(f['stage'])}: {_ref(f['source'])} — {_md(f['failure'])}" for f in report.get("failures", [])]
    return [f"{_md(f.get('kind'))}: {_ref(f.get('source'))} — {_md(f.get('error'))}" for f in report.get("failures", [])]


def _omissions(report: dict[str, Any]) -> list[str]:
    """Omission lines, already Markdown."""
    lines = [f"URL not read: {_ref(o['url'])} ({_md(o['reason'])})" for o in report.get("omitted_urls", [])]
    lines += [f"evidence left out: {_md(o.get('chunk_id'))} from {_ref(o.get('final_url', '?'))} ({_md(o.get('reason'))})"
              for o in report.get("omitted", [])]
    missing = (report.get("selection") or {}).get("missing", []) if "selection" in report else report.get("unknowns", [])
    lines += [f"not established: {_md(m)}" for m in missing]
    return lines


class _Sources:
    """Numbered sources, one per cited page (mirrors keep their own number)."""

    def __init__(self) -> None:
        self.pages: dict[tuple[str, str], dict[str, Any]] = {}

    def number(self, cite: dict[str, Any]) -> int | None:
        if not all(cite.get(k) for k in ("final_url", "sha256", "fetched_at")):
            return None
        key = (str(cite["final_url"]), str(cite["sha256"]))
        if key not in self.pages:
            self.pages[key] = cite
        return list(self.pages).index(key) + 1

    def lines(self) -> list[str]:
        return [f"{n}. **{_md(c.get('title') or '(untitled)')}** — <{c['final_url']}> — retrieved {c['fetched_at']} "
                f"— SHA-256 `{c['sha256']}`" for n, c in enumerate(self.pages.values(), 1)]


def render_report_markdown(task: TaskRef) -> str:
    """Render the task's final report as shareable Markdown.

    Plain CommonMark (no footnotes, no tables), so it renders the same in JupyterLab, on GitHub and
    in any Markdown viewer. Layout: the question; a stand-in banner when the scripted model answered
    (:data:`STAND_IN_NOTICE`); status and answer (research: stop reason, goal, summary); numbered
    claims, each followed by its exact quotes with source numbers ``[n]``; conflicts (unresolved,
    both sides); a numbered **Sources** list — one line per cited page (a mirror is its own source)
    with title, URL, retrieval time (UTC) and the full SHA-256 of the raw HTML; failures and
    omissions. Nothing is shortened.

    Args:
        task: the task directory (or view).

    Returns:
        Markdown text ending with a newline.

    Raises:
        ConfigError: the task has no report yet.
    """
    from ditto_nb.notebook.quotes import uses_stand_in

    view = as_view(task)
    report = view.report
    if report is None:
        raise ConfigError(f"{view.directory}: the task has no report yet; run it to the report stage first")
    sources = _Sources()

    def ref(cite: dict[str, Any]) -> str:
        n = sources.number(cite)
        return f"[{n}]" if n is not None else f"<{cite.get('final_url') or cite.get('origin', '')}>"

    lines = [f"# {_md(report['question'])}", ""]
    if uses_stand_in(view):
        lines += [f"> {STAND_IN_NOTICE}", ""]
    if view.pattern == "web_qa":
        answer = report.get("answer") or {}
        lines += [f"**Status:** {answer.get('status')}", "", _md(answer.get("text", "")), ""]
    else:
        lines += [f"**Status:** {report.get('status')} (stop reason: {report.get('stop_reason')})", "",
                  f"**Goal:** {_md(report.get('goal', ''))}", "", _md(report.get("summary", "")), ""]
    claims = _claims(view, report)
    if claims:
        lines += ["## Claims", ""]
        for n, (text, cites) in enumerate(claims, 1):
            refs = [ref(c) for c in cites]
            lines.append(f"{n}. {_md(text)} " + " ".join(dict.fromkeys(refs)))
            indent = " " * len(f"{n}. ")
            lines += [f'{indent}- "{_md(c["quote"])}" {r}' for c, r in zip(cites, refs)]
        lines.append("")
    conflicts = _conflicts(view, report)
    if conflicts:
        lines += ["## Conflicts (unresolved)", ""]
        for topic, sides in conflicts:
            lines.append(f"- {_md(topic)}: " + "; ".join(f'"{_md(s["quote"])}" {ref(s)}' for s in sides))
        lines.append("")
    if sources.pages:
        lines += ["## Sources", ""] + sources.lines() + [""]
    failures, omissions = _failures(view, report), _omissions(report)
    if failures:
        lines += ["## Failures", ""] + [f"- {f}" for f in failures] + [""]
    if omissions:
        lines += ["## Omissions", ""] + [f"- {o}" for o in omissions] + [""]
    lines += [f"_Generated {report.get('generated_at')}; task {_md(report.get('task_id') or report.get('id'))}._", ""]
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
    report: Mapping[str, object] = (published_report(cast(WebQaReportJson, view.report))
                                     if view.pattern == "web_qa" else view.report)
    out.write_text(report_json_text(report), encoding="utf-8")
    return out


__all__ = ["STAND_IN_NOTICE", "export_json", "export_markdown", "render_report_markdown"]
