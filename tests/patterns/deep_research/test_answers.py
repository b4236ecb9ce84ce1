"""Coverage decided from the published findings by the ``coverage`` call (issue 32, items 2 and 4)."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import BudgetExceeded
from ditto_nb.patterns.common.report_records import ConclusionItem, CoverageItem, WithheldFinding
from ditto_nb.patterns.deep_research import ResearchReport, schemas
from ditto_nb.patterns.deep_research.answers import (
    NO_CALL_LEFT,
    STATED,
    answers_question,
    candidates,
    chains,
    decide_coverage,
    own_words,
    states_asked_kind,
    states_its_words,
)
from ditto_nb.patterns.deep_research.published import summary_of

from .helpers import Rule, Script, bridge_corpus, make_request, run

TOPIC = "Where was the designer of the Zarnow Bridge born?"
DESIGNED: ConclusionItem = {"index": 2, "statement": "The Zarnow Bridge was designed by Ilse Marrek.",
                            "quote": "The Zarnow Bridge was designed by engineer Ilse Marrek.",
                            "evidence_id": "E1", "title": "Zarnow Bridge"}
BORN: ConclusionItem = {"index": 1, "statement": "Ilse Marrek was born in Kessendorf.",
                        "quote": "Ilse Marrek was born in Kessendorf in 1881.", "evidence_id": "E4",
                        "title": "Ilse Marrek"}


@pytest.fixture
def config(scripted_config: Any, redis_url: str) -> Any:
    return scripted_config(redis_url=redis_url)


def _rows(*questions: str) -> list[CoverageItem]:
    return [{"index": i, "question": q, "status": "gap", "evidence_ids": [], "gap": "", "next_queries": []}
            for i, q in enumerate(questions, start=1)]


def _decide(reply: dict[str, Any] | None, coverage: list[CoverageItem], kept: list[ConclusionItem],
            withheld: list[WithheldFinding] | None = None) -> tuple[list[str], Any]:
    """Run :func:`decide_coverage` with an ``ask`` that returns ``reply`` as the call's validated
    output (None: the model budget is spent)."""
    asked: list[str] = []

    def ask(key: str, purpose: str, messages: list[dict[str, str]], schema: type[Any]) -> Generator[Any, Any, Any]:
        asked.append(purpose)
        if reply is None:
            raise BudgetExceeded("model budget of 10 would be exceeded")
        asked.append(messages[-1]["content"])
        yield purpose
        return schema.model_validate(reply)

    gen = decide_coverage(ask, TOPIC, coverage, kept, withheld or [])
    try:
        step = next(gen)
        while True:
            step = gen.send(step)
    except StopIteration as stop:
        return asked, stop.value


def test_code_picks_the_finding_and_the_call_judges_each_pair() -> None:
    # The drafter numbered the findings the wrong way round (the hand-read failure).
    coverage = _rows("Which engineer planned the bridge?", "Where was Ilse Marrek born?")
    reply = {"verdicts": [{"n": 1, "verdict": "does not answer", "reason": "the designer, not the birthplace"},
                          {"n": 2, "verdict": "answers", "reason": "names the birthplace"},
                          {"n": 3, "verdict": "answers", "reason": "names the designer"}]}
    asked, answers = _decide(reply, coverage, [DESIGNED, BORN])
    prompt = asked[1]
    assert asked[0] == "coverage"
    # the topic is judged against every finding it admits, a sub-question against code's pick
    assert f"1. Question: {TOPIC}\n   Finding: {DESIGNED['statement']}" in prompt
    assert f"2. Question: {TOPIC}\n   Finding: {BORN['statement']}" in prompt
    assert f"3. Question: Which engineer planned the bridge?\n   Finding: {DESIGNED['statement']}" in prompt
    # a finding restating its sub-question with the answer is decided by code, not shown to the call
    assert prompt.count("Question:") == 4 and "Where was Ilse Marrek born?" not in prompt
    # the two findings as one chain for the topic, shown last (the sub-questions keep their numbers)
    assert prompt.endswith(f"4. Question: {TOPIC}\n   Finding: {DESIGNED['statement']} {BORN['statement']}")
    assert [(r["status"], r["evidence_ids"]) for r in answers.coverage] == [("covered", ["E1"]), ("covered", ["E4"])]
    assert answers.coverage[0]["reason"] == "finding 1 answers it: names the designer"
    assert answers.coverage[1]["reason"] == f"finding 2 answers it: {STATED}"
    assert answers.topic == (1,)


def test_a_finding_restates_its_question_only_with_every_name_every_word_and_the_asked_kind() -> None:
    assert states_its_words("Where was Ilse Marrek born?", BORN)
    assert not states_its_words("Where was Hans Marrek born?", BORN)  # a name it does not give
    assert not states_its_words("Which river does the Zarnow Bridge cross?", DESIGNED)  # no asked word
    assert not states_its_words("Which engineer planned the bridge?", DESIGNED)  # no name to match
    # every other content word, not half of them ("smart home" is what is asked)
    remote: ConclusionItem = {**DESIGNED, "statement": "The Zarnow Remote is a device that controls the bridge lights."}
    assert not states_its_words("Are there smart home devices controlled by the Zarnow Remote?", remote)
    # a question with only its names ("Who was …?") is restated by no sentence naming them
    assert not states_its_words("Who was Ilse Marrek?", BORN)
    # the asked kind by its form: a year, a country, a number the question does not hold
    opened: ConclusionItem = {**DESIGNED, "statement": "The Zarnow Bridge was opened in 1931."}
    assert states_its_words("What year was the Zarnow Bridge opened?", opened)
    assert not states_its_words("In which country was the Zarnow Bridge opened?", opened)
    abroad: ConclusionItem = {**DESIGNED, "statement": "The Zarnow Bridge was opened in Poland."}
    assert states_its_words("In which country was the Zarnow Bridge opened?", abroad)
    assert not states_its_words("When was the Zarnow Bridge opened?", abroad)
    assert states_asked_kind("How many arches does the Zarnow Bridge have?", "The Zarnow Bridge has three arches.")
    assert not states_asked_kind("How many arches does the Zarnow Bridge have?", "The Zarnow Bridge has arches.")


def test_a_finding_stating_no_word_only_its_sub_question_asks_about_is_not_its_candidate() -> None:
    school: ConclusionItem = {"index": 1, "statement": "The school in Kessendorf is the Marrek Academy.",
                              "quote": "The school in Kessendorf is the Marrek Academy.", "evidence_id": "E3",
                              "title": "Marrek Academy"}
    coverage = _rows("What is the name of the school in Kessendorf?", "What is the name of the anthem of this school?")
    # "anthem" is the second sub-question's own word; "name" is the kind of answer, "school" is shared
    assert own_words(coverage[1]["question"], [coverage[0]["question"]]) == {"anthe"}
    asked, answers = _decide({"verdicts": []}, coverage, [school])
    assert asked == []  # the first row is decided by code (it restates its question); no pair is left for the call
    assert [row["status"] for row in answers.coverage] == ["covered", "gap"]
    assert answers.coverage[0]["reason"] == f"finding 1 answers it: {STATED}"
    assert answers.coverage[1]["reason"] == "no published finding shares its words"


def test_a_sub_question_told_apart_only_by_its_name_takes_only_findings_naming_it() -> None:
    coverage = _rows("Which country does Ilse Marrek play for?", "Which country does Hans Tamm play for?")
    marrek: ConclusionItem = {"index": 1, "statement": "Ilse Marrek plays for Denmark.",
                              "quote": "Ilse Marrek plays for Denmark.", "evidence_id": "E5", "title": "Ilse Marrek"}
    asked, answers = _decide({"verdicts": []}, coverage, [marrek])
    assert asked == []  # the first row restates its question; the second has no finding naming Hans Tamm
    assert [row["status"] for row in answers.coverage] == ["covered", "gap"]
    assert answers.coverage[1]["reason"] == "no published finding shares its words"


def test_a_sub_question_about_one_compared_side_takes_no_finding_about_the_other() -> None:
    sides = ["Ilse Marrek", "Hans Tamm"]
    others = ["Who was Ilse Marrek?", "What happened to Ilse Marrek after her death?"]
    tamm: ConclusionItem = {"index": 2, "statement": "Hans Tamm died on May 30, 1994.",
                            "quote": "Hans Tamm (July 1, 1909 – May 30, 1994) was an engineer.",
                            "evidence_id": "E6", "title": "Hans Tamm"}
    marrek: ConclusionItem = {"index": 2, "statement": "Ilse Marrek died in 1950.",
                              "quote": "Ilse Marrek died in 1950 in Kessendorf.", "evidence_id": "E4", "title": "Ilse Marrek"}
    question = "When did Ilse Marrek die?"
    assert candidates(question, [tamm], others=others) == [0]  # not a comparison topic: a candidate
    assert candidates(question, [tamm], others=others, sides=sides) == []  # about the other side
    assert candidates(question, [tamm, marrek], others=others, sides=sides) == [1]
    assert candidates("When did they die?", [tamm], others=others, sides=sides) == [0]  # names no side


def test_a_refused_pair_or_no_candidate_is_a_gap_with_its_reason() -> None:
    coverage = _rows("Which engineer planned the bridge?", "Which river does the Zarnow Bridge cross?",
                     "When was the Zarnow Bridge opened?")
    withheld: list[WithheldFinding] = [{"index": 3, "statement": "It opened in 1931.", "quote": "…",
                                        "evidence_id": "E2", "title": "Zarnow Bridge",
                                        "reasons": ["the quote does not state the number(s) 1931"]}]
    reply = {"verdicts": [{"n": 1, "verdict": "does not answer", "reason": "a person, not a place"},
                          {"n": 2, "verdict": "does not answer", "reason": "the designer, not the river"}]}
    asked, answers = _decide(reply, coverage, [DESIGNED], withheld)
    assert asked[1].count("Question:") == 2  # the topic and "Which engineer …"; the others share no word
    first, second, third = answers.coverage
    assert first["status"] == "gap" and first["reason"] == "finding 1 does not answer it: the designer, not the river"
    assert second["status"] == "gap" and second["reason"] == "no published finding shares its words"
    assert third["reason"] == "its finding was withheld: the quote does not state the number(s) 1931"
    assert all(row["gap"] == row["reason"] for row in answers.coverage)
    assert answers.topic == ()


def test_a_finding_sharing_nothing_with_the_topic_is_never_shown_as_its_answer() -> None:
    other: ConclusionItem = {"index": 1, "statement": "Kessendorf lies on the Lenne.",
                             "quote": "Kessendorf lies on the Lenne.", "evidence_id": "E7", "title": "Kessendorf"}
    reply = {"verdicts": [{"n": 1, "verdict": "answers", "reason": "a place"}]}
    asked, answers = _decide(reply, _rows("Where is Kessendorf?"), [other])
    # the topic admits no finding: only the sub-question's pair is judged (a question of names
    # alone is never decided by code)
    assert asked[0] == "coverage" and f"Question: {TOPIC}" not in asked[1]
    assert answers.topic == () and answers.coverage[0]["status"] == "covered"


def test_conflict_rows_stay_and_no_call_without_findings() -> None:
    coverage = _rows("Who designed the Zarnow Bridge?")
    coverage[0]["status"] = "conflict"
    asked, answers = _decide({"verdicts": []}, coverage, [])
    assert asked == [] and answers.coverage[0]["status"] == "conflict" and answers.topic == ()
    assert "disagree" in answers.coverage[0]["reason"]


def test_a_spent_model_budget_falls_back_to_the_drafters_numbers_and_says_so() -> None:
    asked, answers = _decide(None, _rows("Where was Ilse Marrek born?"), [BORN])
    assert asked == ["coverage"]
    assert answers.coverage[0]["status"] == "covered" and NO_CALL_LEFT in answers.coverage[0]["reason"]


def test_two_findings_judged_to_answer_the_topic_together_lead_as_a_chain() -> None:
    # the designer's finding names the topic's bridge and the name the birthplace's finding names
    assert chains(TOPIC, [DESIGNED, BORN]) == [(0, 1)]
    assert chains(TOPIC, [BORN, DESIGNED]) == [(1, 0)]
    # a finding naming nothing the topic names starts no chain; a name the topic gives links none
    other: ConclusionItem = {**BORN, "statement": "Kessendorf lies on the Zarnow river."}
    assert chains(TOPIC, [BORN, other]) == []
    assert chains(TOPIC, [DESIGNED, {**BORN, "statement": "The Zarnow Bridge was opened in 1931."}]) == []
    # neither finding alone answers the topic, the chain does: the chain leads, in its order
    reply = {"verdicts": [{"n": 1, "verdict": "does not answer", "reason": "the designer only"},
                          {"n": 2, "verdict": "does not answer", "reason": "whose birthplace?"},
                          {"n": 3, "verdict": "answers", "reason": "names the designer"},
                          {"n": 4, "verdict": "answers", "reason": "the designer was born in Kessendorf"}]}
    _asked, answers = _decide(reply, _rows("Which engineer planned the bridge?", "Where was Ilse Marrek born?"),
                              [BORN, DESIGNED])
    assert answers.topic == (1, 0)
    # a single finding judged to answer the topic wins over a chain
    reply["verdicts"][0] = {"n": 1, "verdict": "answers", "reason": "the birthplace"}
    assert _decide(reply, _rows("Which engineer planned the bridge?"), [BORN, DESIGNED])[1].topic == (0,)
    # a chain's summary states both findings and quotes both
    text = summary_of([DESIGNED, BORN], [], answered=2)
    assert text.startswith(f"Answer: {DESIGNED['statement']} {BORN['statement']} "
                           f"(quote: \"{DESIGNED['quote']}\"; \"{BORN['quote']}\")")
    assert "Established" not in text


def test_the_summary_answers_the_topic_first_quoted() -> None:
    text = summary_of([BORN, DESIGNED], ["When was it opened: no published finding answers it"], answered=1)
    assert text.startswith('Answer: Ilse Marrek was born in Kessendorf. (quote: "Ilse Marrek was born in Kessendorf in 1881.")')
    assert "Also established: The Zarnow Bridge was designed by Ilse Marrek." in text
    assert text.endswith("Not established: When was it opened.")
    assert summary_of([DESIGNED], [], answered=0).startswith("No published finding was judged to answer the topic")


def test_schema_asks_for_one_verdict_per_pair() -> None:
    schema = schemas.coverage_output(3).model_json_schema()
    assert schema["properties"]["verdicts"]["minItems"] == schema["properties"]["verdicts"]["maxItems"] == 3


def test_research_report_leads_with_the_topics_answer(sandbox_factory: Any, scripted_model: Any, config: Any,
                                                      tmp_path: Path) -> None:
    web = sandbox_factory(bridge_corpus())
    script = Script(rules=[Rule("Who designed the Zarnow Bridge?", r"designed by engineer \w+ \w+"),
                           Rule("Where was the designer born?", r"was born in \w+",
                                next_query=lambda _lines: "Ilse Marrek")],
                    queries=["Zarnow Bridge", "Ilse Marrek"])
    scripted_model.responder = script
    report = run(web, config, tmp_path / "task", make_request(web, question=TOPIC))
    assert isinstance(report, ResearchReport)
    assert script.purposes[-1] == "coverage"
    assert [row["status"] for row in report.coverage] == ["covered", "covered"]
    assert all(row["reason"].startswith("finding ") for row in report.coverage)
    # code picks the birthplace finding for the topic ("born"); the call says it answers: it leads
    assert report.summary.startswith("Answer: ") and "born in Kessendorf" in report.summary.split("Also")[0]
    assert "born in Kessendorf" in report.conclusions[0].statement


def test_a_two_hop_answer_need_not_name_the_first_entity() -> None:
    trigiani: ConclusionItem = {
        "index": 1, "evidence_id": "E3", "title": "Adriana Trigiani",
        "statement": "Adriana Trigiani is a film director based in Greenwich Village, New York City.",
        "quote": "Adriana Trigiani is an Italian American best-selling author, film director, and entrepreneur "
                 "based in Greenwich Village, New York City."}
    assert answers_question("What city does the director of 'Big Stone Gap' work in?", trigiani)
    assert not answers_question("When was 'Big Stone Gap' released?", trigiani)
