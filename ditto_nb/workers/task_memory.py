"""Choosing a task's Memory backend: :func:`open_task_memory` → (task lock, MemoryStore).

``memory.backend`` of the runtime configuration (:class:`~ditto_nb.runtime.config.MemoryConfig`)
picks the pair:

- ``sqlite``: :class:`~ditto_nb.workers.memory.TaskLock` (``flock``) and the SQLite file inside the
  task directory (one machine);
- ``postgres``: :class:`~ditto_nb.workers.lock_postgres.PostgresTaskLock` (advisory lock) and a
  :class:`~ditto_nb.workers.memory_postgres.PostgresMemoryStore` namespaced by the directory's task
  id (any machine that mounts the task directory and reaches the database).
"""

from __future__ import annotations

import os
from typing import Protocol

from ditto_nb.runtime.config import MemoryConfig
from ditto_nb.workers.memory import MemoryStore, TaskLock, open_task_store


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


__all__ = ["TaskLockLike", "open_task_memory"]
