"""Answers code makes more precise from verified text: the "Place, Region" a quote writes, the number
the question counts, the former name a chunk ties the question's years to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa.narrow import counted_answer, narrower_answer, renamed_answer
from ditto_nb.sandbox import wiki_url
from tests.patterns.web_qa.helpers import Script, make_request, run_once

QUESTION = 'The director of the romantic comedy "Big Stone Gap" is based in what New York city?'
PERSON = ("Adriana Trigiani is an Italian American best-selling author of sixteen books, television writer, "
          "film director, and entrepreneur based in Greenwich Village, New York City.")
FILM = "Big Stone Gap is a 2014 American romantic comedy film written and directed by Adriana Trigiani."


def _claims(quote: str) -> list[Any]:
    return [{"claim": "She is an author.", "citations": [{"quote": quote, "title": "T"}], "verification": {}}]


def test_an_answer_repeating_the_question_takes_the_place_its_quote_names_before_it() -> None:
    # seen on the real wiki: "New York City" (every word in the question), quote "… Greenwich Village, New York City."
    narrowed = narrower_answer(QUESTION, "New York City", _claims(PERSON))
    assert narrowed is not None
    answer, claims = narrowed
    assert answer == "Greenwich Village, New York City"
    assert claims[0]["claim"] == PERSON  # restated as the quote's sentence: it states the new answer
    assert narrower_answer("In what Texas county is the lake?", "Texas",
                           _claims("The lake lies in Harris County, Texas, near Houston."))[0] == "Harris County, Texas"


def test_nothing_is_narrowed_without_a_repeat_or_a_place_before_it() -> None:
    assert narrower_answer(QUESTION, "Greenwich Village", _claims(PERSON)) is None          # says something new
    assert narrower_answer(QUESTION, "New York City", _claims("She lives in New York City.")) is None  # no place
    assert narrower_answer("Is she based in New York?", "Yes", _claims(PERSON)) is None
    # who-questions are not narrowed: "John, Paul" is a list of people, not a place
    assert narrower_answer("Who sang with Paul in the band?", "Paul", _claims("The band was John, Paul and Ringo.")) is None
    # the name before the comma repeats the question too: still nothing new
    assert narrower_answer("In what New York borough was he born?", "New York",
                           _claims("He was born in New York, New York.")) is None


@pytest.mark.asyncio
async def test_web_qa_publishes_the_narrowed_answer_without_a_repair(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    web = sandbox_factory([
        {"url": "https://alpha.test/wiki/Big_Stone_Gap_(film)", "title": "Big Stone Gap (film)", "paragraphs": [FILM]},
        {"url": "https://alpha.test/wiki/Adriana_Trigiani", "title": "Adriana Trigiani", "paragraphs": [PERSON]},
    ])

    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        label = next(lbl for lbl, _host, text in chunks if "Greenwich" in text)
        return {"status": "answered", "answer": "New York City",
                "claims": [{"claim": "Adriana Trigiani is based in Greenwich Village, New York City.",
                            "chunk_id": label, "quote": ""}]}

    script = Script(queries=["Big Stone Gap"], answer=answer)
    scripted_model.responder = script
    report = await run_once(tmp_path / "t", make_request(web, question=QUESTION), config,
                            SearchSetup.from_sandbox(web), scripted_model)
    assert report.answer.status == "answered"
    assert report.answer.text == "Greenwich Village, New York City"
    assert "repair" not in script.seen
    assert all(c.verification.quotes_verified for c in report.answer.claims)


ARENA = ("The Androscoggin Bank Colisée is a 4,000 capacity (3,677 seated) multi-purpose arena in Lewiston, Maine, "
         "that opened in 1958.")
SEATS = "The arena where the Lewiston Maineiacs played their home games can seat how many people?"


def test_a_number_the_question_does_not_count_becomes_the_one_its_quote_sentence_counts() -> None:
    # seen on the real wiki: "4,000" answered, and repaired to "4,000" again after "answer with 3,677"
    counted = counted_answer(SEATS, "4,000", _claims(ARENA))
    assert counted is not None
    answer, claims = counted
    assert answer == "3,677 seated"
    assert claims[0]["claim"] == ARENA
    assert counted_answer(SEATS, "3,677", _claims(ARENA)) is None               # already the counted number
    assert counted_answer("When did the arena open?", "4,000", _claims(ARENA)) is None  # not a how-many question
    assert counted_answer("How many people does the arena hold?", "4,000",
                          _claims("The arena holds 4,000 people and opened in 1958.")) is None


@pytest.mark.asyncio
async def test_web_qa_publishes_the_counted_number_without_a_repair(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    web = sandbox_factory([
        {"url": "https://alpha.test/wiki/Lewiston_Maineiacs", "title": "Lewiston Maineiacs",
         "paragraphs": ["The Lewiston Maineiacs played their home games at the Androscoggin Bank Colisée."]},
        {"url": "https://alpha.test/wiki/Androscoggin_Bank_Colisée", "title": "Androscoggin Bank Colisée",
         "paragraphs": [ARENA]},
    ])

    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        label = next(lbl for lbl, _host, text in chunks if "3,677" in text)
        return {"status": "answered", "answer": "4,000",
                "claims": [{"claim": "The Androscoggin Bank Colisée is a 4,000 capacity arena.", "chunk_id": label,
                            "quote": ""}]}

    script = Script(queries=["Lewiston Maineiacs"], answer=answer)
    scripted_model.responder = script
    report = await run_once(tmp_path / "t", make_request(web, question=SEATS), config,
                            SearchSetup.from_sandbox(web), scripted_model)
    assert report.answer.status == "answered"
    assert report.answer.text == "3,677 seated"
    assert "repair" not in script.seen
    assert all(c.verification.quotes_verified for c in report.answer.claims)


FORMER = "The Vermont Catamounts men's soccer team competes in a conference that was formerly known as what from 1988 to 1996?"
CONFERENCE = ("The America East Conference is a collegiate athletic conference whose members are located mainly in the Northeastern "
              "United States. "
              "The conference was known as the Eastern College Athletic Conference-North from 1979 to 1988 and the "
              "North Atlantic Conference from 1988 to 1996.")
TEAM = "The Vermont Catamounts men's soccer team competes in the America East Conference."


def _record(title: str, text: str) -> Any:
    return {"chunk_id": title, "url": wiki_url(title), "final_url": wiki_url(title), "origin": "https://wiki.test",
            "title": title, "fetched_at": "2026-12-04T00:00:00Z", "sha256": "0" * 64, "paragraph_index": 0,
            "text": text}


def test_a_former_name_asked_for_becomes_the_one_a_shown_chunk_ties_the_years_to() -> None:
    shown = [_record("Vermont Catamounts men's soccer", TEAM), _record("America East Conference", CONFERENCE)]
    renamed = renamed_answer(FORMER, "America East Conference", _claims(TEAM), shown)
    assert renamed is not None
    answer, claims = renamed
    assert answer == "North Atlantic Conference"
    first = claims[0]
    assert first["claim"].startswith("The conference was known as")
    assert first["citations"][0]["title"] == "America East Conference"
    cited = first["citations"][0]
    assert CONFERENCE[cited["start"]:cited["end"]] == cited["quote"] == first["claim"]       # exact chunk text
    assert len(claims) == 2                                                       # the draft's claim is kept
    assert renamed_answer(FORMER, "North Atlantic Conference", _claims(CONFERENCE), shown) is None  # already it
    # no name asked (the years qualify what the team did), or the tying text not shown: unchanged
    assert renamed_answer("Which conference did the team compete in from 1988 to 1996?", "America East Conference",
                          _claims(TEAM), shown) is None
    assert renamed_answer(FORMER, "America East Conference", _claims(TEAM), shown[:1]) is None


@pytest.mark.asyncio
async def test_web_qa_publishes_the_former_name_without_a_repair(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    web = sandbox_factory([
        {"url": "https://alpha.test/wiki/Vermont_Catamounts_men's_soccer", "title": "Vermont Catamounts men's soccer",
         "paragraphs": [TEAM]},
        {"url": "https://alpha.test/wiki/America_East_Conference", "title": "America East Conference",
         "paragraphs": [CONFERENCE]},
    ])

    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        label = next(lbl for lbl, _host, text in chunks if "competes in the America East" in text)
        return {"status": "answered", "answer": "America East Conference",
                "claims": [{"claim": "The team competes in the America East Conference.", "chunk_id": label,
                            "quote": ""}]}

    script = Script(queries=["Vermont Catamounts"], answer=answer)
    scripted_model.responder = script
    report = await run_once(tmp_path / "t", make_request(web, question=FORMER), config,
                            SearchSetup.from_sandbox(web), scripted_model)
    assert report.answer.status == "answered"
    assert report.answer.text == "North Atlantic Conference"
    assert "repair" not in script.seen
    assert all(c.verification.quotes_verified for c in report.answer.claims)
    assert any("North Atlantic Conference from 1988 to 1996" in c.claim for c in report.answer.claims)
