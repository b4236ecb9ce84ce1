"""Origins written without a port (``https://en.wikipedia.org``-style) keep their hits (issue 11).

The sandbox listens on 127.0.0.1:443 so its pages have the default https port, and the request
names its origins without a port, as an analyst types them. Before the TaskRequest base,
research compared ``origin_of(url)`` (always with a port) with the raw origins, discarded
every hit and stopped ``no-progress``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import InvalidRequest
from ditto_nb.patterns.deep_research import ResearchReport, parse_request
from ditto_nb.sandbox import SandboxPage, SandboxWeb
from tests.patterns.deep_research.helpers import bridge_corpus, bridge_script, make_request, run


@pytest.fixture
def web_on_443(sandbox_ca: Any, tmp_path: Path) -> Any:
    pages = [SandboxPage.model_validate(p) for p in bridge_corpus()]
    with SandboxWeb(pages, tmp_path / "sandbox", "wiki.test", ca=sandbox_ca, port=443) as web:
        yield web


def test_portless_origins_keep_their_hits(web_on_443: Any, scripted_model: Any, scripted_config: Any,
                                          redis_url: str, tmp_path: Path) -> None:
    assert web_on_443.allowed_origins == ("https://wiki.test:443",)
    scripted_model.responder = bridge_script()
    request = make_request(web_on_443, allowed_origins=["https://wiki.test"])
    assert request.allowed_origins == ("https://wiki.test:443",)
    report = run(web_on_443, scripted_config(redis_url=redis_url), tmp_path / "task", request)
    assert isinstance(report, ResearchReport)
    assert report.stop_reason == "coverage-complete"
    assert len(report.rounds[0]["reads"]) >= 1
    assert "was born in Kessendorf" in {c.quote for c in report.conclusions}


def test_reference_urls_must_be_inside_allowed_origins() -> None:
    base = {"id": "r1", "tenant": "acme", "principal": "ana", "question": "Q?",
            "allowed_origins": ["https://en.wikipedia.org"]}
    ok = parse_request({**base, "reference_urls": ["https://en.wikipedia.org/wiki/Battery"]})
    assert ok.allowed_origins == ("https://en.wikipedia.org:443",)
    with pytest.raises(InvalidRequest, match="outside allowed_origins"):
        parse_request({**base, "reference_urls": ["https://example.org/page"]})
    with pytest.raises(InvalidRequest, match="allowed_origins"):
        parse_request({**base, "allowed_origins": ["http://en.wikipedia.org"]})
