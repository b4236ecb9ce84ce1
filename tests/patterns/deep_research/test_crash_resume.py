"""A SIGKILLed research process resumes without re-charging or re-running completed dispatches."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from ditto_nb.testing.scripted_model import ScriptedReply
from ditto_nb.workers import open_task_store
from tests.patterns.deep_research.helpers import bridge_corpus, bridge_script, make_request, run

CHILD = """
import asyncio, json, sys
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.deep_research import ResearchRequest, open_research, run_research
from ditto_nb.patterns.tasks import create_task
from ditto_nb.runtime.config import ContextConfig, ModelSelection, ProviderConfig, RuntimeConfig
a = json.loads(sys.argv[1])
config = RuntimeConfig(model=ModelSelection(provider="scripted", model="scripted"),
                       providers={"scripted": ProviderConfig(base_url=a["base_url"], model="scripted")},
                       context=ContextConfig(redis_url=a["redis_url"]))
search = SearchSetup(provider="mediawiki", mediawiki_api_url=a["api_url"], ca_bundle=a["ca"],
                     resolve_overrides=a["overrides"])
request = ResearchRequest.model_validate(a["request"])
async def main():
    await create_task(a["dir"], request)
    app = await open_research(a["dir"], request, config, search)
    try:
        await run_research(app.runtime, {"request": request, "model": {"provider": "scripted", "model": "scripted"}})
    finally:
        await app.close()
asyncio.run(main())
"""


def test_sigkill_mid_round_resumes_without_recharging(
    sandbox_factory: Any, scripted_model: Any, scripted_config: Any, redis_url: str, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    script = bridge_script()
    reached = threading.Event()
    assess_calls = {"n": 0}

    def responder(request: dict[str, Any]) -> Any:
        purpose = request["messages"][0]["content"].splitlines()[0]
        if purpose == "Task: assess":
            assess_calls["n"] += 1
            if assess_calls["n"] == 2:  # round two's assessment: the child is killed while waiting
                reached.set()
                return ScriptedReply(content="{}", delay_seconds=15)
        return script(request)

    scripted_model.responder = responder
    request = make_request(web, max_model_calls=8)
    directory = tmp_path / "task"
    args = {"base_url": scripted_model.base_url, "redis_url": redis_url, "api_url": web.api_url,
            "ca": str(web.ca_path), "overrides": dict(web.resolve_overrides), "dir": str(directory),
            "request": request.model_dump(mode="json")}
    child = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(args)], cwd=os.getcwd())
    try:
        assert reached.wait(60), "the child never reached round two's assessment"
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == -signal.SIGKILL

    before = _memory(directory, request)
    assert before["ledger/model:assess:r2"]["status"] == "started"
    assert before["budget/model"] == 3
    done_dispatches = {k for k, v in before.items() if k.startswith("ledger/") and v["status"] == "done"}
    web_requests = web.request_count

    scripted_model.responder = script
    report = run(web, scripted_config(redis_url=redis_url), directory, request)
    after = _memory(directory, request)
    assert report.stop_reason == "coverage-complete"
    # Completed searches and reads were reused: no new web request; only the interrupted
    # assessment was re-dispatched (charged again: a crash may over-count, never under-count).
    assert web.request_count == web_requests
    assert script.purposes.count("research-plan") == 1
    assert after["budget/search"] == before["budget/search"]
    assert after["budget/read"] == before["budget/read"]
    assert after["budget/model"] == 3 + 1 + 3  # assess r2 again, report, review, coverage
    assert after["budget/model"] <= request.max_model_calls
    for key in done_dispatches:
        assert after[key]["at"] == before[key]["at"]


def _memory(directory: Path, request: Any) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        store = open_task_store(directory)
        await store.setup()
        try:
            return dict(await store.items(request.namespace))
        finally:
            await store.close()

    return asyncio.run(read())
