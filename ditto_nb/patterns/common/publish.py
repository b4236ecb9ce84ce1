"""Publishing a task's report: ``output/report.json`` + ``output/report.md``, atomically, once.

Each file is written to a temporary file in ``output/`` and moved into place with
``os.replace`` (atomic on POSIX). ``report.md`` is written first and ``report.json`` last, so a
present ``report.json`` means the publication completed. Publishing the same report again is a
no-op; a different report → :class:`~ditto_nb.errors.PublishFailed` (published outputs are
immutable). An unwritable folder → ``PublishFailed`` with ``retryable=True``; the report stays in
Memory, so a later run publishes it. A task directory (or its Memory file) that vanished while
the task ran → ``PublishFailed`` and nothing is written: a report is never published without the
Memory and snapshots behind it, and the folder is never recreated holding only ``output/``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ditto_nb.errors import PublishFailed
from ditto_nb.patterns.common.records import PublishedFiles
from ditto_nb.workers.memory import MEMORY_FILE_NAME, TASK_ID_FILE_NAME

REPORT_JSON = "report.json"
REPORT_MD = "report.md"


def report_json_text(report: Mapping[str, object]) -> str:
    """The exact text published as ``report.json`` (sorted keys, 2-space indent, final newline).

    Args:
        report: the JSON report.

    Returns:
        The text.
    """
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _check_task_state(task_dir: Path) -> None:
    if not task_dir.is_dir():
        raise PublishFailed(
            f"task directory {task_dir} vanished while the task ran; nothing was published",
            help="Run the task again: it starts afresh in that folder.",
        )
    # SQLite Memory lives in the directory; a PostgreSQL task keeps its id file there instead.
    if not any((task_dir / name).is_file() for name in (MEMORY_FILE_NAME, TASK_ID_FILE_NAME)):
        raise PublishFailed(
            f"the task's Memory ({task_dir / MEMORY_FILE_NAME}) vanished while the task ran; nothing was published",
            help="Run the task again in a new folder (or remove this one): its state is lost.",
        )


def publish_report(directory: str | os.PathLike[str], report: Mapping[str, object], markdown: str) -> PublishedFiles:
    """Write the report files once (idempotent for the same content).

    Args:
        directory: the task directory; files go to ``<directory>/output/``.
        report: the JSON report.
        markdown: the Markdown rendering of the same report.

    Returns:
        ``{"published": bool, "json_path": str, "markdown_path": str}``; ``published`` is False
        when the identical report was already there.

    Raises:
        PublishFailed: the task directory or its Memory file (``memory.sqlite3``) is gone (not
            retryable: the task's state is lost; nothing is written), a different report is
            already published (not retryable), or the folder or files could not be written
            (``retryable=True``).
    """
    task_dir = Path(directory)
    _check_task_state(task_dir)
    out = task_dir / "output"
    json_path, md_path = out / REPORT_JSON, out / REPORT_MD
    json_text = report_json_text(report)
    result: PublishedFiles = {"published": False, "json_path": str(json_path), "markdown_path": str(md_path)}
    try:
        existing_json = _read(json_path)
        existing_md = _read(md_path)
    except OSError as exc:
        raise PublishFailed(f"cannot read {out}: {exc}", retryable=True) from exc
    if existing_json is not None and existing_json != json_text:
        raise PublishFailed(f"{json_path} already holds a different report; outputs are immutable")
    if existing_json is not None and existing_md is not None and existing_md != markdown:
        raise PublishFailed(f"{md_path} already holds a different report; outputs are immutable")
    if existing_json == json_text and existing_md == markdown:
        return result
    try:
        out.mkdir(exist_ok=True)  # never parents: a vanished task directory is not recreated
        if existing_md != markdown:
            _write_atomic(md_path, markdown)
        if existing_json != json_text:
            _write_atomic(json_path, json_text)
    except OSError as exc:
        raise PublishFailed(f"cannot write the report to {out}: {exc}", retryable=True) from exc
    result["published"] = True
    return result


__all__ = ["REPORT_JSON", "REPORT_MD", "publish_report", "report_json_text"]
