"""Deep research: the independent review rejects the draft → exactly one repair (SPEC §4).

A review that fails the first draft leads to one repair and a second review; when that passes the
report is published; when it fails too, every finding of the repaired draft is withheld with the
review's problems and an honest partial report is published (SPEC: repaired once, then withheld).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.patterns.deep_research import ResearchReport
from tests.patterns.deep_research.helpers import Rule, Script, bridge_corpus, make_request, run

PROBLEM = "conclusion 1 does not say the bridge was completed in 1931"


@pytest.fixture
def config(scripted_config: Any, redis_url: str) -> Any:
    return scripted_config(redis_url=redis_url)


class Reviewer:
    """The one-round bridge script whose review fails the first ``failures`` reviews."""

    def __init__(self, failures: int) -> None:
        self.script = Script(rules=[Rule("Who designed the Zarnow Bridge?", r"designed by engineer [A-Z]\w+ [A-Z]\w+")],
                             queries=["Zarnow Bridge"])
        self.failures = failures
        self.reviews = 0
        self.repair_prompts: list[str] = []

    def __call__(self, request: dict[str, Any]) -> Any:
        reply = self.script(request)
        purpose = self.script.purposes[-1]
        if purpose == "repair":
            self.repair_prompts.append("\n".join(m["content"] for m in request["messages"]))
        if purpose == "review":
            self.reviews += 1
            if self.reviews <= self.failures:
                return {"ok": False, "problems": [PROBLEM]}
        return reply


def test_failed_review_gets_one_repair_then_publishes(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    reviewer = Reviewer(failures=1)
    scripted_model.responder = reviewer
    report = run(web, config, tmp_path / "task", make_request(web))
    assert isinstance(report, ResearchReport)
    purposes = reviewer.script.purposes
    assert purposes[-5:] == ["report", "review", "repair", "review", "coverage"]
    assert purposes.count("repair") == 1 and purposes.count("review") == 2
    assert len(reviewer.repair_prompts) == 1 and PROBLEM in reviewer.repair_prompts[0]  # the repair saw why
    assert report.review["repaired"] is True and report.review["ok"] is True
    assert any("designed by engineer Ilse Marrek" == c.quote for c in report.conclusions)
    assert report.review["from_repair"] == []  # the repair restated the first draft's finding
    published = (tmp_path / "task" / "output" / "report.json").read_text()
    assert report.id in published
    assert (tmp_path / "task" / "output" / "report.md").exists()


def test_second_review_failure_withholds_every_finding(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    reviewer = Reviewer(failures=2)
    scripted_model.responder = reviewer
    report = run(web, config, tmp_path / "task", make_request(web))
    assert isinstance(report, ResearchReport)
    assert reviewer.script.purposes.count("repair") == 1  # never a second repair
    assert reviewer.script.purposes[-4:] == ["report", "review", "repair", "review"]
    assert report.conclusions == []  # nothing the review failed is published
    assert report.withheld and all(any(PROBLEM in r for r in w["reasons"]) for w in report.withheld)
    assert report.review["ok"] is False and report.review["repaired"] is True
    assert report.status == "partial"
    assert all(row["status"] != "covered" for row in report.coverage)
    published = ResearchReport.model_validate_json((tmp_path / "task" / "output" / "report.json").read_text())
    assert published == report
    assert "Ilse Marrek" not in "\n".join(c.statement for c in published.conclusions)


def test_second_review_failure_keeps_only_findings_it_called_supported(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    """The second review fails the report overall but gives finding 1 an explicit ``supported``
    verdict: that finding is published, the review stays failed, its problem is shown."""
    web = sandbox_factory(bridge_corpus())
    reviewer = Reviewer(failures=1)
    reviews: list[dict[str, Any]] = []

    def responder(request: dict[str, Any]) -> Any:
        reply = reviewer(request)
        if reviewer.script.purposes[-1] == "review":
            reviews.append(request)
            if reviewer.reviews == 2:
                return {"verdicts": [{"n": 1, "verdict": "supported"}], "ok": False, "problems": [PROBLEM]}
        return reply

    scripted_model.responder = responder
    report = run(web, config, tmp_path / "task", make_request(web))
    assert isinstance(report, ResearchReport)
    assert reviewer.script.purposes.count("repair") == 1
    assert [c.quote for c in report.conclusions] == ["designed by engineer Ilse Marrek"]
    assert report.review["ok"] is False and PROBLEM in report.review["problems"]
    # the review was asked for exactly one verdict per finding it was shown
    verdicts = reviews[-1]["response_format"]["json_schema"]["schema"]["properties"]["verdicts"]
    assert verdicts["minItems"] == verdicts["maxItems"] >= 1


def test_quote_still_unverifiable_after_repair_is_withheld_not_fatal(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    """A finding whose quote is on no page, in the draft and again after the one repair, is
    withheld with its reason; the report is published honestly as partial (issue 15)."""
    web = sandbox_factory(bridge_corpus())
    script = Script(rules=[Rule("Who designed the Zarnow Bridge?", r"designed by engineer [A-Z]\w+ [A-Z]\w+")],
                    queries=["Zarnow Bridge"])

    def responder(request: dict[str, Any]) -> Any:
        reply = script(request)
        if script.purposes[-1] in ("report", "repair"):
            for conclusion in reply.get("conclusions", []):
                conclusion["quote"] = "The bridge was painted green by volunteers."  # on no page
        return reply

    scripted_model.responder = responder
    report = run(web, config, tmp_path / "task", make_request(web))
    assert isinstance(report, ResearchReport)
    assert script.purposes.count("repair") == 1
    assert report.conclusions == [] and report.withheld
    assert all(w["quote"] == "The bridge was painted green by volunteers." for w in report.withheld)
    assert all("not-found" in " ".join(w["reasons"]) for w in report.withheld)
    assert report.status == "partial" and report.unknowns
    assert all(row["status"] == "gap" for row in report.coverage)
    assert (tmp_path / "task" / "output" / "report.json").exists()


def test_the_review_record_names_the_findings_the_repair_added(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    reviewer = Reviewer(failures=1)

    def responder(request: dict[str, Any]) -> Any:
        reply = reviewer(request)
        if reviewer.script.purposes[-1] == "repair":
            for c in reply.get("conclusions", []):
                c["statement"] = "Engineer Ilse Marrek designed the Zarnow Bridge."
        return reply

    scripted_model.responder = responder
    report = run(web, config, tmp_path / "task", make_request(web))
    assert isinstance(report, ResearchReport)
    assert report.review["repaired"] is True
    published = [c.statement for c in report.conclusions]
    assert "Engineer Ilse Marrek designed the Zarnow Bridge." in published
    assert report.review["from_repair"] == ["Engineer Ilse Marrek designed the Zarnow Bridge."]
