"""The repair runs only for a problem it can mend (a missing quote): a draft whose every problem
says the answer is not the asked fact is declined without the repair call (``repair-mendable-only``),
and switching the step off by name brings the repair back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa.rule_set import REPAIR_MENDABLE_ONLY, mendable
from ditto_nb.sandbox import SandboxWeb, wiki_url
from tests.patterns.web_qa.helpers import Script, make_request, run_once

ORVAL = "Orval Keep is a hill fort whose gate faces the sea and whose walls are painted ochre."
QUESTION = "What colour are the walls of Orval Keep painted?"


def _label(chunks: list[tuple[str, str, str]]) -> str:
    return next(label for label, _host, text in chunks if text.startswith("Orval Keep"))


def _repeats(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
    """The answer repeats the question's own words (repeats-question: not the asked fact)."""
    return {"status": "answered", "answer": "Orval Keep",
            "claims": [{"chunk_id": _label(chunks), "claim": "Orval Keep has walls painted ochre."}]}


def _unquoted(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
    """The answer's words are in no quote (answer-quoted: a quote is missing, mendable)."""
    return {"status": "answered", "answer": "crimson",
            "claims": [{"chunk_id": _label(chunks), "claim": "Orval Keep's gate faces the sea."}]}


def _ochre(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {"status": "answered", "answer": "ochre",
            "claims": [{"chunk_id": _label(chunks), "claim": "Orval Keep has walls painted ochre."}]}


async def _keep(tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any, script: Script,
                **kwargs: Any) -> Any:
    wiki: SandboxWeb = sandbox_factory([{"url": wiki_url("Orval Keep"), "title": "Orval Keep", "paragraphs": [ORVAL]}])
    scripted_model.responder = script
    request = make_request(wiki, question=QUESTION, max_queries=1, max_pages=2)
    search = SearchSetup.from_sandbox(wiki, policy_overrides={"retries": 0})
    return await run_once(tmp_path / "t", request, config, search, scripted_model, **kwargs)


def test_only_a_missing_quote_is_mendable() -> None:
    def check(rule: str) -> Any:
        return {"rule": rule, "phase": "check", "round": "answer", "changed": False, "before": "", "after": "",
                "note": ""}
    assert mendable([])  # no rule problem: verification failures go to the repair as before
    assert mendable([check("answer-quoted")]) and mendable([check("repeats-question"), check("sides-quoted")])
    assert not mendable([check("repeats-question")])
    assert not mendable([check("described-bridge"), check("tied-years")])
    assert not mendable([check("one-side")])


async def test_an_answer_that_is_not_the_asked_fact_is_declined_without_a_repair(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    script = Script(queries=["Orval Keep"], answer=_repeats, repair=_ochre)
    report = await _keep(tmp_path, sandbox_factory, config, scripted_model, script)
    assert "repair" not in script.seen and "regrade" not in script.seen
    assert report.answer.status == "insufficient-evidence"
    rules = [r.rule for r in report.answer.rules]
    assert rules == ["repeats-question", REPAIR_MENDABLE_ONLY], rules


async def test_with_the_step_off_the_repair_runs(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    script = Script(queries=["Orval Keep"], answer=_repeats, repair=_ochre)
    report = await _keep(tmp_path, sandbox_factory, config, scripted_model, script, rules_off=[REPAIR_MENDABLE_ONLY])
    assert script.seen.count("repair") == 1
    assert report.answer.status == "answered" and report.answer.text == "ochre"
    assert REPAIR_MENDABLE_ONLY not in [r.rule for r in report.answer.rules]


async def test_a_missing_quote_still_goes_to_the_repair(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    script = Script(queries=["Orval Keep"], answer=_unquoted, repair=_ochre)
    report = await _keep(tmp_path, sandbox_factory, config, scripted_model, script)
    assert script.seen.count("repair") == 1
    assert report.answer.status == "answered" and report.answer.text == "ochre"
    assert "answer-quoted" in [r.rule for r in report.answer.rules]


def test_only_not_yet_compared_problems_go_to_the_compare_step() -> None:
    """``compares``: every check problem must say the draft is not yet the comparison's answer."""
    from ditto_nb.patterns.web_qa.rule_set import RULES, compares

    def check(rule: str) -> Any:
        return {"rule": rule, "phase": "check", "round": "answer", "changed": False, "before": "x", "after": "x",
                "note": "answer: x"}

    assert {rule.name for rule in RULES if rule.compares} == {"sides-quoted", "one-side"}
    assert compares([check("sides-quoted")]) and compares([check("one-side"), check("sides-quoted")])
    assert not compares([]) and not compares([check("sides-quoted"), check("answer-quoted")])
