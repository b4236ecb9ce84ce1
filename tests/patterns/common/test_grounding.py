"""The shared grounded-answer component: one review rule, at most one second attempt."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from ditto_nb.patterns.common.grounding import Attempt, ground, review_passes

QUOTE = "The bridge opened in 1937 after four years of work."


@pytest.mark.parametrize(("verdict", "statement", "policy", "passes"), [
    ("supported", "It opened in 1937.", "explicit", True),
    (None, "It opened in 1937.", "explicit", False),           # Web QA needs an explicit verdict
    ("not stated", "It opened in 1937.", "explicit", False),
    (None, "It opened in 1937.", "refusal", True),             # research rejects only a refusal
    ("not stated", "It opened in 1937.", "refusal", False),
    ("not stated", "The bridge opened in 1937", "refusal", True),   # a verbatim excerpt always passes
    (None, "The bridge opened in 1937", "explicit", True),
])
def test_one_review_rule_for_both_policies(verdict: str | None, statement: str, policy: Any, passes: bool) -> None:
    assert review_passes(verdict, statement, QUOTE, policy) is passes


def _drive(gen: Generator[Any, Any, Any]) -> tuple[list[str], Any]:
    """Run a plan generator, answering every yielded step with its own name."""
    steps: list[str] = []
    try:
        step = next(gen)
        while True:
            steps.append(step)
            step = gen.send(step)
    except StopIteration as stop:
        return steps, stop.value


def _first() -> Generator[Any, Any, Attempt[str, str, str]]:
    yield "answer"
    return Attempt("answer", "draft", kept=[], withheld=["claim one: quote not found"], problems=["claim one"])


def test_a_failed_first_attempt_gets_one_repair_and_no_more() -> None:
    calls: list[str] = []

    def second(one: Attempt[str, str, str]) -> Generator[Any, Any, Attempt[str, str, str] | None]:
        calls.append(one.round)
        yield "repair"
        return Attempt("repair", "repaired", kept=["claim one"], withheld=[])

    steps, grounding = _drive(ground(_first, second))
    assert steps == ["answer", "repair"] and calls == ["answer"]
    assert grounding.repaired and grounding.rounds == ["answer", "repair"]
    assert grounding.final.kept == ["claim one"] and grounding.first.withheld == ["claim one: quote not found"]


def test_a_first_attempt_that_stands_spends_no_repair() -> None:
    def second(one: Attempt[str, str, str]) -> Generator[Any, Any, Attempt[str, str, str] | None]:
        yield from ()
        return None

    steps, grounding = _drive(ground(_first, second))
    assert steps == ["answer"] and not grounding.repaired
    assert grounding.final is grounding.first and grounding.final.withheld == ["claim one: quote not found"]
