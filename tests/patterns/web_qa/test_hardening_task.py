"""Web QA tasks under hostile conditions (issue 10): a trickling page among good ones, the task
directory deleted during the grounding call, a Memory value that does not decode."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import PublishFailed, StorageError
from ditto_nb.patterns.common import STAGE_PREFIX, SearchSetup
from ditto_nb.patterns.web_qa import WebQaReport
from ditto_nb.testing.scripted_model import ScriptedModel
from ditto_nb.workers import open_task_store
from tests.patterns.web_qa.helpers import BRIDGE_A, BRIDGE_B, Script, make_request, run_once

ALPHA_URL = "https://alpha.test/wiki/Golden_Gate_Bridge"
SLOW_URL = "https://beta.test/bridges/golden-gate"
DEADLINE = 2.0


async def test_trickling_page_is_a_timeout_and_the_task_publishes(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: ScriptedModel
) -> None:
    web = sandbox_factory([
        {"url": ALPHA_URL, "title": "Golden Gate Bridge", "paragraphs": [BRIDGE_A]},
        {"url": SLOW_URL, "title": "Golden Gate Bridge facts", "paragraphs": [BRIDGE_B], "trickle_seconds": 1.0},
    ])
    scripted_model.responder = Script()
    search = SearchSetup.from_sandbox(web, policy_overrides={"retries": 0, "deadline_seconds": DEADLINE})
    request = make_request(web, allow_partial=True, reference_urls=[web.url_for(SLOW_URL)])
    started = time.monotonic()
    report = await run_once(tmp_path / "t", request, config, search, scripted_model)
    elapsed = time.monotonic() - started
    assert isinstance(report, WebQaReport) and report.answer.status == "answered"
    failures = [f for f in report.failures if f.stage == "read"]
    assert [(f.source, f.failure) for f in failures] == [(web.url_for(SLOW_URL), "timeout")]
    assert {c.origin for c in report.evidence} == {f"https://alpha.test:{web.port}"}
    assert (tmp_path / "t" / "output" / "report.json").is_file()
    assert elapsed < 30, f"the run took {elapsed:.0f} s"  # the slow page alone would take minutes


async def test_directory_deleted_during_grounding_publishes_nothing(
    tmp_path: Path, web: Any, search: SearchSetup, config: Any, scripted_model: ScriptedModel
) -> None:
    task_dir = tmp_path / "t"
    deleted: list[bool] = []

    def ground_after_deleting(n: int) -> dict[str, Any]:
        if not deleted:
            shutil.rmtree(task_dir)
            deleted.append(True)
        return {"verdicts": [{"n": i, "supported": True, "reason": "quote matches"} for i in range(1, n + 1)]}

    scripted_model.responder = Script(ground=ground_after_deleting)
    request = make_request(web)
    with pytest.raises(PublishFailed, match="vanished"):
        await run_once(task_dir, request, config, search, scripted_model)
    assert deleted and not task_dir.exists()  # nothing recreated: no report without its Memory

    scripted_model.responder = Script()  # a later run in that folder starts afresh and publishes
    report = await run_once(task_dir, request, config, search, scripted_model)
    assert isinstance(report, WebQaReport) and report.answer.status == "answered"
    assert (task_dir / "output" / "report.json").is_file() and (task_dir / "memory.sqlite3").is_file()


async def test_memory_value_that_is_not_json_is_a_storage_error(
    tmp_path: Path, web: Any, search: SearchSetup, config: Any, scripted_model: ScriptedModel
) -> None:
    scripted_model.responder = Script()
    request = make_request(web)
    await run_once(tmp_path / "t", request, config, search, scripted_model, stop_after="read")
    with sqlite3.connect(tmp_path / "t" / "memory.sqlite3") as db:
        changed = db.execute("UPDATE memory SET value = '{not json' WHERE substr(key, 1, ?) = ?",
                             (len(STAGE_PREFIX), STAGE_PREFIX)).rowcount
    assert changed > 0
    store = open_task_store(tmp_path / "t")
    try:
        with pytest.raises(StorageError, match="not JSON"):
            await store.items(request.namespace, STAGE_PREFIX)
    finally:
        await store.close()
    with pytest.raises(StorageError, match="not JSON"):
        await run_once(tmp_path / "t", request, config, search, scripted_model)
