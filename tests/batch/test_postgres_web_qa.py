"""A Web QA task with Memory in PostgreSQL: a second process gets TaskLocked; the holder is
SIGKILLed inside the ``selected`` stage and another process resumes it without repeating a
completed model call or resetting the budget."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import TaskLocked
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa import WebQaReport, open_web_qa
from ditto_nb.runtime.config import MemoryConfig
from ditto_nb.sandbox import SandboxWeb
from ditto_nb.testing import ScriptedModel, ScriptedReply, scripted_runtime_config
from ditto_nb.workers.lock_postgres import task_id_of
from ditto_nb.workers.memory_postgres import PostgresMemoryStore
from tests.patterns.web_qa.helpers import Script, make_request, purpose_of, run_once

REPO_ROOT = Path(__file__).resolve().parents[2]


def memory_rows(dsn: str, directory: Path, namespace: str) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        store = PostgresMemoryStore(dsn, task_id_of(directory))
        try:
            return dict(await store.items(namespace))
        finally:
            await store.close()

    return asyncio.run(read())


def test_postgres_task_killed_mid_stage_resumes_in_another_process(
    tmp_path: Path, web: SandboxWeb, search: SearchSetup, scripted_model: ScriptedModel, redis_url: str,
    memory_config_postgres: MemoryConfig,
) -> None:
    dsn = memory_config_postgres.dsn
    assert dsn is not None
    request = make_request(web, task_id=f"pg-{uuid.uuid4().hex[:8]}")
    directory = tmp_path / "task"
    first, held = Script(), threading.Event()

    def holding(body: dict[str, Any]) -> Any:
        if purpose_of(body) == "select":
            held.set()
            return ScriptedReply(content="{}", delay_seconds=60)
        return first(body)

    scripted_model.responder = holding
    args = {"base_url": scripted_model.base_url, "redis_url": redis_url, "dsn": dsn, "api_url": web.api_url,
            "ca": str(web.ca_path), "overrides": dict(web.resolve_overrides), "dir": str(directory),
            "request": request.model_dump(mode="json")}
    child = subprocess.Popen([sys.executable, "-m", "tests.batch.pg_child", json.dumps(args)], cwd=REPO_ROOT,
                             env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    config = scripted_runtime_config(scripted_model, redis_url=redis_url).model_copy(
        update={"memory": memory_config_postgres})
    try:
        deadline = time.monotonic() + 60
        while not held.is_set():
            assert child.poll() is None, f"the child exited ({child.returncode}) before the select call"
            assert time.monotonic() < deadline, "timed out waiting for the select call"
            time.sleep(0.05)
        # A second process on the same task: TaskLocked, naming the holder.
        with pytest.raises(TaskLocked, match=f"pid {child.pid}"):
            asyncio.run(open_web_qa(directory, request, config, search))
        before = memory_rows(dsn, directory, request.namespace)
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
    assert first.seen == ["plan"] and before["budget/model"] == 2  # plan done, select charged and in flight
    assert before["ledger/model:plan"]["status"] == "done" and "stage/selected" not in before
    assert not (directory / "memory.sqlite3").exists()  # Memory is in PostgreSQL, not the directory

    resumed = Script()
    scripted_model.responder = resumed
    report = None
    deadline = time.monotonic() + 15
    while report is None:  # the server drops the dead holder's advisory lock when it sees the socket close
        try:
            report = asyncio.run(run_once(directory, request, config, search, scripted_model))
        except TaskLocked:
            assert time.monotonic() < deadline, "the advisory lock outlived its SIGKILLed holder"
            time.sleep(0.2)
    assert isinstance(report, WebQaReport) and report.answer.status == "answered"
    assert resumed.seen == ["select", "answer", "ground"]  # the completed plan call was not repeated
    after = memory_rows(dsn, directory, request.namespace)
    assert after["ledger/model:plan"] == before["ledger/model:plan"]
    assert after["budget/model"] == 5  # 2 charged before the kill + 3 after: not reset
