"""Code decides a "both <kind>" comparison from each side's defining clause (issue 13: the model
answered "yes" to "Were Zab Judah and Muggsy Bogues both boxers?")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.patterns.common.compare.kinds import asked_kind, decide_kind, defining_clause
from ditto_nb.patterns.common.compare.sides import side_claims
from ditto_nb.sandbox import wiki_url
from tests.patterns.web_qa.helpers import Script
from tests.patterns.web_qa.test_comparison import OLDER, claim, labels, run_architects

JUDAH = claim("Zab Judah is an American boxer.", "Zab Judah (born October 27, 1977) is an American professional boxer.",
              "Zab Judah")
BOGUES = claim("Muggsy Bogues played in the NBA.",
               "Muggsy Bogues (born January 9, 1965) is a retired American professional basketball player.",
               "Muggsy Bogues")
AYER = claim("David Ayer is a film director.", "David Ayer (born January 18, 1968) is an American film director.",
             "David Ayer")
WATERS = claim("John Waters is a filmmaker.", "John Waters (born April 22, 1946) is an American filmmaker and actor.",
               "John Waters")
SIDES = ["Zab Judah", "Muggsy Bogues"]


@pytest.mark.parametrize(("question", "sides", "nouns"), [
    ("Were Zab Judah and Muggsy Bogues both boxers?", SIDES, ["boxers"]),
    ("Are both Zab Judah and Muggsy Bogues professional boxers?", SIDES, ["professional", "boxers"]),
    ("Were David Ayer and John Waters both film directors?", ["David Ayer", "John Waters"], ["film", "directors"]),
    ("Were Zab Judah and Muggsy Bogues both born in New York?", SIDES, []),   # a relation, not a kind
    ("Did Zab Judah and Muggsy Bogues both work as boxers?", SIDES, []),
    ("Were Zab Judah and Muggsy Bogues both American?", SIDES, []),           # nationality decides it
    ("Were Zab Judah and Muggsy Bogues of the same nationality?", SIDES, []),
    ("Who was born first, Zab Judah or Muggsy Bogues?", SIDES, []),
])
def test_the_asked_kind(question: str, sides: list[str], nouns: list[str]) -> None:
    assert asked_kind(question, sides) == nouns


def test_yes_when_both_clauses_state_the_kind_no_when_one_states_none_of_it() -> None:
    boxers = "Were Zab Judah and Muggsy Bogues both boxers?"
    assert defining_clause("Muggsy Bogues", "Zab Judah", [BOGUES]) == "retired american professional basketball player"
    assert decide_kind(boxers, SIDES, [JUDAH, BOGUES]) == "no"
    assert decide_kind(boxers, SIDES, [BOGUES, JUDAH]) == "no"
    players = "Were Zab Judah and Muggsy Bogues both players?"
    assert decide_kind(players, SIDES, [JUDAH, BOGUES]) == "no"
    americans = "Were Zab Judah and Muggsy Bogues both professional athletes?"
    assert decide_kind(americans, SIDES, [JUDAH, BOGUES]) is None  # "professional" matches both, "athletes" neither
    both_boxers = claim("Muggsy Bogues is a boxer.", "Muggsy Bogues is a retired boxer.", "Muggsy Bogues")
    assert decide_kind(boxers, SIDES, [JUDAH, both_boxers]) == "yes"


def test_a_partial_match_or_a_missing_side_decides_nothing() -> None:
    directors = "Were David Ayer and John Waters both film directors?"
    # "filmmaker" shares "film" but not "director": the model's answer stands
    assert decide_kind(directors, ["David Ayer", "John Waters"], [AYER, WATERS]) is None
    assert decide_kind("Were Zab Judah and Muggsy Bogues both boxers?", SIDES, [JUDAH]) is None


def test_the_clause_must_define_the_side_not_someone_it_names() -> None:
    fought = claim("Zab Judah fought Kostya Tszyu.",
                   "In 2001 Zab Judah fought Kostya Tszyu, who is a retired basketball player.", "Zab Judah")
    assert defining_clause("Zab Judah", "Muggsy Bogues", [fought]) is None
    he = claim("He is a boxer.", "He is a professional boxer from Brooklyn.", "Zab Judah")
    assert defining_clause("Zab Judah", "Muggsy Bogues", [he]) == "boxer"


def test_a_side_without_a_claim_gets_its_defining_sentence() -> None:
    text = "Muggsy Bogues (born January 9, 1965) is a retired American professional basketball player."
    record: Any = {"chunk_id": "c1", "url": wiki_url("Muggsy Bogues"), "final_url": wiki_url("Muggsy Bogues"),
                   "origin": "https://wiki.test", "title": "Muggsy Bogues", "fetched_at": "2026-12-02T00:00:00Z",
                   "sha256": "0" * 64, "paragraph_index": 0, "text": "Bogues grew up in Baltimore. " + text}
    added = side_claims("Were Zab Judah and Muggsy Bogues both boxers?", SIDES, [JUDAH], [record])
    assert [c["claim"] for c in added] == [text]
    assert decide_kind("Were Zab Judah and Muggsy Bogues both boxers?", SIDES, [JUDAH, *added]) == "no"


async def test_the_task_answers_no_when_one_side_is_not_of_the_kind(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    """The model says "Yes" from both architects' pages; one is a wood carver by his page: code says No."""
    carver = "Tor Vennick (born 4 June 1945) is a Norwegian wood carver known for church doors."

    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        label = labels(chunks)
        return {"status": "answered", "answer": "Yes", "claims": [
            {"chunk_id": label["Mara Quell"], "quote": OLDER, "claim": "Mara Quell is a Danish architect."},
            {"chunk_id": label["Tor Vennick"], "quote": carver, "claim": "Tor Vennick is a Norwegian wood carver."}]}

    script = Script(queries=["Mara Quell", "Tor Vennick"], answer=answer)
    report = await run_architects(tmp_path, sandbox_factory, config, scripted_model, script,
                                  "Were Mara Quell and Tor Vennick both architects?", younger=carver)
    assert report.answer.status == "answered"
    assert report.answer.text == "No"
    assert {c.citations[0].title for c in report.answer.claims} == {"Mara Quell", "Tor Vennick"}


def test_types_of_is_read_as_the_kind_after_it() -> None:
    from ditto_nb.patterns.common.compare.kinds import asked_kind
    assert asked_kind("Are Waste Land and Shikashika both types of drinks?", ["Waste Land", "Shikashika"]) == ["drinks"]
    assert asked_kind("Are A and B both a kind of cheese?", ["A", "B"]) == ["cheese"]


def test_a_semicolon_inside_the_leads_parenthesis_ends_no_sentence() -> None:
    text = "Ilse Tamm (] ; born 3 September 1953) is a French film director and screenwriter."
    lead = claim(text, text, "Ilse Tamm")
    assert defining_clause("Ilse Tamm", "Mara Quell", [lead]) == "french film director and screenwriter"
