"""Read-only view of a task directory's Memory, for frames and export.

The task's Memory is the SQLite file ``<task_dir>/memory.sqlite3`` written by
:class:`ditto_nb.workers.memory.SqliteMemoryStore` (table ``memory(namespace, key, value JSON,
updated_at)``, migration 1). This module opens it with a *read-only* connection (SQLite URI
``mode=ro``), so it takes no :class:`~ditto_nb.workers.memory.TaskLock` and works while the task is
open in the same process (WAL readers never block the writer), between stages, and on a finished
task. Key layout: ``docs/PATTERNS.md`` (``request``, ``stage/<name>``, ``ledger/<key>``,
``budget/<name>``, ``report``; deep research adds ``round/<n>/plan``, ``round/<n>/reads`` and
``stage/round/<n>``).
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ditto_nb.errors import ConfigError, StorageError

MEMORY_FILE = "memory.sqlite3"
"""File name of the task's Memory inside the task directory."""

Pattern = Literal["web_qa", "deep_research"]

_PREFIXES: dict[str, Pattern] = {"web_qa:": "web_qa", "research:": "deep_research"}


@dataclass(frozen=True)
class TaskView:
    """A snapshot of one task's Memory rows.

    Attributes:
        directory: the task directory.
        pattern: ``web_qa`` or ``deep_research`` (from the namespace prefix).
        namespace: the Memory namespace (``web_qa:<id>`` or ``research:<id>``).
        rows: every ``{key: value}`` of the namespace (JSON values), read in one transaction.
    """

    directory: Path
    pattern: Pattern
    namespace: str
    rows: dict[str, Any]

    def get(self, key: str) -> Any:
        """The value under ``key``, or None."""
        return self.rows.get(key)

    def prefixed(self, prefix: str) -> list[tuple[str, Any]]:
        """``(key without prefix, value)`` of every key starting with ``prefix``, sorted by key."""
        return [(k[len(prefix):], v) for k, v in sorted(self.rows.items()) if k.startswith(prefix)]

    @property
    def request(self) -> dict[str, Any]:
        """The bound request's fields (``{}`` before the task is bound)."""
        binding = self.rows.get("request")
        if isinstance(binding, dict) and isinstance(binding.get("request"), dict):
            return dict(binding["request"])
        return {}

    def stage(self, name: str) -> Any:
        """The committed output of stage ``name`` (``stage/<name>``), or None."""
        return self.rows.get(f"stage/{name}")

    @property
    def report(self) -> dict[str, Any] | None:
        """The final validated report (``report``, or Web QA's ``stage/report``), or None."""
        value = self.rows.get("report") or self.rows.get("stage/report")
        return dict(value) if isinstance(value, dict) else None

    @property
    def failures(self) -> list[dict[str, Any]]:
        """Failed runs recorded in Memory (``failure/<time>``), oldest first: ``stage``,
        ``error_type``, ``message``, ``help``, ``retryable``, ``at`` (UTC ISO-8601)."""
        return [dict(v) for _k, v in self.prefixed("failure/") if isinstance(v, dict)]

    @property
    def last_failure(self) -> dict[str, Any] | None:
        """The failure of the task's latest run: the newest failure row when nothing is published
        and no ledger row is newer (a later run that did work supersedes it), else None."""
        failures = self.failures
        if not failures or (self.directory / "output" / "report.json").is_file():
            return None
        newest = failures[-1]
        work = [str(row.get("at") or "") for _k, row in self.ledger()]
        if work and max(work) > str(newest.get("at") or ""):
            return None
        return newest

    @property
    def withheld(self) -> list[dict[str, Any]]:
        """Claims verification rejected and withheld from the published answer (``withheld``):
        ``claim``, ``chunk_id``, ``quote``, ``reason``, ``quote_found``, ``grounded``."""
        value = self.rows.get("withheld")
        claims = value.get("claims") if isinstance(value, dict) else None
        return [dict(c) for c in claims or [] if isinstance(c, dict)]

    def ledger(self, kind: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """Ledger rows ``(key, row)`` sorted by key, optionally only those of ``kind``
        (``model``, ``search``, ``read``)."""
        rows = [(k, v) for k, v in self.prefixed("ledger/") if isinstance(v, dict)]
        return [(k, v) for k, v in rows if kind is None or v.get("kind") == kind]


def load_task(directory: str | os.PathLike[str], namespace: str | None = None) -> TaskView:
    """Read a task directory's Memory (read-only, no lock).

    Args:
        directory: the task directory (holding ``memory.sqlite3``).
        namespace: the namespace to read; None → the one Web QA or research namespace present.

    Returns:
        The :class:`TaskView`.

    Raises:
        ConfigError: no Memory file, no task namespace, or several namespaces and none chosen.
        StorageError: the database cannot be read, or a value in it is not JSON.
    """
    task_dir = Path(directory)
    path = task_dir / MEMORY_FILE
    if not path.is_file():
        raise ConfigError(f"{task_dir} holds no task Memory ({MEMORY_FILE} is missing)")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30.0)
        try:
            db.execute("BEGIN")
            names = [str(r[0]) for r in db.execute("SELECT DISTINCT namespace FROM memory ORDER BY namespace")]
            chosen = namespace if namespace is not None else _pick(names, task_dir)
            rows = db.execute("SELECT key, value FROM memory WHERE namespace = ?", (chosen,)).fetchall()
            db.execute("COMMIT")
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise StorageError(f"cannot read task Memory {path}: {exc}") from exc
    pattern = next((p for prefix, p in _PREFIXES.items() if chosen.startswith(prefix)), None)
    if pattern is None:
        raise ConfigError(f"namespace {chosen!r} is not a Web QA or research task")
    return TaskView(task_dir, pattern, chosen, {str(k): _decode(path, chosen, str(k), v) for k, v in rows})


def _decode(path: Path, namespace: str, key: str, text: Any) -> Any:
    """A stored value; one that is not JSON is a damaged store (:class:`StorageError`)."""
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise StorageError(
            f"memory store {path}: the value under ({namespace!r}, {key!r}) is not JSON ({exc}); the file is damaged",
            help="Restore the task directory from a backup, or start the task again in a new directory.",
        ) from None


def _pick(names: list[str], task_dir: Path) -> str:
    tasks = [n for n in names if any(n.startswith(prefix) for prefix in _PREFIXES)]
    if len(tasks) != 1:
        found = ", ".join(tasks) or "none"
        raise ConfigError(f"{task_dir}: expected one task namespace in Memory, found {found}")
    return tasks[0]


__all__ = ["MEMORY_FILE", "Pattern", "TaskView", "load_task"]
