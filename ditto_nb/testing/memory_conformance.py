"""The conformance suite every :class:`~ditto_nb.workers.memory.MemoryStore` backend must pass.

Modelled on LangGraph's checkpoint conformance tests: the same checks run unchanged against any
backend. Two ways to use it:

- pytest: subclass :class:`MemoryStoreConformance` in a test module (name the subclass
  ``Test...``) and provide a ``memory_store_factory`` fixture returning a zero-argument callable
  that makes a *new store instance over the same storage* each call (e.g. the same SQLite path)::

      class TestSqliteConformance(MemoryStoreConformance):
          @pytest.fixture
          def memory_store_factory(self, tmp_path):
              return lambda: SqliteMemoryStore(tmp_path / "memory.sqlite3")

- anything else: ``await run_memory_conformance(new_storage)`` runs every check in order, each
  on fresh storage, and raises AssertionError on the first failure.

Each check receives the factory, opens what it needs, and closes every store it opened.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from ditto_nb.errors import DittoError
from ditto_nb.workers.memory import MemoryStore

StoreFactory = Callable[[], MemoryStore]
"""Makes a new store instance over the same backing storage on every call."""

Check = Callable[[StoreFactory], Awaitable[None]]

VALUES: tuple[Any, ...] = (
    {"nested": {"list": [1, 2.5, None, True], "text": 'quote "x" and \u00e9\u4e2d'}},
    ["a", 1, {"b": False}],
    "plain ```backticks``` and \\ backslash",
    0,
    -17,
    3.25,
    True,
    {},
)
"""JSON values every backend must round-trip exactly."""


async def _with_store(factory: StoreFactory, body: Callable[[MemoryStore], Awaitable[None]]) -> None:
    store = factory()
    try:
        await store.setup()
        await body(store)
    finally:
        await store.close()


async def check_setup_is_idempotent(factory: StoreFactory) -> None:
    """setup() may be called any number of times, on one instance and on several."""

    async def body(store: MemoryStore) -> None:
        await store.setup()
        await store.setup()
        await store.put("ns", "k", 1)
        await store.setup()
        assert await store.get("ns", "k") == 1

    await _with_store(factory, body)
    await _with_store(factory, lambda store: store.setup())


async def check_get_missing_is_none(factory: StoreFactory) -> None:
    """An absent key reads as None; so does a key of another namespace."""

    async def body(store: MemoryStore) -> None:
        assert await store.get("ns", "absent") is None
        await store.put("other", "k", "v")
        assert await store.get("ns", "k") is None

    await _with_store(factory, body)


async def check_round_trip(factory: StoreFactory) -> None:
    """Every JSON value type round-trips exactly; put() replaces."""

    async def body(store: MemoryStore) -> None:
        for index, value in enumerate(VALUES):
            await store.put("ns", f"v{index}", value)
        for index, value in enumerate(VALUES):
            got = await store.get("ns", f"v{index}")
            assert got == value and type(got) is type(value), (index, got, value)
        await store.put("ns", "v0", "replaced")
        assert await store.get("ns", "v0") == "replaced"

    await _with_store(factory, body)


async def check_put_new(factory: StoreFactory) -> None:
    """put_new inserts only when absent and never overwrites."""

    async def body(store: MemoryStore) -> None:
        assert await store.put_new("ns", "k", {"first": 1}) is True
        assert await store.put_new("ns", "k", {"second": 2}) is False
        assert await store.get("ns", "k") == {"first": 1}
        assert await store.put_new("ns2", "k", "x") is True

    await _with_store(factory, body)


async def check_put_many_is_atomic(factory: StoreFactory) -> None:
    """put_many writes every item, or none when one value cannot be stored."""

    async def body(store: MemoryStore) -> None:
        await store.put_many([("a", "k1", 1), ("a", "k2", [2]), ("b", "k1", {"three": 3})])
        assert await store.get("a", "k1") == 1
        assert await store.get("a", "k2") == [2]
        assert await store.get("b", "k1") == {"three": 3}
        await store.put_many([])
        try:
            await store.put_many([("a", "k1", 100), ("a", "bad", object()), ("a", "k3", 3)])
        except DittoError:
            pass
        else:
            raise AssertionError("put_many accepted a value that is not JSON-serializable")
        assert await store.get("a", "k1") == 1, "put_many was not all-or-nothing"
        assert await store.get("a", "k3") is None, "put_many was not all-or-nothing"

    await _with_store(factory, body)


async def check_unserializable_rejected(factory: StoreFactory) -> None:
    """A value that is not JSON-serializable raises a DittoError and stores nothing."""

    async def body(store: MemoryStore) -> None:
        for bad in (object(), {"set": {1, 2}}, float("nan")):
            try:
                await store.put("ns", "bad", bad)
            except DittoError:
                pass
            else:
                raise AssertionError(f"put accepted {bad!r}")
        assert await store.get("ns", "bad") is None

    await _with_store(factory, body)


async def check_items_prefix_and_order(factory: StoreFactory) -> None:
    """items() filters by literal prefix (no LIKE wildcards), stays in its namespace, sorts by key."""

    async def body(store: MemoryStore) -> None:
        keys = ["p/b", "p/a", "p/\u00e9", "p/A", "q/a", "p_x", "p%y", "p"]
        for key in keys:
            await store.put("ns", key, key.upper())
        await store.put("other", "p/zz", 0)
        assert await store.items("ns", "p/") == [(k, k.upper()) for k in sorted(k for k in keys if k.startswith("p/"))]
        assert await store.items("ns", "p_") == [("p_x", "P_X")]
        assert await store.items("ns", "p%") == [("p%y", "P%Y")]
        assert await store.items("ns") == [(k, k.upper()) for k in sorted(keys)]
        assert await store.items("ns", "zzz") == []
        assert await store.items("empty-namespace") == []

    await _with_store(factory, body)


async def check_delete(factory: StoreFactory) -> None:
    """delete() reports whether something was deleted."""

    async def body(store: MemoryStore) -> None:
        await store.put("ns", "k", 1)
        assert await store.delete("ns", "k") is True
        assert await store.get("ns", "k") is None
        assert await store.delete("ns", "k") is False

    await _with_store(factory, body)


async def check_incr(factory: StoreFactory) -> None:
    """incr() starts from 0, adds any int amount, and refuses a non-integer value."""

    async def body(store: MemoryStore) -> None:
        assert await store.incr("ns", "c") == 1
        assert await store.incr("ns", "c", 5) == 6
        assert await store.incr("ns", "c", -2) == 4
        assert await store.get("ns", "c") == 4
        await store.put("ns", "text", "abc")
        try:
            await store.incr("ns", "text")
        except DittoError:
            pass
        else:
            raise AssertionError("incr accepted a non-integer value")
        assert await store.get("ns", "text") == "abc"

    await _with_store(factory, body)


async def check_concurrent_incr_is_atomic(factory: StoreFactory) -> None:
    """Concurrent increments through separate store instances lose no update."""
    stores = [factory() for _ in range(8)]
    try:
        await asyncio.gather(*(store.setup() for store in stores))
        await asyncio.gather(*(stores[i % len(stores)].incr("ns", "counter") for i in range(40)))
        assert await stores[0].get("ns", "counter") == 40
    finally:
        await asyncio.gather(*(store.close() for store in stores))


async def check_durable_across_instances(factory: StoreFactory) -> None:
    """What one instance wrote is read by a new instance after close()."""

    async def write(store: MemoryStore) -> None:
        await store.put("ns", "durable", {"ok": True})
        await store.incr("ns", "n", 3)

    async def read(store: MemoryStore) -> None:
        assert await store.get("ns", "durable") == {"ok": True}
        assert await store.get("ns", "n") == 3

    await _with_store(factory, write)
    await _with_store(factory, read)


async def check_namespaces(factory: StoreFactory) -> None:
    """namespaces() lists the namespaces holding a key, sorted; a namespace emptied by delete goes."""

    async def body(store: MemoryStore) -> None:
        assert await store.namespaces() == []
        await store.put("research:b", "k", 1)
        await store.put_many([("web_qa:a", "k", 1), ("web_qa:a", "j", 2), ("Z", "k", 3)])
        assert await store.namespaces() == ["Z", "research:b", "web_qa:a"]
        await store.delete("Z", "k")
        assert await store.namespaces() == ["research:b", "web_qa:a"]

    await _with_store(factory, body)


async def check_close_is_idempotent(factory: StoreFactory) -> None:
    """close() may be called twice."""
    store = factory()
    await store.setup()
    await store.close()
    await store.close()


CHECKS: tuple[Check, ...] = (
    check_setup_is_idempotent,
    check_get_missing_is_none,
    check_round_trip,
    check_put_new,
    check_put_many_is_atomic,
    check_unserializable_rejected,
    check_items_prefix_and_order,
    check_delete,
    check_incr,
    check_concurrent_incr_is_atomic,
    check_durable_across_instances,
    check_namespaces,
    check_close_is_idempotent,
)
"""Every conformance check, in the order :func:`run_memory_conformance` runs them."""


async def run_memory_conformance(new_storage: Callable[[], StoreFactory]) -> None:
    """Run every check against a backend, each on fresh storage.

    Args:
        new_storage: called once per check; returns a :data:`StoreFactory` over new, empty
            storage (e.g. a new SQLite path) that makes a new store instance on every call.

    Raises:
        AssertionError: the first failing check (its name is in the message).
    """
    for check in CHECKS:
        try:
            await check(new_storage())
        except AssertionError as exc:
            raise AssertionError(f"{check.__name__}: {exc}") from exc


class MemoryStoreConformance:
    """pytest mix-in: one test per check. Subclass as ``Test...`` and define the fixture
    ``memory_store_factory`` (a :data:`StoreFactory` over fresh storage for each test)."""

    async def test_setup_is_idempotent(self, memory_store_factory: StoreFactory) -> None:
        await check_setup_is_idempotent(memory_store_factory)

    async def test_get_missing_is_none(self, memory_store_factory: StoreFactory) -> None:
        await check_get_missing_is_none(memory_store_factory)

    async def test_round_trip(self, memory_store_factory: StoreFactory) -> None:
        await check_round_trip(memory_store_factory)

    async def test_put_new(self, memory_store_factory: StoreFactory) -> None:
        await check_put_new(memory_store_factory)

    async def test_put_many_is_atomic(self, memory_store_factory: StoreFactory) -> None:
        await check_put_many_is_atomic(memory_store_factory)

    async def test_unserializable_rejected(self, memory_store_factory: StoreFactory) -> None:
        await check_unserializable_rejected(memory_store_factory)

    async def test_items_prefix_and_order(self, memory_store_factory: StoreFactory) -> None:
        await check_items_prefix_and_order(memory_store_factory)

    async def test_delete(self, memory_store_factory: StoreFactory) -> None:
        await check_delete(memory_store_factory)

    async def test_incr(self, memory_store_factory: StoreFactory) -> None:
        await check_incr(memory_store_factory)

    async def test_concurrent_incr_is_atomic(self, memory_store_factory: StoreFactory) -> None:
        await check_concurrent_incr_is_atomic(memory_store_factory)

    async def test_durable_across_instances(self, memory_store_factory: StoreFactory) -> None:
        await check_durable_across_instances(memory_store_factory)

    async def test_namespaces(self, memory_store_factory: StoreFactory) -> None:
        await check_namespaces(memory_store_factory)

    async def test_close_is_idempotent(self, memory_store_factory: StoreFactory) -> None:
        await check_close_is_idempotent(memory_store_factory)


__all__ = ["CHECKS", "VALUES", "MemoryStoreConformance", "StoreFactory", "run_memory_conformance"]
