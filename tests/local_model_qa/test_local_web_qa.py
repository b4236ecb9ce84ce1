"""Web QA with the REAL local model (``local`` profile, Qwen2.5-Coder 1.5B on llama.cpp) over the
sandbox web serving the packaged demo corpus.

HotpotQA dev data is not available offline, so three two-hop questions of
``ditto_nb/data/demo_questions.jsonl`` stand in. Each run must complete with a published, valid
report (any of the four statuses), and every published quote must be the exact text of its stored
snapshot's paragraph at the recorded character offsets. One model server is shared by the module.
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
from ditto_nb.patterns.tasks import create_task
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest, open_web_qa, run_web_qa
from ditto_nb.patterns.web_qa.schemas import STATUSES
from ditto_nb.runtime import ModelSelection, RuntimeConfig, load_runtime_config
from ditto_nb.sandbox import SandboxWeb, demo_corpus_path, demo_questions_path, load_corpus, load_hotpotqa_questions
from ditto_nb.web import SnapshotStore

# The real 1.5B model on 2 cores: a question takes ~100-150 s idle; a busy machine doubles it.
pytestmark = [pytest.mark.local_model, pytest.mark.timeout(900)]

QUESTIONS = load_hotpotqa_questions(demo_questions_path())[:3]


@pytest.fixture(scope="module")
def local_config(redis_url: str) -> RuntimeConfig:
    """The packaged configuration with the ``local`` provider as default and the test Redis;
    its llama.cpp server is started once for the module (reused if already answering)."""
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


@pytest.mark.parametrize("question", QUESTIONS, ids=[q.id for q in QUESTIONS])
async def test_local_model_publishes_a_verified_report(
    question: object, local_config: RuntimeConfig, demo_web: SandboxWeb, tmp_path: Path
) -> None:
    from ditto_nb.sandbox import HotpotQuestion

    assert isinstance(question, HotpotQuestion)
    request = WebQaRequest.parse({
        "id": f"local-{question.id}-{os.getpid()}", "tenant": "test", "principal": "local-model",
        "question": question.question, "allowed_origins": list(demo_web.allowed_origins),
        "max_queries": 2, "max_pages": 4, "cross_check": False, "allow_partial": True,
    })
    search = SearchSetup.from_sandbox(demo_web)
    task_dir = tmp_path / "task"
    await create_task(task_dir, request, search)
    app = await open_web_qa(task_dir, request, local_config, search)
    try:
        model = {"provider": "local", "model": local_config.model.model}
        report = await run_web_qa(app.runtime, {"request": request, "model": model})
        model_calls = len(app.infer.calls)
    finally:
        await app.close()

    assert isinstance(report, WebQaReport)
    assert report.answer.status in STATUSES
    assert 1 <= model_calls <= 6
    published = json.loads((task_dir / "output" / "report.json").read_text(encoding="utf-8"))
    assert WebQaReport.model_validate(published) == report
    if report.answer.status == "answered":
        assert report.answer.claims
    snapshots = SnapshotStore(task_dir)
    for claim in report.answer.claims:
        assert claim.verification.quotes_verified and claim.verification.grounded
        for citation in claim.citations:
            assert citation.quote
            snapshot = snapshots.load(citation.sha256)  # re-hashes the stored raw HTML
            paragraph = snapshot.paragraphs[citation.paragraph_index]
            assert paragraph[citation.start:citation.end] == citation.quote
            assert snapshot.serves(citation.final_url)
