"""Task Memory in PostgreSQL: :class:`PostgresMemoryStore` (its lock: :mod:`ditto_nb.workers.lock_postgres`).

One database holds many tasks. Every row of ``ditto_memory`` carries the task id, so a store
sees only its own task's ``(namespace, key)`` pairs; ``lock_postgres.task_id_of`` gives a task directory
a stable id (a UUID kept in ``<directory>/task-id``) that does not depend on the path a machine
mounts the directory at.

- Connections come from a ``psycopg_pool.ConnectionPool`` (psycopg 3). Blocking calls run in a
  worker thread via :func:`asyncio.to_thread`, like the SQLite store, so a store is not tied to
  one event loop.
- ``setup()`` is lazy and idempotent: ordered migration functions are recorded in
  ``ditto_schema_version`` and applied under a transaction-level advisory lock, so concurrent
  first setups from many machines serialize.
- Every ``psycopg.Error`` becomes :class:`~ditto_nb.errors.StorageError` at this boundary. A lost
  connection is *not* retried: a write whose commit may or may not have happened (a budget
  charge) must not be sent twice. ``retryable`` is False; the caller resumes the task.
- ``incr`` locks the row (``SELECT ... FOR UPDATE``) inside its transaction, so concurrent
  increments from any machine lose no update.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from ditto_nb.errors import InvalidRequest, StorageError

_T = TypeVar("_T")
_MIGRATION_LOCK_KEY = 0x64_69_74_74_6F_00  # "ditto": serializes concurrent migrations


def describe_dsn(dsn: str) -> str:
    """The DSN without its password, for messages."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.Error:
        return "<unparsable dsn>"
    info.pop("password", None)
    return " ".join(f"{key}={value}" for key, value in sorted(info.items()))


_HELP = "Check that PostgreSQL (memory.dsn) answers, then resume the task; completed work is kept."


@contextlib.contextmanager
def storage_errors(operation: str, where: str) -> Iterator[None]:
    """Translate psycopg / pool errors raised inside the block into :class:`StorageError`."""
    try:
        yield
    except PoolTimeout as exc:
        raise StorageError(f"memory store ({where}): {operation}: no database connection: {exc}", help=_HELP) from exc
    except psycopg.OperationalError as exc:
        raise StorageError(
            f"memory store ({where}): {operation} failed, the database connection was lost or refused "
            f"(not retried; resume the task): {exc}",
            help=_HELP,
        ) from exc
    except psycopg.Error as exc:
        raise StorageError(
            f"memory store ({where}): {operation} failed: {type(exc).__name__}: {exc}", help=_HELP
        ) from exc


def _dumps(namespace: str, key: str, value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidRequest(f"memory value for ({namespace!r}, {key!r}) is not JSON-serializable: {exc}") from exc


# --- migrations ------------------------------------------------------------------------------
def _m001_memory_table(db: psycopg.Connection[Any]) -> None:
    db.execute(
        """
        CREATE TABLE IF NOT EXISTS ditto_memory (
            task_id    TEXT NOT NULL,
            namespace  TEXT NOT NULL,
            key        TEXT NOT NULL COLLATE "C",
            value      TEXT NOT NULL,
            updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            PRIMARY KEY (task_id, namespace, key)
        )
        """
    )


PG_MIGRATIONS: tuple[Callable[[psycopg.Connection[Any]], None], ...] = (_m001_memory_table,)
"""Ordered schema migrations; migration *n* (1-based) is recorded as version *n* in
``ditto_schema_version``. Append only; never reorder or edit an applied migration."""

_UPSERT = (
    "INSERT INTO ditto_memory (task_id, namespace, key, value) VALUES (%s, %s, %s, %s) "
    "ON CONFLICT (task_id, namespace, key) DO UPDATE SET value = excluded.value, updated_at = now()"
)


class PostgresMemoryStore:
    """A :class:`~ditto_nb.workers.memory.MemoryStore` over one PostgreSQL database shared by many tasks.

    Args:
        dsn: libpq connection string or ``postgresql://`` URL.
        task_id: the task's id; every row is namespaced by it (see ``lock_postgres.task_id_of``).
        pool_max_size: pooled connections (opened lazily, at most this many).
        connect_timeout_seconds: how long to wait for a connection (seconds).

    The pool is opened lazily by :meth:`setup` (called by every method) and may be reopened
    after :meth:`close`.
    """

    def __init__(
        self, dsn: str, task_id: str, *, pool_max_size: int = 4, connect_timeout_seconds: float = 10.0
    ) -> None:
        if not task_id:
            raise InvalidRequest("PostgresMemoryStore needs a non-empty task_id")
        self.dsn = dsn
        self.task_id = task_id
        self.pool_max_size = pool_max_size
        self.connect_timeout_seconds = connect_timeout_seconds
        self._pool: ConnectionPool[psycopg.Connection[Any]] | None = None
        self._lock = threading.Lock()
        self._where = f"{describe_dsn(dsn)} task {task_id}"

    def __repr__(self) -> str:
        return f"PostgresMemoryStore({self._where!r})"

    # -- plumbing --------------------------------------------------------------------------
    def _open(self) -> ConnectionPool[psycopg.Connection[Any]]:
        with self._lock:
            if self._pool is not None:
                return self._pool
            with storage_errors("setup", self._where):
                pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
                    self.dsn,
                    min_size=0,
                    max_size=self.pool_max_size,
                    timeout=self.connect_timeout_seconds,
                    kwargs={
                        "connect_timeout": max(1, int(self.connect_timeout_seconds)),
                        "autocommit": True,
                        "application_name": f"ditto-memory {self.task_id}"[:63],
                    },
                    # Checked before use (no statement of ours is sent on a dead connection);
                    # a connection lost *during* a statement is a StorageError, never retried.
                    check=ConnectionPool.check_connection,
                    open=False,
                    name="ditto-memory",
                )
                pool.open(wait=False)
                try:
                    with pool.connection() as db:
                        self._migrate(db)
                except BaseException:
                    pool.close()
                    raise
            self._pool = pool
            return pool

    def _migrate(self, db: psycopg.Connection[Any]) -> None:
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK_KEY,))
            db.execute(
                "CREATE TABLE IF NOT EXISTS ditto_schema_version ("
                "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            row = db.execute("SELECT MAX(version) FROM ditto_schema_version").fetchone()
            current = int(row[0] or 0) if row else 0
            if current > len(PG_MIGRATIONS):
                raise StorageError(
                    f"memory store ({self._where}): schema version {current} is newer than this ditto_nb "
                    f"knows ({len(PG_MIGRATIONS)}); upgrade ditto_nb"
                )
            for version, migration in enumerate(PG_MIGRATIONS[current:], start=current + 1):
                migration(db)
                db.execute(
                    "INSERT INTO ditto_schema_version (version, name) VALUES (%s, %s)",
                    (version, migration.__name__.lstrip("_")),
                )

    def _run(self, operation: str, work: Callable[[psycopg.Connection[Any]], _T], *, write: bool = False) -> _T:
        pool = self._open()
        with storage_errors(operation, self._where), pool.connection() as db:
            if not write:
                return work(db)
            with db.transaction():
                return work(db)

    # -- MemoryStore ---------------------------------------------------------------------
    async def setup(self) -> None:
        """Open the pool and apply pending migrations (idempotent).

        Raises:
            StorageError: the database is unreachable, or its schema is newer than this code.
        """
        await asyncio.to_thread(self._open)

    async def get(self, namespace: str, key: str) -> Any | None:
        """Return the value under (namespace, key), or None when absent.

        Raises:
            StorageError: a database error or a lost connection.
        """

        def work(db: psycopg.Connection[Any]) -> Any | None:
            row = db.execute(
                "SELECT value FROM ditto_memory WHERE task_id = %s AND namespace = %s AND key = %s",
                (self.task_id, namespace, key),
            ).fetchone()
            return None if row is None else json.loads(row[0])

        return await asyncio.to_thread(self._run, "get", work)

    async def put(self, namespace: str, key: str, value: Any) -> None:
        """Insert or replace the value under (namespace, key).

        Raises:
            InvalidRequest: the value is not JSON-serializable.
            StorageError: a database error or a lost connection.
        """
        text = _dumps(namespace, key, value)

        def work(db: psycopg.Connection[Any]) -> None:
            db.execute(_UPSERT, (self.task_id, namespace, key, text))

        await asyncio.to_thread(self._run, "put", work, write=True)

    async def put_new(self, namespace: str, key: str, value: Any) -> bool:
        """Insert the value only if (namespace, key) is absent; True when inserted.

        Raises:
            InvalidRequest: the value is not JSON-serializable.
            StorageError: a database error or a lost connection.
        """
        text = _dumps(namespace, key, value)

        def work(db: psycopg.Connection[Any]) -> bool:
            cursor = db.execute(
                "INSERT INTO ditto_memory (task_id, namespace, key, value) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (task_id, namespace, key) DO NOTHING",
                (self.task_id, namespace, key, text),
            )
            return cursor.rowcount == 1

        return await asyncio.to_thread(self._run, "put_new", work, write=True)

    async def put_many(self, items: list[tuple[str, str, Any]]) -> None:
        """Upsert many (namespace, key, value) triples in one transaction (all or nothing).

        Raises:
            InvalidRequest: a value is not JSON-serializable (nothing is written).
            StorageError: a database error (nothing is written).
        """
        rows = [(self.task_id, namespace, key, _dumps(namespace, key, value)) for namespace, key, value in items]
        if not rows:
            return

        def work(db: psycopg.Connection[Any]) -> None:
            with db.cursor() as cursor:
                cursor.executemany(_UPSERT, rows)

        await asyncio.to_thread(self._run, "put_many", work, write=True)

    async def items(self, namespace: str, prefix: str = "") -> list[tuple[str, Any]]:
        """Return (key, value) pairs of a namespace whose key starts with ``prefix`` (literal, no
        wildcards), sorted by key in code point order (``COLLATE "C"`` over UTF-8).

        Raises:
            StorageError: a database error or a lost connection.
        """

        def work(db: psycopg.Connection[Any]) -> list[tuple[str, Any]]:
            rows = db.execute(
                "SELECT key, value FROM ditto_memory WHERE task_id = %s AND namespace = %s "
                "AND left(key, %s) = %s ORDER BY key COLLATE \"C\"",
                (self.task_id, namespace, len(prefix), prefix),
            ).fetchall()
            return [(str(key), json.loads(value)) for key, value in rows]

        return await asyncio.to_thread(self._run, "items", work)

    async def namespaces(self) -> list[str]:
        """Return this task's namespaces holding at least one key, sorted (code point order).

        Raises:
            StorageError: a database error or a lost connection.
        """

        def work(db: psycopg.Connection[Any]) -> list[str]:
            rows = db.execute(
                "SELECT DISTINCT namespace COLLATE \"C\" FROM ditto_memory WHERE task_id = %s ORDER BY 1",
                (self.task_id,),
            ).fetchall()
            return [str(row[0]) for row in rows]

        return await asyncio.to_thread(self._run, "namespaces", work)

    async def delete(self, namespace: str, key: str) -> bool:
        """Delete (namespace, key); True when a value was deleted.

        Raises:
            StorageError: a database error or a lost connection.
        """

        def work(db: psycopg.Connection[Any]) -> bool:
            cursor = db.execute(
                "DELETE FROM ditto_memory WHERE task_id = %s AND namespace = %s AND key = %s",
                (self.task_id, namespace, key),
            )
            return cursor.rowcount == 1

        return await asyncio.to_thread(self._run, "delete", work, write=True)

    async def incr(self, namespace: str, key: str, amount: int = 1) -> int:
        """Atomically add ``amount`` to the integer under (namespace, key); absent counts as 0.

        Returns:
            The new value.

        Raises:
            InvalidRequest: the stored value is not an integer.
            StorageError: a database error or a lost connection (the increment may or may not
                have been committed; it is never sent twice).
        """
        ident = (self.task_id, namespace, key)

        def work(db: psycopg.Connection[Any]) -> int:
            db.execute(
                "INSERT INTO ditto_memory (task_id, namespace, key, value) VALUES (%s, %s, %s, '0') "
                "ON CONFLICT (task_id, namespace, key) DO NOTHING",
                ident,
            )
            row = db.execute(
                "SELECT value FROM ditto_memory WHERE task_id = %s AND namespace = %s AND key = %s FOR UPDATE",
                ident,
            ).fetchone()
            current = json.loads(row[0]) if row else 0
            if not isinstance(current, int) or isinstance(current, bool):
                raise InvalidRequest(f"memory ({namespace!r}, {key!r}) holds {current!r}, not an integer")
            new = current + amount
            db.execute(
                "UPDATE ditto_memory SET value = %s, updated_at = now() "
                "WHERE task_id = %s AND namespace = %s AND key = %s",
                (json.dumps(new), *ident),
            )
            return new

        return await asyncio.to_thread(self._run, "incr", work, write=True)

    async def schema_version(self) -> int:
        """Return the highest applied migration version (for diagnostics and tests)."""

        def work(db: psycopg.Connection[Any]) -> int:
            row = db.execute("SELECT MAX(version) FROM ditto_schema_version").fetchone()
            return int(row[0] or 0) if row else 0

        return await asyncio.to_thread(self._run, "schema_version", work)

    async def close(self) -> None:
        """Close the pool (idempotent); a later call reopens it."""

        def work() -> None:
            with self._lock:
                pool, self._pool = self._pool, None
            if pool is not None:
                with storage_errors("close", self._where):
                    pool.close()

        await asyncio.to_thread(work)


__all__ = ["PG_MIGRATIONS", "PostgresMemoryStore", "describe_dsn", "storage_errors"]
