"""Read-only look at a task directory's SQLite Memory (the only SQL outside the store itself).

Opens ``<task_dir>/memory.sqlite3`` with a *read-only* connection (SQLite URI ``mode=ro``), so it
takes no :class:`~ditto_nb.workers.memory.TaskLock` and works while the task is open in the same
process (WAL readers never block the writer), between stages, and on a finished task. Rows of
a task written before the one-ledger migration (``m002_one_ledger``) are returned under their
migrated keys, so readers see one layout whether or not the task was reopened since.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ditto_nb.errors import ConfigError, StorageError
from ditto_nb.workers.memory import _loads
from ditto_nb.workers.memory_migrations import RESEARCH_RENAMES

MEMORY_FILE = "memory.sqlite3"
"""File name of the task's Memory inside the task directory."""


def read_task_rows(
    directory: str | os.PathLike[str], namespace: str | None = None, prefixes: Sequence[str] = ("web_qa:", "research:"),
) -> tuple[str, dict[str, Any]]:
    """Read every row of one task namespace, in one read transaction.

    Args:
        directory: the task directory (holding ``memory.sqlite3``).
        namespace: the namespace to read; None → the one namespace starting with ``prefixes``.
        prefixes: namespace prefixes that mark a task.

    Returns:
        ``(namespace, {key: JSON value})``.

    Raises:
        ConfigError: no Memory file, no task namespace, or several and none chosen.
        StorageError: the database cannot be read, or a stored value is not JSON (damaged file).
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
            if namespace is None:
                tasks = [n for n in names if n.startswith(tuple(prefixes))]
                if len(tasks) != 1:
                    found = ", ".join(tasks) or "none"
                    raise ConfigError(f"{task_dir}: expected one task namespace in Memory, found {found}")
                namespace = tasks[0]
            rows = db.execute("SELECT key, value FROM memory WHERE namespace = ?", (namespace,)).fetchall()
            db.execute("COMMIT")
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise StorageError(f"cannot read task Memory {path}: {exc}") from exc
    values = {str(k): _loads(path, namespace, str(k), v) for k, v in rows}
    if namespace.startswith("research:"):
        for old, new in RESEARCH_RENAMES:
            if old in values:
                values.setdefault(new, values.pop(old))
    return namespace, values


__all__ = ["MEMORY_FILE", "read_task_rows"]
