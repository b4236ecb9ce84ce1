"""The pattern contract, run unchanged on Web QA and deep research (issue 11).

Ledger: the budget is charged before the dispatch; a done dispatch is reused on replay; a row
recording another kind or name under the key raises ``ReplayMismatch``. Binding: a changed
request under the same id is refused. Resume after each stage equals one run; a finished task
replays with zero model calls and zero fetches; budget counters are never reset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import DittoError, ReplayMismatch, RequestChanged
from ditto_nb.patterns.common import COUNTERS, TaskScope, add_ledgered_call
from ditto_nb.runtime.capabilities import INFER_REASONING_SAMPLE
from ditto_nb.runtime.graph import graph
from ditto_nb.testing.scripted_model import ScriptedReply
from tests.patterns.contract import HARNESSES, PatternHarness, edit_memory, memory, strip_times


@pytest.fixture(params=sorted(HARNESSES))
def pattern(request: Any) -> PatternHarness:
    return HARNESSES[request.param]


@pytest.fixture
def config(scripted_config: Any, redis_url: str) -> Any:
    return scripted_config(redis_url=redis_url)


def _deps(g: Any, node_id: str) -> set[str]:
    by_id = {n.id: n for n in g.nodes}
    seen: set[str] = set()
    todo = list(by_id[node_id].after)
    while todo:
        dep = todo.pop()
        if dep not in seen:
            seen.add(dep)
            todo += list(by_id[dep].after)
    return seen


def test_ledgered_call_charges_and_records_before_dispatch() -> None:
    g = graph("x")
    done = add_ledgered_call(g, TaskScope(namespace="n", scope="s"), key="model:plan", kind="model", name="plan",
                             capability=INFER_REASONING_SAMPLE, input={}, after=())
    assert {"model:plan:charge", "model:plan:start"} <= _deps(g, "model:plan")
    assert "model:plan:charge" in _deps(g, "model:plan:start")
    assert done == "model:plan:done" and "model:plan" in _deps(g, done)


def test_failed_dispatch_was_charged_first(pattern: PatternHarness, sandbox_factory: Any, scripted_model: Any,
                                           config: Any, tmp_path: Path) -> None:
    web = sandbox_factory(pattern.corpus())
    scripted_model.responder = lambda _request: ScriptedReply(content=None, status=400)
    request = pattern.request(web)
    with pytest.raises(DittoError):
        pattern.run(web, config, tmp_path / "t", request, scripted_model)
    rows = memory(tmp_path / "t", request.namespace)
    assert rows["budget/model"] == 1
    assert rows["ledger/model:plan"]["status"] == "started"
    assert rows["ledger/model:plan"]["name"] == pattern.plan_purpose


def test_resume_after_each_stage_equals_one_run(pattern: PatternHarness, sandbox_factory: Any, scripted_model: Any,
                                               config: Any, tmp_path: Path) -> None:
    web = sandbox_factory(pattern.corpus())
    scripted_model.responder = pattern.script()
    request = pattern.request(web)
    full = pattern.run(web, config, tmp_path / "full", request, scripted_model)
    assert pattern.is_report(full)
    calls = len(scripted_model.requests)
    counters: list[dict[str, int]] = []
    for stop in pattern.stops:
        result = pattern.run(web, config, tmp_path / "staged", request, scripted_model, stop)
        assert result["status"] == "checkpoint" and result["stage"] == stop
        rows = memory(tmp_path / "staged", request.namespace)
        counters.append({k: int(rows.get(f"budget/{k}", 0)) for k in COUNTERS})
    staged = pattern.run(web, config, tmp_path / "staged", request, scripted_model)
    assert len(scripted_model.requests) == 2 * calls  # no done model call dispatched twice
    assert strip_times(staged.model_dump(mode="json")) == strip_times(full.model_dump(mode="json"))
    # Budget counters only grow across resumes and end equal to an uninterrupted run's.
    for before, after in zip(counters, counters[1:]):
        assert all(after[k] >= before[k] for k in COUNTERS)
    end = memory(tmp_path / "staged", request.namespace)
    assert {k: end.get(f"budget/{k}") for k in COUNTERS} == {
        k: memory(tmp_path / "full", request.namespace).get(f"budget/{k}") for k in COUNTERS}


def test_finished_task_replays_with_zero_calls(pattern: PatternHarness, sandbox_factory: Any, scripted_model: Any,
                                               config: Any, tmp_path: Path) -> None:
    web = sandbox_factory(pattern.corpus())
    scripted_model.responder = pattern.script()
    request = pattern.request(web)
    first = pattern.run(web, config, tmp_path / "t", request, scripted_model)
    calls, fetches = len(scripted_model.requests), web.request_count
    before = memory(tmp_path / "t", request.namespace)
    again = pattern.run(web, config, tmp_path / "t", request, scripted_model)
    assert (len(scripted_model.requests), web.request_count) == (calls, fetches)
    assert strip_times(again.model_dump(mode="json")) == strip_times(first.model_dump(mode="json"))
    after = memory(tmp_path / "t", request.namespace)
    assert {k: v for k, v in after.items() if k.startswith("budget/")} == {
        k: v for k, v in before.items() if k.startswith("budget/")}


def test_changed_request_under_same_id_is_refused(pattern: PatternHarness, sandbox_factory: Any, scripted_model: Any,
                                                  config: Any, tmp_path: Path) -> None:
    web = sandbox_factory(pattern.corpus())
    scripted_model.responder = pattern.script()
    request = pattern.request(web)
    pattern.run(web, config, tmp_path / "t", request, scripted_model, "plan")
    changed = request.model_copy(update={"question": "Something else entirely?"})
    with pytest.raises(RequestChanged):
        pattern.run(web, config, tmp_path / "t", changed, scripted_model)


@pytest.mark.parametrize("field,value", [("name", "another purpose"), ("kind", "search")])
def test_replay_of_another_dispatch_raises(field: str, value: str, pattern: PatternHarness, sandbox_factory: Any,
                                           scripted_model: Any, config: Any, tmp_path: Path) -> None:
    web = sandbox_factory(pattern.corpus())
    scripted_model.responder = pattern.script()
    request = pattern.request(web)
    pattern.run(web, config, tmp_path / "t", request, scripted_model, "plan")
    row = dict(memory(tmp_path / "t", request.namespace)["ledger/model:plan"])
    row[field] = value
    # Un-commit the plan stage so that the next run replays its model call from the ledger.
    edit_memory(tmp_path / "t", request.namespace, {"ledger/model:plan": row}, delete=("stage/plan",))
    calls = len(scripted_model.requests)
    with pytest.raises(ReplayMismatch):
        pattern.run(web, config, tmp_path / "t", request, scripted_model)
    assert len(scripted_model.requests) == calls
