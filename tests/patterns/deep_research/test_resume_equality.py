"""Research stopped after each stop point, then continued, equals one uninterrupted run (issue 14
item 2). The search budget is sized so that round two spends its last search: a resumed run that
re-decided round one against the counters of round two would stop there with ``search-budget``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.patterns.deep_research import ResearchReport
from tests.patterns.deep_research.helpers import bridge_corpus, bridge_script, make_request, run


@pytest.fixture
def config(scripted_config: Any, redis_url: str) -> Any:
    return scripted_config(redis_url=redis_url)


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in ("generated_at", "fetched_at")}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _full(web: Any, config: Any, tmp_path: Path, request: Any) -> dict[str, Any]:
    report = run(web, config, tmp_path / "full", request)
    assert isinstance(report, ResearchReport)
    assert (report.stop_reason, report.status) == ("coverage-complete", "complete")
    assert [r["round"] for r in report.rounds] == [1, 2]
    return dict(_strip(report.model_dump(mode="json")))


def _continued(web: Any, config: Any, directory: Path, request: Any) -> dict[str, Any]:
    report = run(web, config, directory, request)
    assert isinstance(report, ResearchReport)
    return dict(_strip(report.model_dump(mode="json")))


@pytest.mark.parametrize("stop_after", ["plan", "round", "report"])
def test_stop_then_continue_equals_one_run(
    stop_after: str, sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    scripted_model.responder = bridge_script()
    request = make_request(web, max_searches=3)
    full = _full(web, config, tmp_path, request)
    checkpoint = run(web, config, tmp_path / "staged", request, stop_after=stop_after)
    assert checkpoint["status"] == "checkpoint" and checkpoint["stage"] == stop_after
    assert _continued(web, config, tmp_path / "staged", request) == full


def test_round_by_round_equals_one_run(sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path) -> None:
    web = sandbox_factory(bridge_corpus())
    scripted_model.responder = bridge_script()
    request = make_request(web, max_searches=3)
    full = _full(web, config, tmp_path, request)
    calls_full = len(scripted_model.requests)
    staged = tmp_path / "staged"
    rounds = []
    for _ in range(request.max_rounds + 1):
        result = run(web, config, staged, request, stop_after="round")
        if isinstance(result, ResearchReport):
            break
        assert result["stage"] == "round"
        rounds.append(result["round"])
    assert rounds == [1, 2]
    assert len(scripted_model.requests) == 2 * calls_full  # no completed model call repeated
    assert _continued(web, config, staged, request) == full
