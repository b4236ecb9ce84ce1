"""A comparison topic answered side by side with Web QA's compare step (issue 32 item 4, issue 30 item 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.patterns.common.report_records import ComparedAnswer
from ditto_nb.patterns.deep_research import ResearchReport
from ditto_nb.patterns.deep_research.published import summary_of

from .helpers import Rule, Script, make_request, run, wiki

BANDS = [
    wiki("Velmora", "Velmora is a folk band from Tromsø.", "Velmora's drummer plays a bodhrán in every song."),
    wiki("Quist Ensemble", "The Quist Ensemble is a folk band from Bergen.",
         "The Quist Ensemble's drummer plays a cajón in every song."),
    wiki("Bergen folk scene", "Bergen has a lively folk scene with many bands."),
]
TOPIC = "Which band's drummer plays a cajón, Velmora or the Quist Ensemble?"


@pytest.fixture
def config(scripted_config: Any, redis_url: str) -> Any:
    return scripted_config(redis_url=redis_url)


def test_an_attribute_no_rule_knows_is_answered_with_one_quote_per_side(
        sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path) -> None:
    web = sandbox_factory(BANDS)
    # The draft states one side only; code quotes each side's own page.
    script = Script(rules=[Rule("What does Velmora's drummer play?", r"Velmora's drummer plays a \w+")],
                    queries=["Velmora", "Quist Ensemble"], compare_answer="the Quist Ensemble")
    scripted_model.responder = script
    report = run(web, config, tmp_path / "task", make_request(web, question=TOPIC))
    assert isinstance(report, ResearchReport)
    assert script.purposes.count("compare") == 1
    assert report.compared is not None
    assert report.compared["answer"] == "Quist Ensemble"  # the side as the topic writes it
    assert report.compared["decided_by"] == "model"
    sides = {s["side"]: s for s in report.compared["sides"]}
    assert set(sides) == {"Velmora", "Quist Ensemble"}
    assert "bodhrán" in sides["Velmora"]["quote"] and "cajón" in sides["Quist Ensemble"]["quote"]
    cited = {c["id"]: c for c in report.cited_chunks}
    for side in sides.values():  # each side's quote is exact text of a cited evidence item of its own page
        assert side["quote"] in str(cited[side["evidence_id"]]["text"])
        assert side["title"] == cited[side["evidence_id"]]["title"]
    assert report.summary.startswith("Answer: Quist Ensemble. Compared side by side: Velmora:")


def _bridges(sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path, topic: str,
             zarnow: str, kessel: str, rule: Rule) -> tuple[Script, ResearchReport]:
    """Research ``topic`` over two bridge pages (``zarnow``/``kessel``: each page's second
    sentence); the scripted compare call answers the Zarnow Bridge."""
    web = sandbox_factory([wiki("Zarnow Bridge", "The Zarnow Bridge is a steel arch bridge.", zarnow),
                           wiki("Kessel Bridge", "The Kessel Bridge is a stone bridge.", kessel)])
    script = Script(rules=[rule], queries=["Zarnow Bridge", "Kessel Bridge"], compare_answer="Zarnow Bridge")
    scripted_model.responder = script
    report = run(web, config, tmp_path / "task", make_request(web, question=topic))
    assert isinstance(report, ResearchReport)
    return script, report


def test_an_ordering_is_decided_by_code_from_the_two_values(
        sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path) -> None:
    # The scripted call would answer the wrong side: the quoted years decide.
    script, report = _bridges(sandbox_factory, scripted_model, config, tmp_path,
                              "Which was completed first, the Zarnow Bridge or the Kessel Bridge?",
                              "The Zarnow Bridge was completed in 1931.", "The Kessel Bridge was completed in 1925.",
                              Rule("When was the Zarnow Bridge completed?", r"Zarnow Bridge was completed in \d+"))
    assert report.compared is not None
    assert (report.compared["answer"], report.compared["decided_by"]) == ("Kessel Bridge", "code")
    assert "compare" not in script.purposes  # each side's quotes state one year: no call
    assert [s["value"] for s in report.compared["sides"]] == ["1931", "1925"]


def test_a_finding_that_orders_the_sides_is_withheld_beside_the_side_by_side_answer(
        sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path) -> None:
    from ditto_nb.patterns.deep_research.compared import ORDERING_WITHHELD, orders_sides

    topic = "Which was completed first, the Zarnow Bridge or the Kessel Bridge?"
    ordering = "Kessel Bridge was completed in 1925, earlier than the Zarnow Bridge"
    assert orders_sides(topic, ordering + ".") and not orders_sides(topic, "Kessel Bridge was completed in 1925.")
    _script, report = _bridges(sandbox_factory, scripted_model, config, tmp_path, topic,
                               "The Zarnow Bridge was completed in 1931.", f"The {ordering}.",
                               Rule("Which bridge was completed earlier?", ordering))
    assert report.compared is not None and report.compared["answer"] == "Kessel Bridge"
    assert all("earlier than" not in c.statement for c in report.conclusions)
    [withheld] = [w for w in report.withheld if "earlier than" in w["statement"]]
    assert withheld["reasons"] == [ORDERING_WITHHELD]
    assert "Also established" not in report.summary  # the quote stays, as the side's value, not as a finding


def test_an_ordering_code_cannot_read_is_not_published_on_the_models_pick(
        sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path) -> None:
    script, report = _bridges(sandbox_factory, scripted_model, config, tmp_path,
                              "Which is longer, the Zarnow Bridge or the Kessel Bridge?",
                              "The Zarnow Bridge crosses the Lenne.", "The Kessel Bridge crosses the Ruhr.",
                              Rule("What does the Zarnow Bridge cross?", r"Zarnow Bridge crosses the \w+"))
    assert script.purposes.count("compare") == 1 and report.compared is None  # no length is quoted
    assert "The comparison is not decided: the two sides do not decide it" in report.summary


def test_no_call_when_a_side_has_no_quote_and_the_summary_says_why(
        sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path) -> None:
    web = sandbox_factory(BANDS[:1] + BANDS[2:])  # the Quist Ensemble has no page
    script = Script(rules=[Rule("What does Velmora's drummer play?", r"Velmora's drummer plays a \w+")],
                    queries=["Velmora"], compare_answer="Velmora")
    scripted_model.responder = script
    report = run(web, config, tmp_path / "task", make_request(web, question=TOPIC, max_rounds=1))
    assert isinstance(report, ResearchReport)
    assert "compare" not in script.purposes and report.compared is None
    assert "The comparison is not decided: no quote for Quist Ensemble." in report.summary


def test_a_declined_comparison_publishes_no_answer(sandbox_factory: Any, scripted_model: Any, config: Any,
                                                   tmp_path: Path) -> None:
    web = sandbox_factory(BANDS)
    script = Script(rules=[Rule("What does Velmora's drummer play?", r"Velmora's drummer plays a \w+")],
                    queries=["Velmora", "Quist Ensemble"])  # the call declines
    scripted_model.responder = script
    report = run(web, config, tmp_path / "task", make_request(web, question=TOPIC))
    assert isinstance(report, ResearchReport) and report.compared is None
    assert script.purposes.count("compare") == 1
    assert "The comparison is not decided: the two sides do not decide it" in report.summary
    assert not report.summary.startswith("Answer:")


def test_the_summary_leads_with_the_compared_answer_then_every_finding() -> None:
    compared: ComparedAnswer = {"answer": "Yes", "decided_by": "code", "sides": [
        {"side": "A", "value": "a genus", "quote": "A is a genus.", "evidence_id": "E1", "title": "A"},
        {"side": "B", "value": "a genus", "quote": "B is a genus.", "evidence_id": "E2", "title": "B"}]}
    kept = [{"statement": "A is a genus of trees", "quote": "A is a genus."}]
    text = summary_of(kept, ["Where does B grow: no evidence"], answered=1, compared=compared)  # type: ignore[arg-type]
    assert text == ('Answer: Yes. Compared side by side: A: a genus (quote: "A is a genus."); '
                    'B: a genus (quote: "B is a genus."). Also established: A is a genus of trees. '
                    'Not established: Where does B grow.')
