"""run_batch on a real dask.distributed LocalCluster (worker processes), the real test Redis,
real SQLite / PostgreSQL Memory and the sandbox HTTPS web; the model is the scripted model."""

from __future__ import annotations

import os
import re
import signal
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.batch import ConcurrencyLimits, run_batch
from ditto_nb.batch.demo import batch_demo_responder, prompt_question
from ditto_nb.errors import ConfigError, InvalidRequest
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.runtime.config import MemoryConfig
from ditto_nb.sandbox import SandboxWeb
from ditto_nb.testing import ScriptedModel, scripted_runtime_config
from tests.batch.conftest import watchdog
from tests.patterns.web_qa.helpers import purpose_of


def requests_for(web: SandboxWeb, n: int) -> list[dict[str, Any]]:
    return [{"id": f"q{i}", "tenant": "acme", "principal": "ana",
             "question": f"Q{i}: How long is the Golden Gate Bridge main span?",
             "allowed_origins": list(web.allowed_origins), "max_queries": 1, "max_pages": 2} for i in range(n)]


TASK_TAG = re.compile(r"(?<![A-Za-z0-9])(Q\d+)(?=:| says)")


def tagged_reply(request: dict[str, Any]) -> dict[str, Any]:
    """batch_demo_responder; every prompt (the ground prompt included) names its task's question,
    so the task tag ("Q7:") is read from the prompt and the claims stay checkable against quotes."""
    return batch_demo_responder(request)


def calls_per_task(model: ScriptedModel) -> Counter[tuple[str, str]]:
    """(task tag "Qn", purpose) → calls received by the scripted model."""
    counts: Counter[tuple[str, str]] = Counter()
    for request in list(model.requests):
        match = TASK_TAG.search(str(request["messages"][-1]["content"]))
        counts[(match.group(1) if match else "?", purpose_of(request))] += 1
    return counts


def test_fifty_tasks_with_a_worker_killed_mid_task(
    own_client: Any, web: SandboxWeb, search: SearchSetup, batch_model: ScriptedModel, redis_url: str,
    memory_config_postgres: MemoryConfig, tmp_path: Path,
) -> None:
    """q20's worker is SIGKILLed while q20's select call is in flight: the batch still returns 50
    rows, one per request; q20 is retried on a worker and repeats only the call in flight."""
    client = own_client
    client.wait_for_workers(2, timeout=120)
    killed: list[int] = []

    def responder(request: dict[str, Any]) -> dict[str, Any]:
        if not killed and prompt_question(request).startswith("Q20:") and purpose_of(request) == "select":
            processing = client.processing()
            address = next(a for a, keys in processing.items() if any(str(k).startswith("ditto-q20-") for k in keys))
            pid = client.run(os.getpid, workers=[address])[address]
            killed.append(pid)
            os.kill(pid, signal.SIGKILL)
        return tagged_reply(request)

    batch_model.responder = responder
    config = scripted_runtime_config(batch_model, redis_url=redis_url).model_copy(update={"memory": memory_config_postgres})
    requests = requests_for(web, 50)
    with watchdog(client):
        result = run_batch(requests, client, directory=tmp_path / "batch", config=config, search=search,
                           gold={r["id"]: "1,280 meters" for r in requests}, progress=False)
    frame = result.frame.set_index("id")
    assert killed, "the worker was never killed"
    assert list(result.frame["id"]) == [r["id"] for r in requests]  # none lost, none duplicated
    assert (frame["status"] == "answered").all(), frame[frame["status"] != "answered"][["status", "error"]]
    assert frame.loc["q20", "attempts"] == 2 and (frame.drop(index="q20")["attempts"] == 1).all()
    calls = calls_per_task(batch_model)
    assert len(calls) == 50 * 4 and ("?", "ground") not in calls
    repeated = {key: n for key, n in calls.items() if n > 1}
    assert repeated == {("Q20", "select"): 2}  # only the call in flight at the kill ran twice
    # Ledger counts: every task completed 4 model calls; q20's budget kept its first charge.
    assert (frame["model_calls"] == 4).all()
    assert frame.loc["q20", "model_charges"] == 5 and (frame.drop(index="q20")["model_charges"] == 4).all()
    assert batch_model.call_count == int(frame["model_calls"].sum()) + 1
    assert frame["f1"].between(0, 1).all() and frame["em"].isin([0.0, 1.0]).all() and frame["gold"].notna().all()
    assert (tmp_path / "batch" / "results.jsonl").read_text().count("\n") == 50


def test_endpoint_limit_of_one_across_four_workers(
    client: Any, web: SandboxWeb, search: SearchSetup, batch_model: ScriptedModel, redis_url: str,
    tmp_path: Path,
) -> None:
    client.cluster.scale(4)
    client.wait_for_workers(4, timeout=180)
    batch_model.latency_seconds = 0.05
    config = scripted_runtime_config(batch_model, redis_url=redis_url)
    limits = ConcurrencyLimits(redis_url, per_endpoint=1, key_prefix=f"test:{tmp_path.name}")
    with watchdog(client):
        result = run_batch(requests_for(web, 8), client, directory=tmp_path / "batch", config=config, search=search,
                           limits=limits, progress=False)
    assert (result.frame["status"] == "answered").all()
    assert result.frame["worker"].nunique() >= 2  # tasks did run side by side
    assert batch_model.call_count == 32
    assert batch_model.overlaps == 0 and batch_model.max_in_flight == 1


def test_batch_input_errors(web: SandboxWeb, search: SearchSetup, batch_model: ScriptedModel, tmp_path: Path) -> None:
    config = scripted_runtime_config(batch_model, redis_url="redis://127.0.0.1:6379/0")
    twice = requests_for(web, 1) * 2
    with pytest.raises(InvalidRequest, match="duplicate request ids"):
        run_batch(twice, object(), directory=tmp_path, config=config, search=search)
    with pytest.raises(ConfigError, match="redis_url"):
        run_batch(requests_for(web, 1), object(), directory=tmp_path, config=scripted_runtime_config(batch_model),
                  search=search)


def test_a_local_cluster_without_a_redis_url_shares_one_embedded_redis(
    client: Any, web: SandboxWeb, search: SearchSetup, batch_model: ScriptedModel, tmp_path: Path
) -> None:
    """Notebook 03 on a machine without DITTO_WORKER_CONTEXT_REDIS_URL: its LocalCluster's workers
    share one embedded Redis under the batch directory (a remote cluster still needs a URL)."""
    config = scripted_runtime_config(batch_model)
    assert not config.context.redis_url
    result = run_batch(requests_for(web, 2), client, directory=tmp_path / "batch", config=config, search=search,
                       progress=False)
    assert (result.frame["status"] == "answered").all() and len(result.frame) == 2
    assert (tmp_path / "batch" / "redis").exists()


def test_detail_rows_carry_the_report_pages_read_and_calls(
    client: Any, web: SandboxWeb, search: SearchSetup, batch_model: ScriptedModel, redis_url: str, tmp_path: Path
) -> None:
    """detail=True: each row (as on_row sees it) holds the report JSON, the ledger's page reads and
    this run's model calls; the frame keeps its columns."""
    config = scripted_runtime_config(batch_model, redis_url=redis_url)
    seen: list[dict[str, Any]] = []
    result = run_batch(requests_for(web, 2), client, directory=tmp_path / "batch", config=config, search=search,
                       progress=False, on_row=seen.append, detail=True)
    assert (result.frame["status"] == "answered").all() and "report" not in result.frame
    for row in seen:
        assert row["report"]["answer"]["text"] == row["answer"]
        assert row["pages_read"] and all(url.startswith("https://") for url in row["pages_read"])
        assert [call["purpose"] for call in row["calls"]][:2] == ["plan", "select"]
        assert len(row["calls"]) == row["new_model_calls"] == row["model_calls"]


def test_local_workers_are_preloaded_with_the_task_module(own_client: Any) -> None:
    """local_client's workers (fresh: no task has run on them) import the batch task module at
    start (ditto_nb.batch.worker_setup), so no first task imports it on two threads at once."""
    own_client.wait_for_workers(2, timeout=120)
    # eval of a string: the probe itself imports nothing of ditto_nb on the worker
    loaded = own_client.run(eval, "'ditto_nb.batch.task' in __import__('sys').modules")
    assert loaded and all(loaded.values()), loaded
