"""Web QA: the Redis Context lost or unreachable mid-task (SPEC §2 Context Worker, §5).

- Context keys deleted, or expired by a tiny TTL, between stages are rebuilt from Memory and the
  run completes without repeating any model call.
- Redis stopped mid-run (a throwaway server, never the shared one) → ``ContextUnavailable`` with
  Memory intact; once a server is back on the same port the resume completes.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from ditto_nb.errors import ContextUnavailable
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest
from ditto_nb.testing.scripted_config import scripted_runtime_config
from ditto_nb.testing.scripted_model import ScriptedModel
from ditto_nb.workers import open_task_store
from tests.fixtures.redis_fixtures import RedisServerProcess, delete_keys
from tests.patterns.web_qa.helpers import Script, make_request, purpose_of, run_once


@pytest.fixture
def task_id(redis_url: str) -> Iterator[str]:
    """A unique task id; its Context hash is deleted from the test Redis after the test."""
    value = f"ctx-{uuid.uuid4().hex[:12]}"
    yield value
    delete_keys(redis_url, f"*:{value}")


def context_hash(url: str, request: WebQaRequest) -> dict[str, Any]:
    """The task's Context hash in Redis, JSON-decoded ({} when missing)."""
    client = redis.Redis.from_url(url, socket_timeout=2, decode_responses=True)
    try:
        raw = client.hgetall(request.scope)
        return {str(field): json.loads(value) for field, value in raw.items()}
    finally:
        client.close()


async def memory_rows(directory: Path, request: WebQaRequest) -> dict[str, Any]:
    store = open_task_store(directory)
    await store.setup()
    try:
        return dict(await store.items(request.namespace))
    finally:
        await store.close()


async def test_deleted_context_keys_are_rebuilt_from_memory(
    tmp_path: Path, web: Any, search: SearchSetup, config: Any, scripted_model: ScriptedModel, redis_url: str,
    task_id: str,
) -> None:
    script = Script()
    scripted_model.responder = script
    request = make_request(web, task_id=task_id)
    directory = tmp_path / "t"
    await run_once(directory, request, config, search, scripted_model, stop_after="plan")
    assert context_hash(redis_url, request)["stage"] == "plan"
    client = redis.Redis.from_url(redis_url, socket_timeout=2)
    try:
        assert client.delete(request.scope) == 1
    finally:
        client.close()

    await run_once(directory, request, config, search, scripted_model, stop_after="searched")
    rebuilt = context_hash(redis_url, request)
    # "request" and "queries" were written to Redis only by the first run: they came back from Memory.
    assert rebuilt["request"] == request.model_dump(mode="json")
    assert rebuilt["queries"] == ["Golden Gate Bridge"]
    assert rebuilt["stage"] == "searched" and rebuilt["hits"] >= 2

    report = await run_once(directory, request, config, search, scripted_model)
    assert isinstance(report, WebQaReport) and report.answer.status == "answered"
    assert script.seen == ["plan", "select", "answer", "ground"]  # nothing repeated
    assert context_hash(redis_url, request)["stage"] == "published"


async def test_expired_context_is_rebuilt_and_run_completes(
    tmp_path: Path, web: Any, search: SearchSetup, scripted_model: ScriptedModel, redis_url: str, task_id: str,
) -> None:
    script = Script()
    scripted_model.responder = script
    request = make_request(web, task_id=task_id, max_queries=1)  # one query: no second hop after resume
    directory = tmp_path / "t"
    short = scripted_runtime_config(scripted_model, redis_url=redis_url, ttl_seconds=1)
    await run_once(directory, request, short, search, scripted_model, stop_after="read")
    pages = context_hash(redis_url, request).get("pages")
    deadline = time.monotonic() + 5
    while context_hash(redis_url, request) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert context_hash(redis_url, request) == {}, "the 1 s TTL did not expire the Context"
    assert pages and len(pages) == 2

    hits = web.request_count
    config = scripted_runtime_config(scripted_model, redis_url=redis_url)
    report = await run_once(directory, request, config, search, scripted_model)
    assert isinstance(report, WebQaReport) and report.answer.status == "answered"
    assert script.seen == ["plan", "select", "answer", "ground"]
    assert web.request_count == hits  # searches and pages reused
    after = context_hash(redis_url, request)
    assert after["pages"] == pages and after["request"] == request.model_dump(mode="json")  # rebuilt
    assert after["stage"] == "published"


async def test_redis_stopped_mid_run_then_back(
    tmp_path: Path, web: Any, search: SearchSetup, scripted_model: ScriptedModel,
    throwaway_redis_server: RedisServerProcess,
) -> None:
    server = throwaway_redis_server
    script = Script()

    def stop_redis_during_select(body: dict[str, Any]) -> Any:
        if purpose_of(body) == "select":
            server.stop()  # Redis dies while the selection call is in flight
        return script(body)

    scripted_model.responder = stop_redis_during_select
    request = make_request(web, task_id=f"down-{uuid.uuid4().hex[:12]}", max_queries=1)  # no second hop
    directory = tmp_path / "t"
    config = scripted_runtime_config(scripted_model, redis_url=server.url)
    with pytest.raises(ContextUnavailable):
        await run_once(directory, request, config, search, scripted_model)
    rows = await memory_rows(directory, request)
    assert {k for k in rows if k.startswith("stage/")} == {"stage/plan", "stage/searched", "stage/read",
                                                           "stage/selected"}
    assert rows["ledger/model:select"]["status"] == "done"
    assert rows["context/stage"] == "selected"  # the Context update reached Memory before Redis failed
    assert not (directory / "output").exists()

    # Still down: the resume fails the same way, and Memory is unchanged but for the failure record.
    failures = [v for k, v in rows.items() if k.startswith("failure/")]
    assert [f["error_type"] for f in failures] == ["ContextUnavailable"]
    scripted_model.responder = script
    with pytest.raises(ContextUnavailable):
        await run_once(directory, request, config, search, scripted_model)
    again = await memory_rows(directory, request)
    assert {k: v for k, v in again.items() if not k.startswith("failure/")} == \
        {k: v for k, v in rows.items() if not k.startswith("failure/")}
    assert sum(k.startswith("failure/") for k in again) == 2

    server.start()  # a fresh, empty server on the same port
    hits = web.request_count
    report = await run_once(directory, request, config, search, scripted_model)
    assert isinstance(report, WebQaReport) and report.answer.status == "answered"
    assert script.seen == ["plan", "select", "answer", "ground"]  # select not repeated
    assert web.request_count == hits
    context = context_hash(server.url, request)
    assert context["request"] == request.model_dump(mode="json") and context["stage"] == "published"
    assert json.loads((directory / "output" / "report.json").read_text())["task_id"] == request.id
