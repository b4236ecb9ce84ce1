"""One create_task / open_task / run_task / resume_task shape for both patterns (issue 11)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import RequestChanged
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.tasks import create_task, open_task, resume_task, run_task
from tests.patterns.contract import HARNESSES, PatternHarness

TASKS = Path(__file__).parent / "legacy" / "tasks"


@pytest.fixture(params=sorted(HARNESSES))
def pattern(request: Any) -> PatternHarness:
    return HARNESSES[request.param]


async def test_same_shape_for_both_patterns(pattern: PatternHarness, sandbox_factory: Any, scripted_model: Any,
                                            scripted_config: Any, redis_url: str, tmp_path: Path) -> None:
    web = sandbox_factory(pattern.corpus())
    scripted_model.responder = pattern.script()
    search = SearchSetup.from_sandbox(web)
    config = scripted_config(redis_url=redis_url)
    request = pattern.request(web)
    directory = tmp_path / "t"
    assert await create_task(directory, request, search) == request
    app = await open_task(directory, request, config, search)
    try:
        checkpoint = await run_task(app, request, {"provider": "scripted", "model": "scripted"}, stop_after="plan")
    finally:
        await app.close()
    assert isinstance(checkpoint, dict) and checkpoint["stage"] == "plan"
    report = await resume_task(directory, config, search)  # request read back from Memory
    assert hasattr(report, "model_dump")
    calls = len(scripted_model.requests)
    assert (await resume_task(directory, config, search)) == report
    assert len(scripted_model.requests) == calls
    with pytest.raises(RequestChanged):
        await create_task(directory, request.model_copy(update={"question": "Another question?"}), search)


@pytest.mark.parametrize("name", ["web_qa", "research"])
async def test_legacy_directories_resume_through_the_one_shape(name: str, scripted_model: Any, scripted_config: Any,
                                                               tmp_path: Path) -> None:
    shutil.copytree(TASKS / name, tmp_path / name)
    report = await resume_task(tmp_path / name, scripted_config(),
                               SearchSetup(provider="mediawiki", mediawiki_api_url="https://wiki.test/w/api.php"))
    assert hasattr(report, "model_dump")
    assert len(scripted_model.requests) == 0
