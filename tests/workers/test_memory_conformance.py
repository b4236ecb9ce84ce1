"""The Memory conformance suite (``ditto_nb.testing.memory_conformance``, unchanged) against every
backend: SQLite (a file per task) and PostgreSQL (one shared database, a task id per test)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from ditto_nb.testing.memory_conformance import MemoryStoreConformance, run_memory_conformance
from ditto_nb.workers.memory import MemoryStore, SqliteMemoryStore
from ditto_nb.workers.memory_postgres import PostgresMemoryStore


@pytest.fixture(params=["sqlite", "postgres"])
def backend_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Callable[[], MemoryStore]]:
    """``new_storage() -> factory`` over fresh storage of the parametrized backend."""
    if request.param == "sqlite":

        def new_sqlite() -> Callable[[], MemoryStore]:
            path = tmp_path / uuid.uuid4().hex / "memory.sqlite3"
            return lambda: SqliteMemoryStore(path)

        return new_sqlite
    dsn = request.getfixturevalue("postgres_dsn")

    def new_postgres() -> Callable[[], MemoryStore]:
        task_id = f"conformance-{uuid.uuid4().hex}"
        return lambda: PostgresMemoryStore(dsn, task_id, pool_max_size=2)

    return new_postgres


class TestMemoryConformance(MemoryStoreConformance):
    @pytest.fixture
    def memory_store_factory(self, backend_factory: Callable[[], Callable[[], MemoryStore]]) -> Callable[[], MemoryStore]:
        return backend_factory()


async def test_run_memory_conformance_function(backend_factory: Callable[[], Callable[[], MemoryStore]]) -> None:
    await run_memory_conformance(backend_factory)
