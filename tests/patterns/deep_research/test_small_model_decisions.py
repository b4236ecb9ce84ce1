"""Code-side decisions that let a small local model get through a research task without
weakening verification: quote location, atomic findings, plan clarity, skipped assessments."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.patterns.deep_research.coverage import normalize_coverage
from ditto_nb.patterns.deep_research.plan import _normalize_plan
from ditto_nb.patterns.deep_research.prompts import shown_text
from ditto_nb.patterns.deep_research.report import check_draft
from ditto_nb.workers import open_task_store
from tests.patterns.deep_research.helpers import Rule, Script, make_request, run, wiki

SHA = "ab" * 32


def _chunk(eid: str, index: int, text: str, origin: str = "https://wiki.test") -> dict[str, Any]:
    return {"id": eid, "chunk_id": f"{SHA[:12]}:{index}", "text": text, "url": f"{origin}/wiki/Zarnow",
            "final_url": f"{origin}/wiki/Zarnow",
            "title": "Zarnow", "origin": origin, "fetched_at": "2026-01-01T00:00:00+00:00", "sha256": SHA,
            "paragraph_index": index}


SELECTED = [_chunk("E1", 0, "The Zarnow Bridge is a steel arch bridge over the Lenne river."),
            _chunk("E2", 1, "It was designed by engineer Ilse Marrek and completed in 1931, after two floods.")]


def test_quote_under_the_wrong_id_is_not_reattributed() -> None:
    # The one quote rule (ditto_nb.evidence.quotes): a quote verifies in the chunk it names only.
    draft = {"conclusions": [{"index": 1, "statement": "Marrek designed it.", "chunk_id": "E1",
                              "quote": "designed by engineer Ilse Marrek"},
                             {"index": 1, "statement": "Marrek designed it.", "chunk_id": "E2",
                              "quote": "\u201cdesigned by engineer Ilse Marrek and completed in 1931.\u201d"}]}
    conclusions, problems = check_draft(draft, SELECTED)
    assert problems == ["conclusion 1: not-found (E1)"]
    [c] = conclusions
    assert (c["evidence_id"], c["paragraph_index"]) == ("E2", 1)
    assert SELECTED[1]["text"][c["start"]:c["end"]] == c["quote"] == "designed by engineer Ilse Marrek and completed in 1931"


def test_unverifiable_findings_are_reported_one_problem_each() -> None:
    good = {"index": 1, "statement": "It is a steel arch.", "chunk_id": "E1", "quote": "a steel arch bridge"}
    bad = {"index": 1, "statement": "It cost a lot.", "chunk_id": "E2", "quote": "it cost 3 million marks"}
    conclusions, problems = check_draft({"conclusions": [good, bad]}, SELECTED)
    assert [c["quote"] for c in conclusions] == ["a steel arch bridge"]
    assert len(problems) == 1 and "conclusion 2" in problems[0]


def request_web() -> Any:
    """Just enough of a sandbox web for :func:`make_request`."""
    return type("Web", (), {"allowed_origins": ("https://wiki.test",)})()


def test_clear_false_without_a_clarification_question_is_researched() -> None:
    request = make_request(request_web(), max_queries=1)
    plan = _normalize_plan(request, {"clear": False, "goal": "g", "sub_questions": ["Who designed it?", "When?"],
                                     "queries": ["Zarnow Bridge designer"], "clarification_questions": []})
    assert plan["clear"] and plan["sub_questions"] == ["Who designed it?"]
    assert plan["queries"] == ["Zarnow Bridge designer"] and plan["clarification_questions"] == []
    asks = {"clear": False, "sub_questions": [], "queries": [], "clarification_questions": ["Which market?"]}
    vague = _normalize_plan(make_request(request_web(), question="markets", max_queries=1), asks)
    assert not vague["clear"] and vague["clarification_questions"] == ["Which market?"]


def test_a_topic_that_names_something_is_researched_even_if_the_model_asks() -> None:
    # a small model asks for clarification of clear questions; a named entity is enough to search
    request = make_request(request_web(), max_queries=1)  # "Zarnow Bridge: who designed it ..."
    plan = _normalize_plan(request, {"clear": False, "sub_questions": [], "queries": [],
                                     "clarification_questions": ["Which bridge?"]})
    assert plan["clear"] and plan["clarification_questions"] == []
    assert plan["sub_questions"] == [request.question] and plan["queries"] == [request.question]


def test_gap_with_evidence_and_nothing_missing_is_covered() -> None:
    evidence = [{"id": "E1", "origin": "https://a.test", "text": "x"}]
    rows = normalize_coverage([{"index": 1, "status": "gap", "evidence_ids": ["E1"], "gap": "", "next_queries": []},
                               {"index": 2, "status": "gap", "evidence_ids": ["E1"], "gap": "the year",
                                "next_queries": []},
                               {"index": 3, "status": "gap", "evidence_ids": ["E9"], "gap": "", "next_queries": []}],
                              ["q1", "q2", "q3"], evidence, cross_check=False)
    assert [r["status"] for r in rows] == ["covered", "gap", "gap"]
    crossed = normalize_coverage([{"index": 1, "status": "gap", "evidence_ids": ["E1"]}], ["q1"], evidence, True)
    assert crossed[0]["status"] == "gap"  # cross_check still needs two origins


def test_covered_needs_evidence_that_addresses_the_sub_question() -> None:
    """Seen on the real wiki: the 1.5B assessor called biology pages "covered" for a film's
    director, and research stopped after one round with most of its budget left."""
    evidence = [{"id": "E1", "origin": "https://a.test", "title": "Evolution",
                 "text": "Evolution is change in the heritable characteristics of populations."},
                {"id": "E2", "origin": "https://a.test", "title": "Evolution (2001 film)",
                 "text": "Evolution is a 2001 science fiction comedy film directed by Ivan Reitman."}]
    sub = ["Who directed the 2001 film Evolution?"]
    wrong = normalize_coverage([{"index": 1, "status": "covered", "evidence_ids": ["E1"]}], sub, evidence, False)
    assert wrong[0]["status"] == "gap"
    assert "does not address" in wrong[0]["gap"]
    right = normalize_coverage([{"index": 1, "status": "covered", "evidence_ids": ["E2"]}], sub, evidence, False)
    assert right[0]["status"] == "covered"
    other = normalize_coverage([{"index": 1, "status": "covered", "evidence_ids": ["E2"]}],
                               ["Where was Ivan Reitman born?"], evidence, False)
    assert other[0]["status"] == "gap"  # names the director, says nothing of a birthplace


def test_shown_text_is_a_word_boundary_prefix() -> None:
    text = "word " * 100
    shown = shown_text(text.strip(), 50)
    assert shown.endswith("…") and len(shown) <= 51 and text.startswith(shown[:-1])
    assert shown_text("short") == "short"


@pytest.fixture
def config(scripted_config: Any, redis_url: str) -> Any:
    return scripted_config(redis_url=redis_url)


def test_round_without_new_evidence_spends_no_assessment(
    sandbox_factory: Any, scripted_model: Any, config: Any, tmp_path: Path
) -> None:
    web = sandbox_factory([wiki("Zarnow Bridge", "The Zarnow Bridge was designed by engineer Ilse Marrek.")])
    script = Script(rules=[Rule("Who designed the Zarnow Bridge?", r"designed by engineer \w+ \w+"),
                           Rule("Where was the designer born?", r"was born in \w+",
                                next_query=lambda _lines: "Zarnow Bridge engineer")],
                    queries=["Zarnow Bridge"])
    scripted_model.responder = script
    request = make_request(web)
    report = run(web, config, tmp_path / "task", request)
    assert script.purposes == ["research-plan", "assess", "report", "review", "coverage"]
    assert report.stop_reason == "no-progress"
    # Round 2 found nothing new: no assessment, code reformulates; round 3 empty too → no-progress.
    assert [r["assessed"] for r in report.rounds] == [True, False, False]
    assert [r["new_evidence"] for r in report.rounds[1:]] == [0, 0]
    assert report.rounds[1]["next_queries"] and report.rounds[2]["queries"] == report.rounds[1]["next_queries"]

    async def memory() -> dict[str, Any]:
        store = open_task_store(tmp_path / "task")
        await store.setup()
        try:
            return dict(await store.items(request.namespace))
        finally:
            await store.close()

    rows = asyncio.run(memory())
    assert rows["budget/model"] == 5 and "ledger/model:assess:r2" not in rows
