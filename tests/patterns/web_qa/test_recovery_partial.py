"""Web QA: partial and total read failures with ``allow_partial`` (SPEC §5).

The sandbox search index leaves out pages that answer an error status, so the forbidden pages
are given as ``reference_urls`` (read like any other page).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import ReadFailed
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa import WebQaReport
from ditto_nb.testing.scripted_model import ScriptedModel
from ditto_nb.workers import open_task_store
from tests.patterns.web_qa.helpers import BRIDGE_A, BRIDGE_B, Script, make_request, run_once

ALPHA_URL = "https://alpha.test/wiki/Golden_Gate_Bridge"
FORBIDDEN_URL = "https://beta.test/bridges/golden-gate"


def _pages(*, alpha_status: int = 200) -> list[dict[str, Any]]:
    return [
        {"url": ALPHA_URL, "title": "Golden Gate Bridge",
         "paragraphs": [BRIDGE_A], "status": alpha_status},
        {"url": FORBIDDEN_URL, "title": "Golden Gate Bridge facts", "paragraphs": [BRIDGE_B], "status": 403},
    ]


async def test_some_pages_forbidden_answered_with_failures(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: ScriptedModel
) -> None:
    web = sandbox_factory(_pages())
    scripted_model.responder = Script()
    request = make_request(web, allow_partial=True, reference_urls=[web.url_for(FORBIDDEN_URL)])
    report = await run_once(tmp_path / "t", request, config, SearchSetup.from_sandbox(web), scripted_model)
    assert isinstance(report, WebQaReport)
    assert report.answer.status == "answered"
    assert ("beta.test", "/bridges/golden-gate") in web.requests  # really tried
    assert {c.origin for c in report.evidence} == {f"https://alpha.test:{web.port}"}
    failures = [f for f in report.failures if f.stage == "read"]
    assert [f.source for f in failures] == [web.url_for(FORBIDDEN_URL)]
    assert "403" in f"{failures[0].failure} {failures[0].error}"


async def test_one_forbidden_page_without_allow_partial_fails(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: ScriptedModel
) -> None:
    web = sandbox_factory(_pages())
    scripted_model.responder = Script()
    request = make_request(web, allow_partial=False, reference_urls=[web.url_for(FORBIDDEN_URL)])
    with pytest.raises(ReadFailed, match="1 of 2"):
        await run_once(tmp_path / "t", request, config, SearchSetup.from_sandbox(web), scripted_model)


async def test_every_page_failing_is_read_failed_even_with_allow_partial(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: ScriptedModel
) -> None:
    web = sandbox_factory(_pages(alpha_status=403))
    script = Script()
    scripted_model.responder = script
    request = make_request(web, allow_partial=True,
                           reference_urls=[web.url_for(ALPHA_URL), web.url_for(FORBIDDEN_URL)])
    with pytest.raises(ReadFailed, match="2 of 2"):
        await run_once(tmp_path / "t", request, config, SearchSetup.from_sandbox(web), scripted_model)
    assert script.seen == ["plan"]  # no selection or answer over nothing
    assert {host for host, _ in web.requests} >= {"alpha.test", "beta.test"}  # both really tried
    assert not (tmp_path / "t" / "output").exists()
    store = open_task_store(tmp_path / "t")
    await store.setup()
    try:
        stages = {key for key, _ in await store.items(request.namespace, "stage/")}
    finally:
        await store.close()
    assert stages == {"stage/plan", "stage/searched"}  # the read stage was not committed
