"""Web QA recovery, replay, publication and typed failures (SPEC §5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ditto_nb.errors import (
    BudgetExceeded,
    PermissionRevoked,
    PublishFailed,
    RequestChanged,
    SearchFailed,
    SnapshotCorrupted,
    UngroundedAnswer,
)
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa import STAGES, WebQaReport
from tests.patterns.web_qa.helpers import Script, default_answer, make_request, run_once, strip_times


async def test_stop_after_each_stage_matches_uninterrupted_run(tmp_path: Path, web, search, config, scripted_model) -> None:
    script = Script()
    scripted_model.responder = script
    request = make_request(web)
    full = await run_once(tmp_path / "full", request, config, search, scripted_model)
    calls_full = len(scripted_model.requests)
    for stage in STAGES:
        result = await run_once(tmp_path / "staged", request, config, search, scripted_model, stop_after=stage)
        assert result == {"status": "checkpoint", "stage": stage}
    staged = await run_once(tmp_path / "staged", request, config, search, scripted_model)
    assert isinstance(staged, WebQaReport)
    assert len(scripted_model.requests) == 2 * calls_full  # no completed model call repeated
    assert strip_times(staged.model_dump(mode="json")) == strip_times(full.model_dump(mode="json"))


async def test_replay_makes_no_model_or_network_call(tmp_path: Path, web, search, config, scripted_model) -> None:
    scripted_model.responder = Script()
    request = make_request(web)
    first = await run_once(tmp_path / "t", request, config, search, scripted_model)
    calls, hits = len(scripted_model.requests), web.request_count
    again = await run_once(tmp_path / "t", request, config, search, scripted_model)
    assert (len(scripted_model.requests), web.request_count) == (calls, hits)
    assert again == first


async def test_changed_request_is_refused(tmp_path: Path, web, search, config, scripted_model) -> None:
    scripted_model.responder = Script()
    await run_once(tmp_path / "t", make_request(web), config, search, scripted_model, stop_after="plan")
    with pytest.raises(RequestChanged):
        await run_once(tmp_path / "t", make_request(web, question="Who painted it?"), config, search, scripted_model)


async def test_revoked_origin_is_refused_even_on_replay(tmp_path: Path, web, search, config, scripted_model) -> None:
    scripted_model.responder = Script()
    request = make_request(web)
    await run_once(tmp_path / "t", request, config, search, scripted_model)
    kept = tuple(o for o in web.allowed_origins if "beta" not in o)
    with pytest.raises(PermissionRevoked):
        await run_once(tmp_path / "t", request, config, search.with_permitted(kept), scripted_model)


async def test_corrupted_snapshot_is_refused(tmp_path: Path, web, search, config, scripted_model) -> None:
    scripted_model.responder = Script()
    request = make_request(web)
    await run_once(tmp_path / "t", request, config, search, scripted_model, stop_after="read")
    body = next((tmp_path / "t" / "snapshots").glob("*.body"))
    body.write_bytes(body.read_bytes().replace(b"1,280", b"9,999"))
    with pytest.raises(SnapshotCorrupted):
        await run_once(tmp_path / "t", request, config, search, scripted_model)
    assert not (tmp_path / "t" / "output" / "report.json").exists()


async def test_publish_into_unwritable_folder_then_retry(tmp_path: Path, web, search, config, scripted_model) -> None:
    scripted_model.responder = Script()
    request = make_request(web)
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "output").write_text("a file where the folder should be")
    with pytest.raises(PublishFailed) as failed:
        await run_once(tmp_path / "t", request, config, search, scripted_model)
    assert failed.value.retryable
    calls = len(scripted_model.requests)
    (tmp_path / "t" / "output").unlink()
    report = await run_once(tmp_path / "t", request, config, search, scripted_model)
    assert len(scripted_model.requests) == calls
    assert json.loads((tmp_path / "t" / "output" / "report.json").read_text())["task_id"] == report.task_id


async def test_total_search_failure_raises(tmp_path: Path, web, config, scripted_model) -> None:
    scripted_model.responder = Script()
    dead = SearchSetup.from_sandbox(web, mediawiki_api_url="https://wiki.test:1/w/api.php",
                                    policy_overrides={"retries": 0, "connect_timeout": 1.0})
    with pytest.raises(SearchFailed):
        await run_once(tmp_path / "t", make_request(web), config, dead, scripted_model)


async def test_empty_search_is_insufficient_evidence(tmp_path: Path, web, search, config, scripted_model) -> None:
    script = Script(queries=["zzzqqq nonexistent xyzzy"])
    scripted_model.responder = script
    request = make_request(web, question="When did the Zorblax Quuxbridge open?")
    report = await run_once(tmp_path / "t", request, config, search, scripted_model)
    assert report.answer.status == "insufficient-evidence"
    assert script.seen == ["plan"]


async def test_repair_then_publish(tmp_path: Path, web, search, config, scripted_model) -> None:
    bad = lambda chunks: {"status": "answered", "answer": "x",  # noqa: E731
                          "claims": [{"claim": "Span", "chunk_id": chunks[0][0], "quote": "the span is 2,000 meters"}]}
    script = Script(answer=bad, repair=lambda chunks: default_answer(chunks) | {"answer": "1,280 meters"})
    scripted_model.responder = script
    report = await run_once(tmp_path / "t", make_request(web), config, search, scripted_model)
    assert script.seen == ["plan", "select", "answer", "ground", "repair", "regrade"]
    assert report.repaired and report.answer.status == "answered" and report.answer.text == "1,280 meters"


async def test_failed_repair_is_ungrounded_and_unpublished(tmp_path: Path, web, search, config, scripted_model) -> None:
    bad = lambda chunks: {"status": "answered", "answer": "x",  # noqa: E731
                          "claims": [{"claim": "Span", "chunk_id": chunks[0][0], "quote": "the span is 2,000 meters"}]}
    scripted_model.responder = Script(answer=bad, repair=bad)
    with pytest.raises(UngroundedAnswer):
        await run_once(tmp_path / "t", make_request(web), config, search, scripted_model)
    assert not (tmp_path / "t" / "output").exists()


async def test_model_call_cap(tmp_path: Path, web, search, config, scripted_model) -> None:
    bad = lambda chunks: {"status": "answered", "answer": "x",  # noqa: E731
                          "claims": [{"claim": "Span", "chunk_id": chunks[0][0], "quote": "not on the page"}]}
    scripted_model.responder = Script(answer=bad)
    with pytest.raises(BudgetExceeded):
        await run_once(tmp_path / "t", make_request(web), config, search, scripted_model, max_model_calls=5)
    assert len(scripted_model.requests) == 4
