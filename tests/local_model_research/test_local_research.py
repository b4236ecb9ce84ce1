"""Deep research with the REAL local model (``local`` profile, Qwen2.5-Coder 1.5B on llama.cpp)
over the sandbox web serving the packaged demo corpus.

One topic of ``ditto_nb/data/demo_questions.jsonl`` with tight budgets (two rounds, one query,
three pages, eight model calls). The run must complete with a valid, published
:class:`ResearchReport` and a documented stop reason, stay within its budgets, and every quote of
the published report must be the exact text of its stored snapshot's paragraph at the recorded
character offsets (the snapshot is re-hashed on load). The model server is shared with the Web QA
tests (``ensure_local_provider`` reuses a running server).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from ditto_nb.local_model import ensure_local_provider
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.deep_research import (
    STOP_REASONS,
    ResearchReport,
    ResearchRequest,
    open_research,
    run_research,
)
from ditto_nb.patterns.tasks import create_task
from ditto_nb.runtime import ModelSelection, RuntimeConfig, load_runtime_config
from ditto_nb.sandbox import SandboxWeb, demo_corpus_path, demo_questions_path, load_corpus, load_hotpotqa_questions
from ditto_nb.web import SnapshotStore

# The real 1.5B model on 2 cores: a question takes ~100-150 s idle; a busy machine doubles it.
pytestmark = [pytest.mark.local_model, pytest.mark.timeout(900)]

TOPIC = load_hotpotqa_questions(demo_questions_path())[0]


@pytest.fixture(scope="module")
def local_config(redis_url: str) -> RuntimeConfig:
    """The packaged configuration with the ``local`` provider as default and the test Redis;
    its llama.cpp server is started once (reused if already answering)."""
    base = load_runtime_config({}, None)
    provider = base.providers["local"]
    config = base.model_copy(update={
        "model": ModelSelection(provider="local", model=provider.model or "local"),
        "context": base.context.model_copy(update={"redis_url": redis_url}),
    })
    ensure_local_provider(config, "local")
    return config


@pytest.fixture(scope="module")
def demo_web(sandbox_ca: trustme.CA, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxWeb]:
    """The demo corpus served over HTTPS on 127.0.0.1 for the whole module."""
    web = SandboxWeb(load_corpus(demo_corpus_path()), tmp_path_factory.mktemp("sandbox"), ca=sandbox_ca).start()
    try:
        yield web
    finally:
        web.close()


async def test_local_model_publishes_a_verified_research_report(
    local_config: RuntimeConfig, demo_web: SandboxWeb, tmp_path: Path
) -> None:
    request = ResearchRequest.model_validate({
        "id": f"local-research-{os.getpid()}", "tenant": "test", "principal": "local-model",
        "question": TOPIC.question, "research_type": "academic", "allowed_origins": list(demo_web.allowed_origins),
        "max_queries": 1, "max_pages": 3, "max_rounds": 2, "max_searches": 2, "max_read_pages": 6,
        "max_model_calls": 8, "research_seconds": 600,
    })
    search = SearchSetup.from_sandbox(demo_web)
    task_dir = tmp_path / "task"
    await create_task(task_dir, request)
    app = await open_research(task_dir, request, local_config, search)
    try:
        model = {"provider": "local", "model": local_config.model.model}
        report = await run_research(app.runtime, {"request": request, "model": model})
        calls = list(app.infer.calls)
    finally:
        await app.close()
    for call in calls:  # shown with -s / on failure: where the model time went
        print(f"{call.purpose}: {call.prompt_tokens}+{call.completion_tokens} tokens, {call.seconds:.1f} s")

    assert isinstance(report, ResearchReport)
    assert report.stop_reason in STOP_REASONS
    assert report.stop_reason != "clarification"  # the demo topic is specific: it must be researched
    assert report.status in ("complete", "partial")
    assert 1 <= len(report.rounds) <= request.max_rounds
    assert report.budgets["read"]["used"] >= 1
    assert 1 <= len(calls) <= request.max_model_calls
    assert report.budgets["model"]["used"] <= request.max_model_calls
    assert report.budgets["search"]["used"] <= request.max_searches
    assert report.budgets["read"]["used"] <= request.max_read_pages
    assert len(report.rounds) <= request.max_rounds
    published = json.loads((task_dir / "output" / "report.json").read_text(encoding="utf-8"))
    assert ResearchReport.model_validate(published) == report
    assert (task_dir / "output" / "report.md").read_text(encoding="utf-8").startswith(f"# {request.question}")
    if report.conclusions:  # every published finding passed the model's review
        assert report.review["model_checked"]
        supported = [v for v in report.review.get("verdicts", []) if v.get("verdict") == "supported"]
        assert report.review["ok"] or len(report.conclusions) <= len(supported)
    snapshots = SnapshotStore(task_dir)
    for conclusion in report.conclusions:
        assert conclusion.quote
        snapshot = snapshots.load(conclusion.sha256)  # re-hashes the stored raw HTML
        assert snapshot.serves(conclusion.final_url)
        paragraph = snapshot.paragraphs[conclusion.paragraph_index]
        assert paragraph[conclusion.start:conclusion.end] == conclusion.quote
    for conflict in report.conflicts:
        for side in conflict["sides"]:
            assert side["quote"]
