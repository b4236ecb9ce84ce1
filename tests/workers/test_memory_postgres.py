"""PostgreSQL Memory beyond the conformance suite: migrations table, many tasks in one database,
a lost connection is a StorageError (and is not retried), the advisory task lock."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
import pytest

from ditto_nb.errors import StorageError, TaskLocked
from ditto_nb.runtime.config import MemoryConfig, parse_runtime_config
from ditto_nb.workers.lock_postgres import PostgresTaskLock, task_id_of
from ditto_nb.workers.memory_postgres import PG_MIGRATIONS, PostgresMemoryStore
from ditto_nb.workers.task_memory import open_task_memory

REPO_ROOT = Path(__file__).resolve().parents[2]


async def test_migrations_are_recorded(postgres_dsn: str) -> None:
    store = PostgresMemoryStore(postgres_dsn, "t-migrations")
    try:
        await store.setup()
        assert await store.schema_version() == len(PG_MIGRATIONS)
    finally:
        await store.close()
    with psycopg.connect(postgres_dsn) as db:
        rows = db.execute("SELECT version, name FROM ditto_schema_version ORDER BY version").fetchall()
    assert rows == [(n, m.__name__.lstrip("_")) for n, m in enumerate(PG_MIGRATIONS, start=1)]


async def test_newer_schema_is_a_storage_error(postgres_dsn: str) -> None:
    name = f"ditto_newer_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    dsn = postgres_dsn.replace(psycopg.conninfo.conninfo_to_dict(postgres_dsn)["dbname"], name)  # type: ignore[arg-type]
    try:
        with psycopg.connect(dsn, autocommit=True) as db:
            db.execute("CREATE TABLE ditto_schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                       "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            db.execute("INSERT INTO ditto_schema_version (version, name) VALUES (99, 'future')")
        store = PostgresMemoryStore(dsn, "t")
        with pytest.raises(StorageError, match="newer"):
            await store.setup()
        await store.close()
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


async def test_many_tasks_in_one_database_are_isolated(postgres_dsn: str) -> None:
    a, b = PostgresMemoryStore(postgres_dsn, "task-a"), PostgresMemoryStore(postgres_dsn, "task-b")
    try:
        await a.put("web_qa:1", "budget/model", 3)
        await b.put("web_qa:1", "budget/model", 5)
        assert await a.incr("web_qa:1", "budget/model") == 4
        assert await b.get("web_qa:1", "budget/model") == 5
        assert await a.items("web_qa:1") == [("budget/model", 4)]
        assert await b.delete("web_qa:1", "budget/model") is True
        assert await a.get("web_qa:1", "budget/model") == 4
    finally:
        await a.close()
        await b.close()


async def test_unreachable_database_is_a_storage_error() -> None:
    store = PostgresMemoryStore("postgresql://postgres@127.0.0.1:1/test", "t", connect_timeout_seconds=1)
    with pytest.raises(StorageError, match="no database connection|refused|lost"):
        await store.setup()
    await store.close()


async def test_connection_lost_mid_increment_is_a_storage_error_not_a_retry(postgres_dsn: str) -> None:
    """The budget counter's increment waits on a row lock; its backend is terminated meanwhile.
    The caller gets StorageError, and the counter was neither charged twice nor silently retried."""
    task_id = f"lost-{uuid.uuid4().hex[:8]}"
    store = PostgresMemoryStore(postgres_dsn, task_id)
    await store.put("ns", "budget/model", 5)
    with psycopg.connect(postgres_dsn) as blocker:
        blocker.execute("SELECT value FROM ditto_memory WHERE task_id = %s AND key = 'budget/model' FOR UPDATE",
                        (task_id,))
        pending = asyncio.create_task(store.incr("ns", "budget/model"))
        pid = None
        deadline = time.monotonic() + 10
        while pid is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            with psycopg.connect(postgres_dsn, autocommit=True) as probe:
                row = probe.execute("SELECT pid FROM pg_stat_activity WHERE application_name = %s "
                                    "AND wait_event_type = 'Lock'", (f"ditto-memory {task_id}",)).fetchone()
            pid = row[0] if row else None
        assert pid is not None, "the increment never waited on the row lock"
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(StorageError, match="connection was lost") as info:
            await pending
        assert info.value.retryable is False
        blocker.rollback()
    assert await store.get("ns", "budget/model") == 5  # a later call reconnects; nothing was charged
    await store.close()


def test_task_id_is_stable_per_directory(tmp_path: Path) -> None:
    first = task_id_of(tmp_path / "task")
    assert first == task_id_of(tmp_path / "task")
    assert first != task_id_of(tmp_path / "other")


def test_memory_section_selects_the_backend(tmp_path: Path, postgres_dsn: str) -> None:
    text = ("model: {provider: p, model: m}\nproviders: {p: {base_url: 'http://127.0.0.1:1/v1'}}\n"
            "memory: {backend: postgres, dsn: '${DITTO_MEMORY_DSN}'}\n")
    config = parse_runtime_config(text, {"DITTO_MEMORY_DSN": postgres_dsn})
    lock, store = open_task_memory(tmp_path / "t", config.memory)
    assert isinstance(lock, PostgresTaskLock) and isinstance(store, PostgresMemoryStore)
    assert store.task_id == task_id_of(tmp_path / "t")
    with pytest.raises(Exception, match="memory.dsn is required"):
        MemoryConfig(backend="postgres")


_HOLDER = """
import sys, time
from ditto_nb.workers.lock_postgres import PostgresTaskLock
lock = PostgresTaskLock(sys.argv[1], sys.argv[2])
lock.acquire()
print("locked", flush=True)
time.sleep(120)
"""


def test_advisory_lock_second_holder_gets_task_locked_and_sigkill_releases(postgres_dsn: str) -> None:
    task_id = f"lock-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    child = subprocess.Popen([sys.executable, "-c", _HOLDER, postgres_dsn, task_id], stdout=subprocess.PIPE, env=env)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == b"locked"
        with pytest.raises(TaskLocked, match=f"pid {child.pid}"):
            PostgresTaskLock(postgres_dsn, task_id).acquire()
        other = PostgresTaskLock(postgres_dsn, f"{task_id}-other")
        other.acquire()  # another task of the same database is not blocked
        other.release()
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        lock = PostgresTaskLock(postgres_dsn, task_id)
        deadline = time.monotonic() + 10
        while not lock.held:
            try:
                lock.acquire()
            except TaskLocked:
                assert time.monotonic() < deadline, "the lock outlived its SIGKILLed holder"
                time.sleep(0.1)
        lock.release()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
