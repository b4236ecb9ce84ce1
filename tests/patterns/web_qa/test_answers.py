"""Web QA end to end: sandbox HTTPS web, scripted model, real Redis and SQLite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ditto_nb.patterns.web_qa import WebQaReport
from tests.patterns.web_qa.helpers import Script, make_request, run_once


@pytest.mark.asyncio
async def test_answered_with_verified_quotes(tmp_path: Path, web, search, config, scripted_model) -> None:
    script = Script()
    scripted_model.responder = script
    request = make_request(web)
    report = await run_once(tmp_path / "task", request, config, search, scripted_model)
    assert isinstance(report, WebQaReport)
    assert report.answer.status == "answered"
    assert script.seen == ["plan", "select", "answer", "ground"]
    claim = report.answer.claims[0]
    assert claim.verification.quotes_verified and claim.verification.grounded
    for citation in claim.citations:
        chunk = next(c for c in report.evidence if c.chunk_id == citation.chunk_id)
        assert chunk.text[citation.start:citation.end] == citation.quote
        assert citation.sha256 == chunk.sha256 and citation.final_url.startswith("https://")
    published = json.loads((tmp_path / "task" / "output" / "report.json").read_text())
    assert published["answer"]["status"] == "answered"
    assert (tmp_path / "task" / "output" / "report.md").read_text().startswith("# ")
