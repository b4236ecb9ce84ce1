"""SqliteMemoryStore: the conformance suite, concurrency across threads and processes, TaskLock,
error translation and migrations — on real SQLite files under tmp_path."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from ditto_nb.errors import InvalidRequest, StorageError, TaskLocked
from ditto_nb.runtime.capabilities import MEMORY_GET, MEMORY_WRITE
from ditto_nb.testing.memory_conformance import run_memory_conformance
from ditto_nb.workers import create_memory_worker
from ditto_nb.workers.memory import MIGRATIONS, SqliteMemoryStore, TaskLock, open_task_store

WRITERS = 50


async def test_run_memory_conformance_function_sqlite(tmp_path: Path) -> None:
    counter = iter(range(1000))

    def new_storage() -> Callable[[], SqliteMemoryStore]:
        path = tmp_path / f"s{next(counter)}.sqlite3"
        return lambda: SqliteMemoryStore(path)

    await run_memory_conformance(new_storage)


async def test_setup_enables_wal_and_records_schema(tmp_path: Path) -> None:
    store = open_task_store(tmp_path / "t")
    await store.setup()
    assert await store.schema_version() == len(MIGRATIONS)
    await store.close()
    db = sqlite3.connect(tmp_path / "t" / "memory.sqlite3")
    try:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        rows = db.execute("SELECT version, name FROM schema_version ORDER BY version").fetchall()
        assert rows == [(i + 1, m.__name__.lstrip("_")) for i, m in enumerate(MIGRATIONS)]
    finally:
        db.close()


async def test_newer_schema_is_a_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    store = SqliteMemoryStore(path)
    await store.setup()
    await store.close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO schema_version VALUES (999, 'future', 'x')")
    db.commit()
    db.close()
    with pytest.raises(StorageError, match="newer"):
        await SqliteMemoryStore(path).get("ns", "k")


async def test_corrupt_file_is_a_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    path.write_bytes(b"this is not a sqlite database" * 100)
    with pytest.raises(StorageError) as info:
        await SqliteMemoryStore(path).put("ns", "k", 1)
    assert isinstance(info.value.__cause__, sqlite3.DatabaseError)


async def test_lock_held_by_other_connection_times_out_as_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    store = SqliteMemoryStore(path, busy_timeout_seconds=0.2)
    await store.setup()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StorageError, match="locked") as info:
            await store.put("ns", "k", 1)
        assert info.value.retryable is True
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    await store.put("ns", "k", 1)
    assert await store.get("ns", "k") == 1
    await store.close()


def _thread_writer(path: Path, index: int, errors: list[str]) -> None:
    async def run() -> None:
        store = SqliteMemoryStore(path)
        try:
            await store.put("rows", f"w{index:02d}", {"writer": index})
            await store.incr("counters", "writes")
            await store.put_many([("many", f"w{index:02d}-a", index), ("many", f"w{index:02d}-b", -index)])
        finally:
            await store.close()

    try:
        asyncio.run(run())
    except Exception as exc:  # reported to the main thread
        errors.append(f"{type(exc).__name__}: {exc}")


def _process_writer(path: str, index: int, barrier: "multiprocessing.synchronize.Barrier", errors: "multiprocessing.Queue[str]") -> None:
    barrier.wait(timeout=60)
    errs: list[str] = []
    _thread_writer(Path(path), index, errs)
    for err in errs:
        errors.put(err)


async def _assert_all_rows(path: Path) -> None:
    store = SqliteMemoryStore(path)
    rows = await store.items("rows")
    assert [key for key, _ in rows] == [f"w{i:02d}" for i in range(WRITERS)]
    assert all(value == {"writer": int(key[1:])} for key, value in rows)
    assert await store.get("counters", "writes") == WRITERS
    assert len(await store.items("many")) == 2 * WRITERS
    await store.close()


async def test_50_concurrent_thread_writers(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    errors: list[str] = []
    threads = [threading.Thread(target=_thread_writer, args=(path, i, errors)) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    await _assert_all_rows(path)


async def test_50_concurrent_process_writers(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"  # a brand-new file: setup itself also races
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(WRITERS)
    errors: multiprocessing.Queue[str] = ctx.Queue()
    procs = [ctx.Process(target=_process_writer, args=(str(path), i, barrier, errors)) for i in range(WRITERS)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=120)
    assert [proc.exitcode for proc in procs] == [0] * WRITERS
    reported = []
    while not errors.empty():
        reported.append(errors.get())
    assert reported == []
    await _assert_all_rows(path)


# --- TaskLock ------------------------------------------------------------------------------
def test_task_lock_second_opener_gets_task_locked(tmp_path: Path) -> None:
    with TaskLock(tmp_path / "task") as first:
        assert first.held
        second = TaskLock(tmp_path / "task")
        with pytest.raises(TaskLocked, match=f"pid {os.getpid()}"):
            second.acquire()
        assert not second.held
    with TaskLock(tmp_path / "task") as again:
        assert again.held


_HOLDER = """
import sys, time
from ditto_nb.workers.memory import TaskLock
lock = TaskLock(sys.argv[1])
lock.acquire()
print("locked", flush=True)
time.sleep(120)
"""


def test_task_lock_released_when_holder_is_sigkilled(tmp_path: Path) -> None:
    directory = tmp_path / "task"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(directory)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(TaskLocked, match=f"pid {holder.pid}") as info:
            TaskLock(directory).acquire()
        assert info.value.retryable is True
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    lock = TaskLock(directory)
    lock.acquire()
    assert lock.held
    assert (directory / ".lock").read_text().strip() == str(os.getpid())
    lock.release()


# --- Memory Worker ---------------------------------------------------------------------------
async def test_memory_worker_operations(tmp_path: Path) -> None:
    store = open_task_store(tmp_path)
    worker = create_memory_worker(store)
    assert worker.capabilities == frozenset({MEMORY_GET, MEMORY_WRITE})
    assert await worker.execute(MEMORY_WRITE, {"namespace": "t", "key": "a/1", "value": {"x": 1}}) is None
    assert await worker.execute(MEMORY_GET, {"namespace": "t", "key": "a/1"}) == {"x": 1}
    assert await worker.execute(MEMORY_GET, {"namespace": "t", "key": "none"}) is None
    assert await worker.execute(MEMORY_WRITE, {"namespace": "t", "key": "a/1", "value": 2, "if_absent": True}) is False
    assert await worker.execute(MEMORY_WRITE, {"namespace": "t", "key": "a/2", "value": 2, "if_absent": True}) is True
    assert await worker.execute(MEMORY_WRITE, {"namespace": "t", "key": "n", "increment": 3}) == 3
    assert await worker.execute(MEMORY_WRITE, {"namespace": "t", "key": "n", "increment": 2}) == 5
    writes = [{"namespace": "t", "key": "a/3", "value": [3]}, {"namespace": "u", "key": "a/9", "value": None}]
    assert await worker.execute(MEMORY_WRITE, {"writes": writes}) is None
    assert await worker.execute(MEMORY_GET, {"namespace": "t", "prefix": "a/"}) == [["a/1", {"x": 1}], ["a/2", 2], ["a/3", [3]]]
    assert await worker.execute(MEMORY_GET, {"namespace": "u", "prefix": ""}) == [["a/9", None]]
    await worker.close()
    assert await store.get("t", "n") == 5  # the worker does not close the caller's store
    await store.close()


@pytest.mark.parametrize(
    ("capability", "payload"),
    [
        (MEMORY_GET, {"namespace": "t"}),
        (MEMORY_GET, {"namespace": 1, "key": "k"}),
        (MEMORY_WRITE, {"namespace": "t", "key": "k"}),
        (MEMORY_WRITE, {"namespace": "t", "key": "k", "increment": "1"}),
        (MEMORY_WRITE, {"writes": [{"namespace": "t", "key": "k"}]}),
        (MEMORY_WRITE, ["not", "a", "mapping"]),
        ("CONTEXT.LOAD", {"namespace": "t", "key": "k"}),
    ],
)
async def test_memory_worker_rejects_malformed_input(tmp_path: Path, capability: str, payload: object) -> None:
    store = open_task_store(tmp_path)
    with pytest.raises(InvalidRequest):
        await create_memory_worker(store).execute(capability, payload)
    await store.close()
