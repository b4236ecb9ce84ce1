"""Plain-text rendering of Web QA results for the terminal: answers, claims, quotes, citations.

Works on the published report (``output/report.json``, a ``WebQaReport``) and on checkpoints
(the stages recorded in the task's Memory under ``stage/<name>``).
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ditto_nb.cli.qa_session import REPORT_JSON, REPORT_MD, STAGES
from ditto_nb.patterns.common.task_file import TaskFile


def _wrap(text: str, indent: str) -> str:
    return textwrap.fill(text, width=100, initial_indent=indent, subsequent_indent=indent) or indent


def render_report(report: Mapping[str, Any], directory: str | os.PathLike[str] | None = None) -> str:
    """Render a report (its JSON form) for the terminal.

    Args:
        report: ``WebQaReport.model_dump(mode="json")``.
        directory: the task directory (its report paths are listed when given).

    Returns:
        Text: status, answer, the answer rules that fired (a rewrite with the answer before and
        after, a check with its problem), each claim with its verification and quotes (URL, paragraph index,
        character offsets ``[start:end)`` in the normalized paragraph, retrieval time, SHA-256),
        conflicts, missing facets, failures, omitted URLs and the report files.
    """
    answer = report.get("answer") or {}
    lines = [
        f"question: {report.get('question', '')}",
        f"status:   {answer.get('status', '?')}",
        "answer:",
        _wrap(str(answer.get("text", "")), "  "),
    ]
    for fired in answer.get("rules") or []:
        if fired.get("phase") == "rewrite":
            change = f"{fired.get('before', '')!r} -> {fired.get('after', '')!r}" if fired.get("changed") else "kept"
            lines.append(_wrap(f"answer rule {fired.get('rule')} ({fired.get('round')}): {change}; "
                               f"{fired.get('note', '')}", "  "))
        else:
            lines.append(_wrap(f"answer rule {fired.get('rule')} ({fired.get('round')}) found: {fired.get('note', '')}", "  "))
    claims = answer.get("claims") or []
    if claims:
        lines.append("claims:")
    for number, claim in enumerate(claims, 1):
        check = claim.get("verification") or {}
        cross = check.get("cross_check_passed")
        flags = f"quotes verified: {check.get('quotes_verified')}, grounded: {check.get('grounded')}"
        if cross is not None:
            flags += f", cross-check: {'passed' if cross else 'failed'}"
        lines.append(_wrap(f"{number}. {claim.get('claim', '')}", "  "))
        lines.append(f"     ({flags})")
        for citation in claim.get("citations") or []:
            lines.extend(_citation_lines(citation))
    conflicts = (report.get("selection") or {}).get("conflicts") or []
    if conflicts:
        lines.append("conflicts (unresolved, no winner picked):")
        for conflict in conflicts:
            lines.append(f"  - {conflict.get('topic', '')}")
            for side in conflict.get("sides") or []:
                lines.extend(_citation_lines(side))
    missing = (report.get("selection") or {}).get("missing") or []
    if missing:
        lines.append("missing: " + "; ".join(str(item) for item in missing))
    for failure in report.get("failures") or []:
        lines.append(f"failed source: {failure.get('stage')}: {failure.get('source')} — {failure.get('failure')}")
    for omitted in report.get("omitted_urls") or []:
        lines.append(f"omitted: {omitted.get('url')} ({omitted.get('reason')})")
    if report.get("queries"):
        lines.append("queries: " + " | ".join(str(q) for q in report["queries"]))
    lines.append(f"generated: {report.get('generated_at', '')}")
    if directory is not None:
        lines.append(f"report: {Path(directory) / REPORT_JSON}")
        lines.append(f"        {Path(directory) / REPORT_MD}")
    return "\n".join(lines)


def _citation_lines(citation: Mapping[str, Any]) -> list[str]:
    return [
        f'       "{citation.get("quote", "")}"',  # never wrapped: the quote is exact text
        f"       {citation.get('final_url', '')}  paragraph {citation.get('paragraph_index')} "
        f"[{citation.get('start')}:{citation.get('end')}]",
        f"       title: {citation.get('title', '')}; retrieved {citation.get('fetched_at', '')}; "
        f"sha256 {str(citation.get('sha256', ''))[:16]}…",
    ]


def render_checkpoint(checkpoint: Mapping[str, Any], directory: str | os.PathLike[str]) -> str:
    """Render a ``{"status": "checkpoint", "stage": ...}`` result.

    Args:
        checkpoint: the checkpoint returned by ``run_web_qa``.
        directory: the task directory.

    Returns:
        Two lines: the stage reached and the command that continues.
    """
    return (
        f"checkpoint: stopped after stage {checkpoint.get('stage')!r}\n"
        f"continue with: ditto-nb resume {directory}"
    )


def _summary(name: str, value: Any) -> str:
    if not isinstance(value, Mapping):
        return ""
    if name == "plan":
        queries = value.get("queries") or []
        return "queries: " + " | ".join(str(q) for q in queries) if queries else ""
    parts = []
    for key, item in value.items():
        if isinstance(item, list | dict):
            parts.append(f"{key}: {len(item)}")
    return ", ".join(parts[:6])


def render_failures(failures: Sequence[Mapping[str, Any]], last: Mapping[str, Any] | None) -> str:
    """Render recorded failed runs (``failure/<time>`` rows of the task's Memory).

    Args:
        failures: every failure row, oldest first.
        last: the failure of the latest run (shown in full), or None.

    Returns:
        Text: the latest run's failure (stage, error type, time, message, help), then one line
        per earlier failure; empty when there are none.
    """
    lines: list[str] = []
    if last is not None:
        lines.append(f"failed:   stage {last.get('stage')!r} at {last.get('at')}: {last.get('error_type')}")
        lines.extend("  " + line for line in str(last.get("message", "")).splitlines())
        if last.get("help"):
            lines.append(f"help:     {last.get('help')}")
    earlier = [f for f in failures if f is not last]
    for failure in earlier:
        first = (str(failure.get("message", "")).splitlines() or [""])[0]
        lines.append(f"earlier failure: {failure.get('at')} stage {failure.get('stage')!r}: "
                     f"{failure.get('error_type')}: {first}")
    return "\n".join(lines)


def render_withheld(claims: Sequence[Mapping[str, Any]]) -> str:
    """Render the claims verification withheld (rejected, never published), each with why.

    Args:
        claims: ``withheld`` claims of the task's Memory.

    Returns:
        Text, empty when none.
    """
    if not claims:
        return ""
    lines = ["withheld claims (rejected by verification, not published):"]
    for number, claim in enumerate(claims, 1):
        lines.append(_wrap(f"{number}. [rejected] {claim.get('claim', '')}", "  "))
        lines.append(f"     why: {claim.get('reason', '')}")
        lines.append(f'     quote ({claim.get("chunk_id", "")}): "{claim.get("quote", "")}"')
    return "\n".join(lines)


def render_stages(
    task: TaskFile, stages: Mapping[str, Any], report_exists: bool, failed: bool = False
) -> str:
    """Render the progress of a task from its Memory (for ``show`` on a checkpoint).

    Args:
        task: the task's ``task.json`` (question, model, sandbox).
        stages: ``{stage name: persisted stage output}`` from Memory.
        report_exists: whether ``output/report.json`` exists.
        failed: the task's latest run failed (see :func:`render_failures`).

    Returns:
        Text: question, model, one line per stage (done / pending) with a short summary.
    """
    request = task.request
    model = f"{task.model.provider} / {task.model.model}" if task.model else "the configured default"
    lines = [
        f"task:     {request.get('id')}",
        f"question: {request.get('question')}",
        f"model:    {model}",
    ]
    if task.sandbox is not None:
        lines.append(f"sandbox:  {task.sandbox.corpus} (port {task.sandbox.port})")
    state = "published" if report_exists else "failed" if failed else "checkpoint" if stages else "not started"
    lines.append(f"state:    {state}")
    for name in STAGES:
        if name in stages:
            summary = _summary(name, stages[name])
            lines.append(f"  [done]    {name}" + (f"  ({summary})" if summary else ""))
        else:
            lines.append(f"  [pending] {name}")
    extra = sorted(set(stages) - set(STAGES))
    if extra:
        lines.append("  other stage records: " + ", ".join(extra))
    return "\n".join(lines)


__all__ = ["render_checkpoint", "render_failures", "render_report", "render_stages", "render_withheld"]
