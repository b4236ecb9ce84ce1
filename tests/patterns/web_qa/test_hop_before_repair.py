"""A repair never starves the second hop: with the default budgets the hop (a search and page reads,
no model call) runs before the answer call, so a draft that needs the one repair still answers
from the bridge's page, within the six model calls of a run (notebook 01's example, scripted)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ditto_nb.notebook.demo import DemoResponder
from ditto_nb.notebook.memory_view import load_task
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.sandbox import SandboxWeb, demo_questions_path, load_hotpotqa_questions
from ditto_nb.testing.scripted_model import ScriptedModel
from tests.patterns.web_qa.helpers import purpose_of, run_once

EXAMPLE = load_hotpotqa_questions(demo_questions_path())[0]


class FirstDraftOffTarget:
    """The stand-in, except that the first answer names a river no quote states, which the checks
    send to the repair; the repair answers as the stand-in does."""

    def __init__(self) -> None:
        self.stand_in = DemoResponder()
        self.seen: list[str] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        purpose = purpose_of(request)
        self.seen.append(purpose)
        reply = self.stand_in(request)
        if purpose == "answer":
            return {**reply, "answer": "The Loire"}  # in no quote: the checks send it to the repair
        return reply


async def test_a_draft_needing_repair_still_has_the_bridge_page_read_before_it(
    tmp_path: Path, demo_sandbox: SandboxWeb, scripted_model: ScriptedModel, redis_url: str,
) -> None:
    from ditto_nb.testing.scripted_config import scripted_runtime_config

    script = FirstDraftOffTarget()
    scripted_model.responder = script
    config: RuntimeConfig = scripted_runtime_config(scripted_model, redis_url=redis_url)
    request = WebQaRequest.parse({"id": "hop-repair", "tenant": "acme", "principal": "ana",
                                  "question": EXAMPLE.question, "allowed_origins": list(demo_sandbox.allowed_origins)})
    assert (request.max_queries, request.max_pages) == (2, 6)  # the defaults, as notebook 01's form
    report = await run_once(tmp_path / "task", request, config, SearchSetup.from_sandbox(demo_sandbox), scripted_model)
    assert isinstance(report, WebQaReport)
    assert script.seen == ["plan", "select", "answer", "ground", "repair", "regrade"]  # all six calls
    assert report.repaired and report.answer.status == "answered" and EXAMPLE.answer in report.answer.text
    view = load_task(tmp_path / "task")
    hop_pages = [p["title"] for p in view.stage("hop-read")["pages"]]
    assert "Paris" in hop_pages
    assert "Paris" in {c.title for claim in report.answer.claims for c in claim.citations}
    assert report.budget.queries == 2 and report.budget.pages <= 6
