"""The default :class:`~ditto_nb.workers.memory.MemoryStore` backend: :class:`SqliteMemoryStore`.

One SQLite file per task directory (``memory.sqlite3``):

- ``setup()`` is lazy and idempotent (LangGraph checkpoint-sqlite style): WAL journal, a busy
  timeout, and ordered migration functions recorded in a ``schema_version`` table (simonw/llm
  style). Every public method calls it first.
- Every write runs in ``BEGIN IMMEDIATE``, which takes SQLite's write lock *before* reading, so
  concurrent writers (threads or processes, each with its own connection) wait on the busy
  timeout instead of failing with "database is locked" on a read→write lock upgrade
  (https://www.sqlite.org/lang_transaction.html, https://www.sqlite.org/wal.html).
- Blocking sqlite3 calls run in a worker thread via :func:`asyncio.to_thread`; one store's calls
  are serialized by a lock around its single connection.
- Every ``sqlite3.Error`` is translated into :class:`~ditto_nb.errors.StorageError` at this
  boundary by one helper (httpx style).
- ``read_only=True`` opens the file with SQLite's ``mode=ro`` URI (no WAL switch, no migration,
  writes refused): the task readers use it, so reading never takes the task lock or changes the file.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_random_exponential

from ditto_nb.errors import InvalidRequest, StorageError
from ditto_nb.workers.memory_migrations import MIGRATIONS

MEMORY_FILE_NAME = "memory.sqlite3"
"""File name of a task directory's SQLite MemoryStore."""

_T = TypeVar("_T")


# --- error translation -----------------------------------------------------------------------
@contextlib.contextmanager
def _storage_errors(operation: str, path: Path) -> Iterator[None]:
    """Translate sqlite3 / OS errors raised inside the block into :class:`StorageError`."""
    try:
        yield
    except sqlite3.Error as exc:
        locked = isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)
        raise StorageError(
            f"memory store {path}: {operation} failed: {type(exc).__name__}: {exc}", retryable=locked
        ) from exc
    except OSError as exc:
        raise StorageError(f"memory store {path}: {operation} failed: {exc}") from exc


def _dumps(namespace: str, key: str, value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidRequest(f"memory value for ({namespace!r}, {key!r}) is not JSON-serializable: {exc}") from exc


def _loads(path: Path, namespace: str, key: str, text: Any) -> Any:
    """Decode a stored value; a value that is not JSON is a damaged store (:class:`StorageError`)."""
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise StorageError(
            f"memory store {path}: the value under ({namespace!r}, {key!r}) is not JSON ({exc}); the file is damaged",
            help="Restore the task directory from a backup, or start the task again in a new directory.",
        ) from None


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")




class SqliteMemoryStore:
    """The default :class:`MemoryStore`: one SQLite file (WAL) per task directory.

    Args:
        path: the database file; its parent directory is created on setup.
        busy_timeout_seconds: how long a writer waits for another connection's write lock
            (seconds) before failing with StorageError.
        read_only: open an existing file with SQLite's ``mode=ro`` URI: no WAL switch, no
            migration, every write raises StorageError (readers of a task use it).

    The connection is opened lazily by :meth:`setup` (called by every method) and may be
    reopened after :meth:`close`.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, busy_timeout_seconds: float = 30.0, read_only: bool = False
    ) -> None:
        self.path = Path(path)
        self.busy_timeout_seconds = busy_timeout_seconds
        self.read_only = read_only
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SqliteMemoryStore({str(self.path)!r})"

    # -- plumbing --------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        """Open, configure and migrate the connection (caller holds ``self._lock``)."""
        if self._db is not None:
            return self._db
        if self.read_only:
            with _storage_errors("setup", self.path):
                self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                           timeout=self.busy_timeout_seconds, isolation_level=None,
                                           check_same_thread=False)
            return self._db
        with _storage_errors("setup", self.path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(
                self.path,
                timeout=self.busy_timeout_seconds,
                isolation_level=None,  # autocommit; transactions are explicit
                check_same_thread=False,  # used from to_thread workers, serialized by _lock
            )
            try:
                db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_seconds * 1000)}")
                mode = self._enable_wal(db)
                if mode != "wal":
                    raise StorageError(f"memory store {self.path}: cannot enable WAL (journal_mode={mode})")
                db.execute("PRAGMA synchronous = NORMAL")
                self._migrate(db)
            except BaseException:
                db.close()
                raise
        self._db = db
        return db

    def _enable_wal(self, db: sqlite3.Connection) -> str:
        """Switch the file to WAL; return the journal mode it ends in (lower case). SQLite answers
        "database is locked" at once, without its busy handler, while another connection switches
        the same new file (seen: eight stores set up at once): a file already in WAL is left alone,
        a locked switch is retried with jittered backoff for up to the busy timeout."""
        mode = str(db.execute("PRAGMA journal_mode").fetchone()[0]).lower()
        if mode == "wal":
            return mode
        for attempt in Retrying(
            retry=retry_if_exception(lambda exc: isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)),
            stop=stop_after_delay(self.busy_timeout_seconds),
            wait=wait_random_exponential(multiplier=0.01, max=0.5),
            reraise=True,
        ):
            with attempt:
                mode = str(db.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
        return mode

    def _migrate(self, db: sqlite3.Connection) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version ("
                "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
            current = int(row[0] or 0)
            if current > len(MIGRATIONS):
                raise StorageError(
                    f"memory store {self.path}: schema version {current} is newer than this ditto_nb "
                    f"knows ({len(MIGRATIONS)}); upgrade ditto_nb"
                )
            for version, migration in enumerate(MIGRATIONS[current:], start=current + 1):
                migration(db)
                db.execute(
                    "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                    (version, migration.__name__.lstrip("_"), _now()),
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _run(self, operation: str, work: Callable[[sqlite3.Connection], _T]) -> _T:
        with self._lock:
            db = self._connect()
            with _storage_errors(operation, self.path):
                return work(db)

    def _write(self, operation: str, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``work`` inside ``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on any error)."""

        if self.read_only:
            raise StorageError(f"memory store {self.path}: {operation} refused, the store is open read-only")

        def transaction(db: sqlite3.Connection) -> _T:
            db.execute("BEGIN IMMEDIATE")
            try:
                result = work(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return result

        return self._run(operation, transaction)

    # -- MemoryStore ---------------------------------------------------------------------
    async def setup(self) -> None:
        """Open the file, enable WAL and apply pending migrations (idempotent).

        Raises:
            StorageError: the file cannot be opened, or its schema is newer than this code.
        """

        def work() -> None:
            with self._lock:
                self._connect()

        await asyncio.to_thread(work)

    async def get(self, namespace: str, key: str) -> Any | None:
        """Return the value under (namespace, key), or None when absent.

        Raises:
            StorageError: a database error, or a stored value that is not JSON.
        """

        def work(db: sqlite3.Connection) -> Any | None:
            row = db.execute("SELECT value FROM memory WHERE namespace = ? AND key = ?", (namespace, key)).fetchone()
            return None if row is None else _loads(self.path, namespace, key, row[0])

        return await asyncio.to_thread(self._run, "get", work)

    async def put(self, namespace: str, key: str, value: Any) -> None:
        """Insert or replace the value under (namespace, key).

        Raises:
            InvalidRequest: the value is not JSON-serializable.
            StorageError: a database error.
        """
        text = _dumps(namespace, key, value)

        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO memory (namespace, key, value, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                (namespace, key, text, _now()),
            )

        await asyncio.to_thread(self._write, "put", work)

    async def put_new(self, namespace: str, key: str, value: Any) -> bool:
        """Insert the value only if (namespace, key) is absent.

        Returns:
            True when inserted, False when a value already existed (it is left unchanged).

        Raises:
            InvalidRequest: the value is not JSON-serializable.
            StorageError: a database error.
        """
        text = _dumps(namespace, key, value)

        def work(db: sqlite3.Connection) -> bool:
            cursor = db.execute(
                "INSERT INTO memory (namespace, key, value, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (namespace, key) DO NOTHING",
                (namespace, key, text, _now()),
            )
            return cursor.rowcount == 1

        return await asyncio.to_thread(self._write, "put_new", work)

    async def put_many(self, items: list[tuple[str, str, Any]]) -> None:
        """Upsert many (namespace, key, value) triples in one transaction (all or nothing).

        Raises:
            InvalidRequest: a value is not JSON-serializable (nothing is written).
            StorageError: a database error (nothing is written).
        """
        now = _now()
        rows = [(namespace, key, _dumps(namespace, key, value), now) for namespace, key, value in items]

        def work(db: sqlite3.Connection) -> None:
            db.executemany(
                "INSERT INTO memory (namespace, key, value, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                rows,
            )

        await asyncio.to_thread(self._write, "put_many", work)

    async def items(self, namespace: str, prefix: str = "") -> list[tuple[str, Any]]:
        """Return (key, value) pairs of a namespace whose key starts with ``prefix``, sorted by key
        (code point order).

        Raises:
            StorageError: a database error, or a stored value that is not JSON.
        """

        def work(db: sqlite3.Connection) -> list[tuple[str, Any]]:
            rows = db.execute(
                "SELECT key, value FROM memory WHERE namespace = ? AND substr(key, 1, ?) = ? ORDER BY key",
                (namespace, len(prefix), prefix),
            ).fetchall()
            return [(str(key), _loads(self.path, namespace, str(key), value)) for key, value in rows]

        return await asyncio.to_thread(self._run, "items", work)

    async def namespaces(self) -> list[str]:
        """Return the namespaces holding at least one key, sorted (code point order).

        Raises:
            StorageError: a database error.
        """

        def work(db: sqlite3.Connection) -> list[str]:
            return [str(r[0]) for r in db.execute("SELECT DISTINCT namespace FROM memory ORDER BY namespace")]

        return await asyncio.to_thread(self._run, "namespaces", work)

    async def delete(self, namespace: str, key: str) -> bool:
        """Delete (namespace, key).

        Returns:
            True when a value was deleted, False when it was absent.

        Raises:
            StorageError: a database error.
        """

        def work(db: sqlite3.Connection) -> bool:
            cursor = db.execute("DELETE FROM memory WHERE namespace = ? AND key = ?", (namespace, key))
            return cursor.rowcount == 1

        return await asyncio.to_thread(self._write, "delete", work)

    async def incr(self, namespace: str, key: str, amount: int = 1) -> int:
        """Atomically add ``amount`` to the integer under (namespace, key); absent counts as 0.

        Returns:
            The new value.

        Raises:
            InvalidRequest: the stored value is not an integer.
            StorageError: a database error.
        """

        def work(db: sqlite3.Connection) -> int:
            row = db.execute("SELECT value FROM memory WHERE namespace = ? AND key = ?", (namespace, key)).fetchone()
            current = 0 if row is None else _loads(self.path, namespace, key, row[0])
            if not isinstance(current, int) or isinstance(current, bool):
                raise InvalidRequest(f"memory ({namespace!r}, {key!r}) holds {current!r}, not an integer")
            new = current + amount
            db.execute(
                "INSERT INTO memory (namespace, key, value, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                (namespace, key, json.dumps(new), _now()),
            )
            return new

        return await asyncio.to_thread(self._write, "incr", work)

    async def schema_version(self) -> int:
        """Return the highest applied migration version (for diagnostics and tests)."""

        def work(db: sqlite3.Connection) -> int:
            return int(db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] or 0)

        return await asyncio.to_thread(self._run, "schema_version", work)

    async def close(self) -> None:
        """Close the connection (idempotent); a later call reopens it."""

        def work() -> None:
            with self._lock:
                db, self._db = self._db, None
                if db is not None:
                    with _storage_errors("close", self.path):
                        db.close()

        await asyncio.to_thread(work)


def open_task_store(directory: str | os.PathLike[str]) -> SqliteMemoryStore:
    """Return the SQLite MemoryStore of a task directory (``<directory>/memory.sqlite3``).

    Args:
        directory: the task directory (created on first use).

    Returns:
        An unopened :class:`SqliteMemoryStore`; it is set up lazily on first use.
    """
    return SqliteMemoryStore(Path(directory) / MEMORY_FILE_NAME)


__all__ = ["MEMORY_FILE_NAME", "MIGRATIONS", "SqliteMemoryStore", "open_task_store"]
