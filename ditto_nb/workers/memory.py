"""Durable task state: the :class:`MemoryStore` interface (and where its backends live).

A MemoryStore holds JSON-serializable values under ``(namespace, key)``. Backends:

- :class:`~ditto_nb.workers.memory_sqlite.SqliteMemoryStore` (default): one SQLite file per task
  directory (``memory.sqlite3``), WAL, ordered migrations; re-exported here.
- :class:`~ditto_nb.workers.memory_postgres.PostgresMemoryStore`: one database shared by many
  tasks, namespaced by the directory's ``task-id``.

:func:`ditto_nb.workers.task_memory.open_task_memory` picks the backend of a task from
``memory`` in the runtime configuration. :class:`~ditto_nb.workers.task_lock.TaskLock` (also
re-exported here) gives one process exclusive use of a task directory. The Memory Worker
(``MEMORY.GET`` / ``MEMORY.WRITE``) lives in :mod:`ditto_nb.workers.memory_worker` (import it from
``ditto_nb.workers``; no import cycle).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ditto_nb.workers.memory_sqlite import (
    MEMORY_FILE_NAME,
    MIGRATIONS,
    SqliteMemoryStore,
    open_task_store,
)
from ditto_nb.workers.task_lock import LOCK_FILE_NAME, TaskLock

TASK_ID_FILE_NAME = "task-id"
"""The id file of a task whose Memory is in PostgreSQL (see ``ditto_nb.workers.lock_postgres``)."""


@runtime_checkable
class MemoryStore(Protocol):
    """Durable key/value state of one task: JSON-serializable values under (namespace, key).

    Every backend (SQLite, PostgreSQL, ...) must pass
    :func:`ditto_nb.testing.memory_conformance.run_memory_conformance`.
    Database failures raise :class:`~ditto_nb.errors.StorageError`.
    """

    async def setup(self) -> None:
        """Prepare the store (idempotent): tables, migrations, journal mode."""

    async def get(self, namespace: str, key: str) -> Any | None:
        """Return the value stored under (namespace, key), or None when absent."""

    async def put(self, namespace: str, key: str, value: Any) -> None:
        """Insert or replace the value under (namespace, key)."""

    async def put_new(self, namespace: str, key: str, value: Any) -> bool:
        """Insert only if absent; True when inserted, False when a value already existed."""

    async def put_many(self, items: list[tuple[str, str, Any]]) -> None:
        """Upsert many (namespace, key, value) triples in one transaction (all or nothing)."""

    async def items(self, namespace: str, prefix: str = "") -> list[tuple[str, Any]]:
        """Return the (key, value) pairs of a namespace whose key starts with prefix, by key."""

    async def namespaces(self) -> list[str]:
        """Return the namespaces holding at least one key, sorted (code point order)."""

    async def delete(self, namespace: str, key: str) -> bool:
        """Delete (namespace, key); True when something was deleted."""

    async def incr(self, namespace: str, key: str, amount: int = 1) -> int:
        """Atomically add amount to an integer value (absent counts as 0); return the new value."""

    async def close(self) -> None:
        """Release the store's resources."""


__all__ = [
    "LOCK_FILE_NAME",
    "MEMORY_FILE_NAME",
    "MIGRATIONS",
    "TASK_ID_FILE_NAME",
    "MemoryStore",
    "SqliteMemoryStore",
    "TaskLock",
    "open_task_store",
]
