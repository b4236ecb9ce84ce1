"""Deep research end to end: scripted model, sandbox web over real HTTPS, real Redis and SQLite."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import InvalidRequest, RequestChanged
from ditto_nb.patterns.deep_research import ResearchReport, parse_request
from ditto_nb.workers import open_task_store
from tests.patterns.deep_research.helpers import (
    Rule,
    Script,
    bridge_corpus,
    bridge_script,
    make_request,
    run,
    wiki,
)


@pytest.fixture
def config(scripted_config: Any, redis_url: str) -> Any:
    return scripted_config(redis_url=redis_url)


def _memory(directory: Path, request: Any) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        store = open_task_store(directory)
        await store.setup()
        try:
            return dict(await store.items(request.namespace))
        finally:
            await store.close()

    return asyncio.run(read())


def test_two_rounds_multi_hop_close_the_gap(sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path) -> None:
    web = sandbox_factory(bridge_corpus())
    script = bridge_script()
    scripted_model.responder = script
    request = make_request(web)
    report = run(web, config, tmp_path / "task", request)
    assert isinstance(report, ResearchReport)
    assert report.stop_reason == "coverage-complete"
    assert report.status == "complete"
    assert [r["round"] for r in report.rounds] == [1, 2]
    # Round two's query comes from round one's assessment and names the bridge entity.
    assert report.rounds[0]["coverage"][1]["status"] == "gap"
    assert report.rounds[1]["queries"] == ["Ilse Marrek birthplace"]
    assert any("Ilse_Marrek" in url for url in report.rounds[1]["reads"])
    assert [row["status"] for row in report.coverage] == ["covered", "covered"]
    quotes = {c.quote for c in report.conclusions}
    assert "was born in Kessendorf" in quotes
    for c in report.conclusions:
        chunk = next(ch for ch in report.cited_chunks if ch["id"] == c.evidence_id)
        assert chunk["text"][c.start:c.end] == c.quote
    assert script.purposes == ["research-plan", "assess", "assess", "report", "review", "coverage"]
    out = tmp_path / "task" / "output"
    assert json.loads((out / "report.json").read_text())["stop_reason"] == "coverage-complete"
    assert "Kessendorf" in (out / "report.md").read_text()
    memory = _memory(tmp_path / "task", request)
    assert memory["budget/model"] == 6
    assert memory["budget/search"] == sum(len(r["queries"]) for r in report.rounds) == 3
    assert memory["round/2/plan"]["queries"] == ["Ilse Marrek birthplace"]
    assert memory["round/2/plan"]["search"][0]["fallbacks"][0] == "Ilse Marrek"  # relaxation on zero hits


def test_replay_of_finished_task_makes_no_model_or_network_call(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    scripted_model.responder = bridge_script()
    request = make_request(web)
    first = run(web, config, tmp_path / "task", request)
    calls, hits = scripted_model.call_count, web.request_count
    again = run(web, config, tmp_path / "task", request)
    assert scripted_model.call_count == calls
    assert web.request_count == hits
    assert again == first


def test_changed_request_under_same_id_is_refused(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    scripted_model.responder = bridge_script()
    request = make_request(web)
    run(web, config, tmp_path / "task", request, stop_after="plan")
    changed = request.model_copy(update={"max_rounds": 1})
    with pytest.raises(RequestChanged):
        run(web, config, tmp_path / "task2", changed)  # new dir, same id: fine
        run(web, config, tmp_path / "task", changed)


@pytest.mark.parametrize(
    ("budgets", "expected"),
    [
        ({"max_rounds": 1}, "round-budget"),
        ({"max_searches": 1}, "search-budget"),
        ({"max_read_pages": 1}, "page-budget"),
    ],
)
def test_budget_stop_reasons(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path, budgets: dict[str, int], expected: str
) -> None:
    web = sandbox_factory(bridge_corpus())
    scripted_model.responder = bridge_script()
    request = make_request(web, **budgets)
    report = run(web, config, tmp_path / "task", request)
    assert report.stop_reason == expected
    assert report.status == "partial"
    assert report.coverage[1]["status"] == "gap"
    assert any("born" in u or "designer" in u for u in report.unknowns)
    memory = _memory(tmp_path / "task", request)
    assert memory.get("budget/search", 0) <= request.max_searches
    assert memory.get("budget/read", 0) <= request.max_read_pages


def test_model_budget_reserves_four_calls(sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path) -> None:
    pages = [wiki(f"Archive {n}", f"Archive {n} of the Zarnow records lists item {n * 7} of the bridge.") for n in range(1, 7)]
    web = sandbox_factory(pages)
    counter = iter(range(2, 100))
    script = Script(rules=[Rule("What is the bridge's toll?", r"toll of \d+",
                                next_query=lambda _lines: f"Zarnow archive records {next(counter)}")],
                    queries=["Zarnow archive"])
    scripted_model.responder = script
    request = make_request(web, max_model_calls=8, max_rounds=4, max_pages=1, max_searches=12, max_read_pages=16)
    report = run(web, config, tmp_path / "task", request)
    assert report.stop_reason == "model-budget"
    memory = _memory(tmp_path / "task", request)
    assert memory["budget/model"] <= 8
    # plan + three assessments, then the four reserved calls were kept for synthesis (nothing was
    # published, so no coverage call)
    assert script.purposes.count("assess") == 3
    assert script.purposes[-2:] == ["report", "review"]


def test_no_progress_when_assessment_has_no_new_query(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    scripted_model.responder = Script(
        rules=[Rule("Who designed the Zarnow Bridge?", r"designed by engineer \w+ \w+"),
               Rule("What did it cost?", r"cost \d+")], queries=["Zarnow Bridge"])
    report = run(web, config, tmp_path / "task", make_request(web))
    assert report.stop_reason == "no-progress"
    assert [row["status"] for row in report.coverage] == ["covered", "gap"]


def test_vague_topic_asks_for_clarification(sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path) -> None:
    web = sandbox_factory(bridge_corpus())
    script = Script(rules=[], queries=[], clear=False)
    scripted_model.responder = script
    report = run(web, config, tmp_path / "task", make_request(web, question="markets"))
    assert report.stop_reason == "clarification"
    assert report.status == "needs-clarification"
    assert report.clarification_questions
    assert report.rounds == [] and report.conclusions == []
    assert script.purposes == ["research-plan"]


def test_deadline_counts_pauses_and_still_synthesizes(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory(bridge_corpus())
    script = bridge_script()
    scripted_model.responder = script
    request = make_request(web, research_seconds=1)
    checkpoint = run(web, config, tmp_path / "task", request, stop_after="plan")
    assert checkpoint["status"] == "checkpoint" and checkpoint["stage"] == "plan"
    time.sleep(1.2)
    hits = web.request_count
    report = run(web, config, tmp_path / "task", request)
    assert report.stop_reason == "deadline"
    assert report.rounds == []
    assert web.request_count == hits  # no new research work was scheduled
    assert script.purposes.count("research-plan") == 1  # the plan was reused, not re-run


def test_conflict_between_two_origins_shows_both_quotes(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    pages = [
        wiki("Zarnow Bridge", "The Zarnow Bridge opened in 1931 after four years of work."),
        {"url": "https://news.test/zarnow-history", "title": "Zarnow Bridge history",
         "paragraphs": ["Local records say the Zarnow Bridge opened in 1933, two years late."]},
    ]
    web = sandbox_factory(pages)
    scripted_model.responder = Script(rules=[Rule("When did the Zarnow Bridge open?", r"opened in \d{4}",
                                                  conflict=True)], queries=["Zarnow Bridge opened"])
    report = run(web, config, tmp_path / "task", make_request(web, max_pages=3))
    assert report.coverage[0]["status"] == "conflict"
    assert len(report.conflicts) == 1
    sides = report.conflicts[0]["sides"]
    assert len({side["origin"] for side in sides}) == 2
    assert {side["quote"] for side in sides} == {"opened in 1931", "opened in 1933"}
    markdown = (tmp_path / "task" / "output" / "report.md").read_text()
    assert "opened in 1931" in markdown and "opened in 1933" in markdown


def test_evidence_and_chunk_caps_are_disclosed(sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path) -> None:
    pages = [
        wiki(f"Zarnow Ledger {n}", *[f"Zarnow ledger {n} entry {k}: " + ("toll receipts and repairs " * 35) + f"#{n}-{k}"
                                      for k in range(12)])
        for n in range(6)
    ]
    web = sandbox_factory(pages)
    scripted_model.responder = Script(rules=[Rule("What do the ledgers record?", r"entry \d+: toll receipts")],
                                      queries=["Zarnow ledger"])
    request = make_request(web, max_pages=6, max_rounds=1)
    report = run(web, config, tmp_path / "task", request)
    memory = _memory(tmp_path / "task", request)
    evidence = memory["stage/evidence"]["items"]
    size = sum(len(json.dumps(item, separators=(",", ":"), ensure_ascii=False, sort_keys=True)) for item in evidence)
    assert size <= 48_000
    reasons = {item["reason"] for item in report.omitted}
    assert reasons == {"evidence-cap", "chunk-cap"}
    assert len(report.cited_chunks) <= 8
    assert len({c.evidence_id for c in report.conclusions}) <= 8
    assert "evidence-cap" in (tmp_path / "task" / "output" / "report.md").read_text()


def test_request_ranges_are_validated() -> None:
    base = {"id": "x", "tenant": "t", "principal": "p", "question": "q", "allowed_origins": ["https://a.test"]}
    for field, value in [("max_queries", 4), ("max_pages", 7), ("max_rounds", 5), ("max_searches", 13),
                         ("max_read_pages", 17), ("max_model_calls", 7), ("max_model_calls", 25),
                         ("research_seconds", 0), ("research_seconds", 3601), ("research_type", "sports")]:
        with pytest.raises(InvalidRequest):
            parse_request({**base, field: value})
    assert parse_request({**base, "research_type": "policy"}).research_type == "policy"


def test_the_second_hop_searches_the_name_the_evidence_mentions() -> None:
    """A gap whose answer lies behind a name only the evidence mentions: that name is searched
    next (before the assessment's question-form query, which an AND search cannot answer)."""
    from ditto_nb.patterns.deep_research.queries import bridge_specs, with_bridges

    topic = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
    evidence: list[Any] = [{"id": "E1", "title": "Kiss and Tell (1945 film)", "text":
                            "Kiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple "
                            "as Corliss Archer."}]
    gap: list[Any] = [{"index": 1, "question": "Which government position did this actress hold?", "status": "gap"}]
    hop = bridge_specs(topic, gap, evidence, tried=["Kiss and Tell", "Corliss Archer"])
    assert [s["text"] for s in hop] == ["Shirley Temple"]
    proposed: list[Any] = [{"text": "Who played Corliss Archer in Kiss and Tell?", "fallbacks": [], "entity": ""}]
    assert [s["text"] for s in with_bridges(hop, proposed, 2)] == ["Shirley Temple", proposed[0]["text"]]
    # already searched, or no gap left, or a proposed query that names it: nothing added
    assert bridge_specs(topic, gap, evidence, tried=["shirley temple"]) == []
    assert bridge_specs(topic, [{**gap[0], "status": "covered"}], evidence, tried=[]) == []
    named: list[Any] = [{"text": "Shirley Temple government", "fallbacks": [], "entity": ""}]
    assert [s["text"] for s in with_bridges(hop, named, 2)] == ["Shirley Temple government"]
