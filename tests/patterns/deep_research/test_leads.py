"""Rounds follow leads: a comparison's unread side is searched next (issue 32, item 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.patterns.common.records import EvidenceItem
from ditto_nb.patterns.deep_research import ResearchReport
from ditto_nb.patterns.deep_research.queries import leads, side_specs

from .helpers import Rule, Script, make_request, run, wiki

TOPIC = "Which was completed first, the Zarnow Bridge or the Kessel Bridge?"


def _item(title: str, text: str) -> EvidenceItem:
    return {"id": "E1", "title": title, "text": text, "origin": "https://wiki.test"}


def test_an_unread_side_is_a_lead_until_its_page_is_read_or_searched() -> None:
    read_one = [_item("Zarnow Bridge", "The Zarnow Bridge was completed in 1931.")]
    assert [s["text"] for s in side_specs(TOPIC, read_one, ["Zarnow Bridge completed"])] == ["Kessel Bridge"]
    assert side_specs(TOPIC, read_one, ["kessel bridge"]) == []  # already searched as its own query
    both = [*read_one, _item("Kessel Bridge", "The Kessel Bridge was completed in 1925.")]
    assert side_specs(TOPIC, both, []) == []
    assert side_specs("Where was the designer of the Zarnow Bridge born?", read_one, []) == []  # not a comparison
    assert leads(TOPIC, [], read_one, [])[0] == {"text": "Kessel Bridge", "fallbacks": [], "entity": "Kessel Bridge"}


@pytest.fixture
def config(scripted_config: Any, redis_url: str) -> Any:
    return scripted_config(redis_url=redis_url)


def test_the_next_round_searches_the_unread_side(sandbox_factory: Any, scripted_model: Any, config: Any,
                                                 tmp_path: Path) -> None:
    web = sandbox_factory([
        wiki("Zarnow Bridge", "The Zarnow Bridge is a steel arch bridge.", "The Zarnow Bridge was completed in 1931."),
        wiki("Kessel Bridge", "The Kessel Bridge is a stone bridge.", "The Kessel Bridge was completed in 1925."),
        wiki("Lenne river", "The Lenne is a river in Westphalia with many bridges."),
    ])
    # The plan asks about one side only (one sub-question), which the first round covers.
    script = Script(rules=[Rule("When was the Zarnow Bridge completed?", r"Zarnow Bridge was completed in \d+")],
                    queries=["Zarnow Bridge"])
    scripted_model.responder = script
    report = run(web, config, tmp_path / "task", make_request(web, question=TOPIC, max_queries=1))
    assert isinstance(report, ResearchReport)
    assert not any("Kessel" in url for url in report.rounds[0]["reads"])
    assert report.rounds[1]["queries"] == ["Kessel Bridge"]
    assert any("Kessel_Bridge" in url for url in report.rounds[1]["reads"])
    assert report.rounds[0]["stop_reason"] is None  # covered, yet a compared side is unread: no stop
    assert [row["status"] for row in report.coverage] == ["covered"]


def test_each_query_keeps_a_read_in_its_round(sandbox_factory: Any, scripted_model: Any, config: Any,
                                              tmp_path: Path) -> None:
    # The first side's query returns two pages, enough to fill the round's two reads in query
    # order; ranked as Web QA ranks hits, each query's best hit is read first.
    web = sandbox_factory([
        wiki("Zarnow Bridge", "The Zarnow Bridge is a steel arch bridge.", "The Zarnow Bridge was completed in 1931."),
        wiki("Lenne river", "The Lenne is a river in Westphalia; the Zarnow Bridge crosses it."),
        wiki("Kessel Bridge", "The Kessel Bridge is a stone bridge.", "The Kessel Bridge was completed in 1925."),
    ])
    script = Script(rules=[Rule("When was the Zarnow Bridge completed?", r"Zarnow Bridge was completed in \d+"),
                           Rule("When was the Kessel Bridge completed?", r"Kessel Bridge was completed in \d+")],
                    queries=["Zarnow Bridge", "Kessel Bridge"])
    scripted_model.responder = script
    report = run(web, config, tmp_path / "task", make_request(web, question=TOPIC, max_pages=2))
    assert isinstance(report, ResearchReport)
    first = report.rounds[0]
    assert first["queries"][:2] == ["Zarnow Bridge", "Kessel Bridge"]
    assert sorted(url.rsplit("/", 1)[1] for url in first["reads"]) == ["Kessel_Bridge", "Zarnow_Bridge"]
