"""The cross-machine task lock of PostgreSQL Memory: :class:`PostgresTaskLock`, and :func:`task_id_of`.

:class:`PostgresTaskLock` holds ``pg_try_advisory_lock(hashtextextended('ditto-task:' || id, 0))``
on a dedicated connection (https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS).
The server releases it when that connection ends, including when the holder is SIGKILLed (its
socket closes) or its machine vanishes (after TCP keepalive detects it).
"""

from __future__ import annotations

import contextlib
import os
import socket
import uuid
from pathlib import Path
from typing import Any

import psycopg

from ditto_nb.errors import StorageError, TaskLocked
from ditto_nb.workers.memory import TASK_ID_FILE_NAME
from ditto_nb.workers.memory_postgres import describe_dsn, storage_errors
from ditto_nb.workers.task_lock import ExclusiveLock

"""File in a task directory holding its Memory task id (one line)."""


def task_id_of(directory: str | os.PathLike[str]) -> str:
    """Return the task id of a task directory, creating it on first use.

    The id is a random UUID written once to ``<directory>/task-id`` (``O_EXCL``, so two
    processes creating it at once agree on one id).

    Raises:
        StorageError: the directory or file cannot be created or read.
    """
    path = Path(directory) / TASK_ID_FILE_NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(f"{uuid.uuid4()}\n")
        text = path.read_text(encoding="ascii").strip()
    except OSError as exc:
        raise StorageError(f"cannot read or create the task id {path}: {exc}") from exc
    if not text:
        raise StorageError(f"task id file {path} is empty; delete it only if the task has no Memory yet")
    return text


class PostgresTaskLock(ExclusiveLock["psycopg.Connection[Any]"]):
    """Exclusive use of a task by one process on any machine: a session advisory lock.

    Same interface as :class:`~ditto_nb.workers.memory.TaskLock` (``acquire``, ``release``,
    ``held``, context manager). The lock lives on its own connection, opened by ``acquire`` and
    closed by ``release``; the server drops it when that connection ends.

    Args:
        dsn: libpq connection string or URL.
        task_id: the task's id.
        connect_timeout_seconds: connection timeout (seconds).
    """

    def __init__(self, dsn: str, task_id: str, *, connect_timeout_seconds: float = 10.0) -> None:
        self.dsn = dsn
        self.task_id = task_id
        self.connect_timeout_seconds = connect_timeout_seconds
        self._handle = None

    def acquire(self) -> None:
        """Take the advisory lock without waiting (on a connection of its own).

        Raises:
            TaskLocked: another session holds it (the message names the holder when visible).
            StorageError: the database is unreachable.
        """
        if self._handle is not None:
            return
        where = f"{describe_dsn(self.dsn)} task {self.task_id}"
        holder_name = f"ditto-nb lock {socket.gethostname()} pid {os.getpid()}"[:63]
        with storage_errors("task lock", where):
            db = psycopg.connect(
                self.dsn,
                autocommit=True,
                connect_timeout=max(1, int(self.connect_timeout_seconds)),
                application_name=holder_name,
                keepalives=1,
                keepalives_idle=10,
                keepalives_interval=5,
                keepalives_count=3,
            )
            try:
                row = db.execute(
                    "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (f"ditto-task:{self.task_id}",)
                ).fetchone()
                if not (row and row[0]):
                    holder = self._holder(db)
                    raise TaskLocked(f"task {self.task_id} is locked by {holder}")
            except BaseException:
                db.close()
                raise
        self._handle = db

    def _holder(self, db: psycopg.Connection[Any]) -> str:
        """Who holds the lock, from pg_locks / pg_stat_activity (best effort)."""
        row = db.execute(
            "SELECT a.application_name, a.client_addr::text, a.pid FROM pg_locks l "
            "JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 "
            "AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(%s, 0) LIMIT 1",
            (f"ditto-task:{self.task_id}",),
        ).fetchone()
        if row is None:
            return "another session (holder not visible)"
        name, addr, pid = row
        return f"{name or 'another session'} (server pid {pid}, from {addr or 'local socket'})"

    def release(self) -> None:
        """Release the lock (idempotent) by closing its connection."""
        db, self._handle = self._handle, None
        if db is not None:
            with contextlib.suppress(psycopg.Error):
                db.close()


__all__ = ["TASK_ID_FILE_NAME", "PostgresTaskLock", "task_id_of"]
