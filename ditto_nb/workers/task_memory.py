"""Choosing a task's Memory backend: :func:`open_task_memory` → (task lock, MemoryStore).

``memory.backend`` of the runtime configuration (:class:`~ditto_nb.runtime.config.MemoryConfig`)
picks the pair:

- ``sqlite``: :class:`~ditto_nb.workers.memory.TaskLock` (``flock``) and the SQLite file inside the
  task directory (one machine);
- ``postgres``: :class:`~ditto_nb.workers.lock_postgres.PostgresTaskLock` (advisory lock) and a
  :class:`~ditto_nb.workers.memory_postgres.PostgresMemoryStore` namespaced by the directory's task
  id (any machine that mounts the task directory and reaches the database).

:func:`open_task_reader` makes the same choice for readers (``ditto-nb show``, the notebook
frames): a read-only store that takes no lock and never creates anything.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from ditto_nb.errors import ConfigError, StorageError
from ditto_nb.runtime.config import MemoryConfig
from ditto_nb.workers.memory import (
    MEMORY_FILE_NAME,
    TASK_ID_FILE_NAME,
    MemoryStore,
    SqliteMemoryStore,
    TaskLock,
    open_task_store,
)


class TaskLockLike(Protocol):
    """What a task lock offers: ``acquire()`` (raises TaskLocked), ``release()``, ``held``."""

    @property
    def held(self) -> bool: ...

    def acquire(self) -> None: ...

    def release(self) -> None: ...


def open_task_memory(
    directory: str | os.PathLike[str], memory: MemoryConfig | None = None
) -> tuple[TaskLockLike, MemoryStore]:
    """Return the (unacquired) task lock and the (unopened) MemoryStore of a task directory.

    Args:
        directory: the task directory (created on first use).
        memory: the backend choice; None → SQLite in the directory.

    Returns:
        ``(lock, store)``: call ``lock.acquire()`` then ``await store.setup()``.

    Raises:
        StorageError: the task id of a postgres task cannot be read or created.
    """
    if memory is None or memory.backend == "sqlite":
        return TaskLock(directory), open_task_store(directory)
    from ditto_nb.workers.lock_postgres import PostgresTaskLock, task_id_of
    from ditto_nb.workers.memory_postgres import PostgresMemoryStore

    assert memory.dsn is not None  # MemoryConfig validates it for postgres
    task_id = task_id_of(directory)
    lock = PostgresTaskLock(memory.dsn, task_id, connect_timeout_seconds=memory.connect_timeout_seconds)
    store = PostgresMemoryStore(
        memory.dsn,
        task_id,
        pool_max_size=memory.pool_max_size,
        connect_timeout_seconds=memory.connect_timeout_seconds,
    )
    return lock, store


def has_task_memory(directory: str | os.PathLike[str]) -> bool:
    """Whether a directory holds a task's Memory: its SQLite file, or the ``task-id`` of a
    PostgreSQL task."""
    return any((Path(directory) / name).is_file() for name in (MEMORY_FILE_NAME, TASK_ID_FILE_NAME))


def open_task_reader(directory: str | os.PathLike[str], memory: MemoryConfig | None = None) -> MemoryStore:
    """Return a read-only MemoryStore over a task's Memory, chosen as :func:`open_task_memory` does.

    SQLite opens ``<directory>/memory.sqlite3`` read-only (no lock, no migration, works while the
    task runs); PostgreSQL opens the task id's rows with a one-connection pool. Nothing is created.

    Args:
        directory: the task directory.
        memory: the backend choice the task runs with; None → SQLite in the directory.

    Returns:
        An unopened store (call ``close()`` when done).

    Raises:
        ConfigError: the directory holds no Memory of that backend (no ``memory.sqlite3`` /
            ``task-id``).
        StorageError: the task id file cannot be read.
    """
    task_dir = Path(directory)
    if memory is None or memory.backend == "sqlite":
        path = task_dir / MEMORY_FILE_NAME
        if not path.is_file():
            raise ConfigError(f"{task_dir} holds no task Memory ({MEMORY_FILE_NAME} is missing)")
        return SqliteMemoryStore(path, read_only=True)
    from ditto_nb.workers.memory_postgres import PostgresMemoryStore

    id_file = task_dir / TASK_ID_FILE_NAME
    if not id_file.is_file():
        raise ConfigError(f"{task_dir} holds no PostgreSQL task Memory ({TASK_ID_FILE_NAME} is missing)")
    try:
        task_id = id_file.read_text(encoding="ascii").strip()
    except OSError as exc:
        raise StorageError(f"cannot read the task id {id_file}: {exc}") from exc
    assert memory.dsn is not None  # MemoryConfig validates it for postgres
    return PostgresMemoryStore(memory.dsn, task_id, pool_max_size=1,
                               connect_timeout_seconds=memory.connect_timeout_seconds)


__all__ = ["TaskLockLike", "has_task_memory", "open_task_memory", "open_task_reader"]
