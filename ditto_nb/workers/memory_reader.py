"""Read every row of one task namespace through the task's MemoryStore (the configured backend).

:func:`read_task_rows` opens the store :func:`~ditto_nb.workers.task_memory.open_task_reader`
chooses (SQLite read-only, or the PostgreSQL rows of the directory's ``task-id``), so it takes no
task lock and works while the task is open in the same process, between stages, and on a
finished task. Rows of a task written before the one-ledger migration (``m002_one_ledger``) are
returned under their migrated keys, so readers see one layout whether or not the task was
reopened since.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ditto_nb.errors import ConfigError
from ditto_nb.runtime.config import MemoryConfig
from ditto_nb.runtime.sync import run_sync
from ditto_nb.workers.memory import MEMORY_FILE_NAME, MemoryStore
from ditto_nb.workers.memory_migrations import RESEARCH_RENAMES
from ditto_nb.workers.task_memory import open_task_reader

MEMORY_FILE = MEMORY_FILE_NAME
"""File name of the task's SQLite Memory inside the task directory."""


async def read_store_rows(
    store: MemoryStore, where: str, namespace: str | None = None, prefixes: Sequence[str] = ("web_qa:", "research:"),
) -> tuple[str, dict[str, Any]]:
    """Read every row of one task namespace from an open store (closing it is the caller's job).

    Args:
        store: the task's MemoryStore.
        where: the task directory, for messages.
        namespace: the namespace to read; None → the one namespace starting with ``prefixes``.
        prefixes: namespace prefixes that mark a task.

    Returns:
        ``(namespace, {key: JSON value})``.

    Raises:
        ConfigError: no task namespace, or several and none chosen.
        StorageError: the store cannot be read, or a stored value is not JSON (damaged store).
    """
    if namespace is None:
        tasks = [n for n in await store.namespaces() if n.startswith(tuple(prefixes))]
        if len(tasks) != 1:
            found = ", ".join(tasks) or "none"
            raise ConfigError(f"{where}: expected one task namespace in Memory, found {found}")
        namespace = tasks[0]
    values = dict(await store.items(namespace))
    if namespace.startswith("research:"):
        for old, new in RESEARCH_RENAMES:
            if old in values:
                values.setdefault(new, values.pop(old))
    return namespace, values


def read_task_rows(
    directory: str | os.PathLike[str],
    namespace: str | None = None,
    prefixes: Sequence[str] = ("web_qa:", "research:"),
    memory: MemoryConfig | None = None,
) -> tuple[str, dict[str, Any]]:
    """Read every row of one task namespace of a task directory (sync; usable inside an event loop).

    Args:
        directory: the task directory.
        namespace: the namespace to read; None → the one namespace starting with ``prefixes``.
        prefixes: namespace prefixes that mark a task.
        memory: the task's Memory backend (``config.memory``); None → SQLite in the directory.

    Returns:
        ``(namespace, {key: JSON value})``.

    Raises:
        ConfigError: no Memory, no task namespace, or several and none chosen.
        StorageError: the store cannot be read, or a stored value is not JSON (damaged store).
    """
    store = open_task_reader(directory, memory)

    async def read() -> tuple[str, dict[str, Any]]:
        try:
            return await read_store_rows(store, str(Path(directory)), namespace, prefixes)
        finally:
            await store.close()

    return run_sync(read())


__all__ = ["MEMORY_FILE", "read_store_rows", "read_task_rows"]
