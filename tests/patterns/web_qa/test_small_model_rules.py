"""Web QA rules that keep small-model runs short and honest: ranked and capped prompts, status
decided by code, repair of the failed claims only (scripted model, real sandbox/Redis/SQLite)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import ModelOutputInvalid, UngroundedAnswer
from ditto_nb.notebook import load_task
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa.answer_checks import described_bridge
from ditto_nb.patterns.web_qa.rule_set import answer_problems
from ditto_nb.patterns.web_qa.candidates import compared_sides
from ditto_nb.patterns.web_qa.evaluate import complete_draft, decide_status, strip_header
from ditto_nb.patterns.web_qa.schemas import CLAIM_CHARS, AnswerOutput, PlainAnswerOutput
from ditto_nb.patterns.web_qa import prompts
from ditto_nb.patterns.web_qa.plan import INSUFFICIENT_TEXT
from ditto_nb.patterns.common.retrieval import clarification_needed
from ditto_nb.patterns.web_qa.candidates import MAX_CANDIDATES
from ditto_nb.patterns.web_qa.selection import MAX_ANSWER_CHUNKS
from tests.patterns.web_qa.helpers import Script, chunks_in_prompt, make_request, purpose_of, quote_with, run_once


class Recorder:
    """Wrap a responder and keep every request it answered."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(request)
        return self.script(request)

    def of(self, purpose: str) -> dict[str, Any]:
        return next(r for r in self.requests if purpose_of(r) == purpose)


def test_decide_status_rules() -> None:
    assert decide_status("conflicting-evidence", 2, False) == "answered"
    assert decide_status("conflicting-evidence", 0, False) == "insufficient-evidence"
    assert decide_status("conflicting-evidence", 1, True) == "conflicting-evidence"
    assert decide_status("answered", 0, True) == "conflicting-evidence"
    assert decide_status("answered", 0, False) == "insufficient-evidence"
    assert decide_status("answered", 1, True) == "answered"
    assert decide_status("insufficient-evidence", 3, False) == "insufficient-evidence"
    assert decide_status("needs-clarification", 1, False) == "answered"


def test_clarification_needs_the_model_and_a_question_without_names() -> None:
    # seen in CI: the real 0.5B model flagged this clear question as unclear
    assert not clarification_needed("Which river flows through Paris?", True)
    assert not clarification_needed("Were \"Up\" and Cars made by the same studio?", True)
    assert clarification_needed("what is the best one?", True)
    assert not clarification_needed("what is the best one?", False)


def test_strip_header_removes_only_the_rendered_chunk_header() -> None:
    assert strip_header("(Paris - https://wiki.test:8443) The Seine flows.") == "The Seine flows."
    assert strip_header("[C2] (Paris - https://wiki.test:8443) The Seine.") == "The Seine."
    assert strip_header("(Seine (Atlas of Rivers) - https://atlas.test:1) In total.") == "In total."
    # seen on the real wiki, in a claim: the header without its opening parenthesis
    assert strip_header("Winner (band) - https://wiki.test:43597) Winner is a boy group.") == "Winner is a boy group."
    assert strip_header("Winner is a boy group - see https://wiki.test.") == "Winner is a boy group - see https://wiki.test."
    assert strip_header("It (not - really) flows") == "It (not - really) flows"
    # the current rendering: [C1] (title - host) text
    assert strip_header("[C1] (Winner (band) - wiki.test) Winner is a boy group.") == "Winner is a boy group."
    assert strip_header("Winner (band) - wiki.test) Winner is a boy group.") == "Winner is a boy group."
    assert strip_header("The score was 2 - 1) and more.") == "The score was 2 - 1) and more."
    assert strip_header("(Winner (band)) Winner is a boy group.", ["Winner (band)"]) == "Winner is a boy group."
    assert strip_header("(Winner (band)) Winner is a boy group.", ["Paris"]) == "(Winner (band)) Winner is a boy group."
    assert strip_header("(born 1990) He drives.", ["Sergio Pérez"]) == "(born 1990) He drives."


async def test_repair_resends_only_failed_claims_and_keeps_passed_ones(
    tmp_path: Path, web, search, config, scripted_model
) -> None:
    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        span = quote_with(chunks, "1,280 meters long")[0]
        paint = next(label for label, _o, text in chunks if "International Orange" in text)
        return {"status": "answered", "answer": "1,280 m, orange.", "claims": [
            {"claim": "The main span is 1,280 meters long.", "chunk_id": span[0], "quote": span[1]},
            {"claim": "The bridge is red.", "chunk_id": paint, "quote": "painted bright red"}]}

    def repair(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        paint = next(label for label, _o, text in chunks if "International Orange" in text)
        return {"status": "answered", "answer": "1,280 m, International Orange.", "claims": [
            {"claim": "The bridge is painted International Orange.", "chunk_id": paint,
             "quote": "The bridge is painted International Orange."}]}

    recorder = Recorder(Script(answer=answer, repair=repair))
    scripted_model.responder = recorder
    report = await run_once(tmp_path / "t", make_request(web), config, search, scripted_model)
    assert recorder.script.seen == ["plan", "select", "answer", "ground", "repair", "regrade"]
    repair_prompt = recorder.of("repair")["messages"][-1]["content"]
    kept, failed = repair_prompt.split("Kept claims:\n", 1)[1].split("Failed claims:\n", 1)
    assert "1,280 meters long" in kept and "painted bright red" not in kept
    assert "painted bright red" in failed and "1,280" not in failed.split("Problems:")[0]
    assert "not exact text" in failed
    regrade_prompt = recorder.of("regrade")["messages"][-1]["content"]
    assert regrade_prompt.count(". Claim:") == 1 and "International Orange" in regrade_prompt
    assert report.repaired and report.answer.status == "answered"
    assert [c.claim for c in report.answer.claims] == [
        "The main span is 1,280 meters long.", "The bridge is painted International Orange."]
    assert all(c.verification.quotes_verified and c.verification.grounded for c in report.answer.claims)


async def test_conflict_status_is_not_offered_without_a_verified_conflict(
    tmp_path: Path, web, search, config, scripted_model
) -> None:
    recorder = Recorder(Script())
    scripted_model.responder = recorder
    report = await run_once(tmp_path / "t", make_request(web), config, search, scripted_model)
    assert report.answer.status == "answered" and not report.repaired
    answer_request = recorder.of("answer")
    prompt = "\n".join(m["content"] for m in answer_request["messages"])
    plain = json.dumps(PlainAnswerOutput.model_json_schema(), ensure_ascii=False)
    assert prompt.count(plain) == 1  # the format, once: in the one system message
    assert "conflicting-evidence" not in prompt  # not in the schema/grammar, nor in the rules
    assert answer_request["max_tokens"] == 400
    assert recorder.of("plan")["max_tokens"] == 200 and recorder.of("ground")["max_tokens"] == 300


async def test_every_call_opens_with_the_one_system_message(tmp_path: Path, web, search, config, scripted_model) -> None:
    """All calls of a run start with the same system message (read once per llama.cpp server, then
    restored from its prompt cache); what varies comes after it, and the report calls also share
    the evidence block before their ``Task:`` line."""
    recorder = Recorder(Script(answer=lambda c: {"status": "answered", "answer": "1937",
                                                 "claims": [{"chunk_id": "C9", "claim": "It opened in 1937."}]}))
    scripted_model.responder = recorder
    report = await run_once(tmp_path / "t", make_request(web), config, search, scripted_model)
    assert report.repaired  # a claim citing no shown chunk fails: all six calls run
    purposes = [purpose_of(r) for r in recorder.requests]
    assert purposes == ["plan", "select", "answer", "ground", "repair", "regrade"]
    systems = {r["messages"][0]["content"] for r in recorder.requests}
    assert systems == {prompts.SYSTEM} and [r["messages"][0]["role"] for r in recorder.requests] == ["system"] * 6
    assert prompts.purpose_of([{"content": prompts.SYSTEM}]) == ""  # the purpose line is the user message's
    users = {purpose_of(r): r["messages"][-1]["content"] for r in recorder.requests}
    shared = users["answer"].split("\nTask: answer")[0]
    assert shared.startswith("Question: ") and "[C1]" in shared
    for purpose in ("ground", "repair", "regrade"):
        assert users[purpose].startswith(shared + "\nTask: " + purpose)


async def test_conflicting_model_output_without_verified_conflict_is_rejected(
    tmp_path: Path, web, search, config, scripted_model
) -> None:
    """The narrow schema makes an unfounded conflicting-evidence an invalid model output (raised)."""
    scripted_model.responder = Script(answer=lambda c: {"status": "conflicting-evidence", "answer": "x", "claims": []})
    with pytest.raises(ModelOutputInvalid, match="PlainAnswerOutput"):
        await run_once(tmp_path / "t", make_request(web), config, search, scripted_model)
    [failure] = load_task(tmp_path / "t").failures  # the whole reply is kept, to read later
    assert failure["error_type"] == "ModelOutputInvalid" and failure["stage"] == "report"
    assert json.loads(failure["content"]) == {"status": "conflicting-evidence", "answer": "x", "claims": []}


async def test_prompts_are_ranked_and_capped_and_omissions_recorded(
    tmp_path: Path, sandbox_factory, config, scripted_model
) -> None:
    filler = [f"Golden Gate Bridge note {i}: the bridge towers are repainted every {i + 2} years." for i in range(10)]
    pages = [
        {"url": "https://alpha.test/g", "title": "Golden Gate Bridge",
         "paragraphs": ["The main span of the Golden Gate Bridge is 1,280 meters long.", *filler[:5],
                        "Unrelated words about cooking pasta."]},
        {"url": "https://beta.test/g", "title": "Bridge notes", "paragraphs": filler[5:]},
    ]
    web = sandbox_factory(pages)
    recorder = Recorder(Script(queries=["Golden Gate Bridge main span"]))
    scripted_model.responder = recorder
    report = await run_once(tmp_path / "t", make_request(web), config, SearchSetup.from_sandbox(web), scripted_model)
    select_chunks = chunks_in_prompt(recorder.of("select"))
    answer_chunks = chunks_in_prompt(recorder.of("answer"))
    assert len(select_chunks) == MAX_CANDIDATES and len(answer_chunks) == MAX_ANSWER_CHUNKS
    assert "1,280 meters long" in select_chunks[0][2]  # best BM25 match first
    assert all("pasta" not in text for _label, _origin, text in select_chunks)
    reasons = {o.reason for o in report.selection.omitted}
    assert {"no-match", "rank-budget", "answer-budget"} <= reasons
    shown = {c.chunk_id for c in report.evidence}
    assert len(shown) == MAX_ANSWER_CHUNKS and not shown & {o.chunk_id for o in report.selection.omitted}
    assert report.answer.status == "answered"


async def test_repair_concluding_insufficient_withholds_failed_claims(
    tmp_path: Path, web, search, config, scripted_model
) -> None:
    bad = {"claim": "The bridge is red.", "chunk_id": "C1", "quote": "painted bright red"}
    scripted_model.responder = Script(
        answer=lambda c: {"status": "answered", "answer": "It is red.", "claims": [bad]},
        repair=lambda c: {"status": "insufficient-evidence", "answer": "It is red.", "claims": [bad]},
    )
    report = await run_once(tmp_path / "t", make_request(web), config, search, scripted_model)
    assert report.repaired and report.answer.status == "insufficient-evidence"
    assert report.answer.claims == [] and report.answer.text.startswith(INSUFFICIENT_TEXT)
    assert "red" not in report.answer.text


def test_a_sentence_is_not_a_few_words() -> None:
    """Seen on the real wiki: repairs that answered with a sentence (three of five wrong answers)."""
    from ditto_nb.patterns.web_qa.answer_checks import is_sentence

    claim: list[Any] = [{"claim": "Eenasul Fateh is known by his stage name Aladin.", "citations": []}]
    assert is_sentence("Lee Hazlewood died in 2007.", [])  # four or more words and a full stop
    assert is_sentence("The hedgehog is one of the characters in Winnie the Pooh and the Blustery Day", [])  # > 12
    assert is_sentence("eenasul fateh is known by his stage name aladin", claim)  # a claim copied whole
    assert not is_sentence("1,280 m, International Orange.", [])  # a short answer with a full stop
    for answer in ("Animorphs", "Washington, D.C.", "Greenwich Village, New York City", "3,677 seated",
                   "Harry Potter and the Philosopher's Stone", "Kansas Song (We're From Kansas)", "1,280 meters"):
        assert not is_sentence(answer, claim), answer


async def test_a_repair_answering_with_a_sentence_is_not_published(
    tmp_path: Path, web, search, config, scripted_model
) -> None:
    """The draft answers a year its quote does not state (a problem the repair can mend); the repair
    answers with a sentence whose quotes verify: the task ends insufficient, nothing of it published."""
    sentence = "The Golden Gate Bridge opened to traffic on May 27, 1937."

    def draft(chunks: list[tuple[str, str, str]], answer: str) -> dict[str, Any]:
        [(label, quote)] = quote_with(chunks, sentence)[:1]
        return {"status": "answered", "answer": answer,
                "claims": [{"claim": sentence, "chunk_id": label, "quote": quote}]}

    scripted_model.responder = Script(answer=lambda c: draft(c, "1936"), repair=lambda c: draft(c, sentence))
    report = await run_once(tmp_path / "t", make_request(web, question="In what year did the Golden Gate Bridge open?"),
                            config, search, scripted_model)
    assert report.repaired and report.answer.status == "insufficient-evidence"
    assert report.answer.text.startswith(INSUFFICIENT_TEXT)


async def test_repair_still_answering_with_failed_claims_is_never_published(
    tmp_path: Path, web, search, config, scripted_model
) -> None:
    bad = {"claim": "The bridge is red.", "chunk_id": "C1", "quote": "painted bright red"}
    scripted_model.responder = Script(answer=lambda c: {"status": "answered", "answer": "Red.", "claims": [bad]},
                                      repair=lambda c: {"status": "answered", "answer": "Red.", "claims": [bad]})
    with pytest.raises(UngroundedAnswer, match="not exact text"):
        await run_once(tmp_path / "t", make_request(web), config, search, scripted_model)
    assert not (tmp_path / "t" / "output" / "report.json").exists()


def test_a_year_of_antiquity_answers_a_what_year_question() -> None:
    """"In what year was the Colosseum completed?" → "80" (AD 80) is a year (a fresh-user trial
    saw it refused as "the answer gives none")."""
    from ditto_nb.patterns.web_qa.rule_set import answer_problems

    claims = [{"claim": "The Colosseum was completed in AD 80.",
               "citations": [{"quote": "the amphitheatre was completed in AD 80 under Titus", "title": "Colosseum"}]}]
    assert answer_problems("In what year was the Colosseum completed?", "80", "answered", claims) == []
    assert any("asks for a year" in p for p in
               answer_problems("In what year was the Colosseum completed?", "Titus", "answered", claims))


def test_a_comparison_selection_missing_one_side_gets_that_sides_chunk() -> None:
    # seen on the real wiki: both selected chunks were Janet Waldo's; Shirley Temple's was a candidate
    def chunk(cid: str, title: str, text: str) -> Any:
        return {"chunk_id": cid, "title": title, "text": text, "origin": "https://wiki.test"}

    candidates = [chunk("w1", "Janet Waldo", "Janet Waldo was an American actress."),
                  chunk("w2", "Janet Waldo", "She voiced Judy Jetson."),
                  chunk("k1", "Kiss and Tell", "It starred Shirley Temple."),
                  chunk("s1", "Shirley Temple", "Shirley Temple Black was an American actress.")]
    question = "Were Shirley Temple and Janet Waldo both American?"
    assert compared_sides(question, candidates, ["w1", "w2"]) == ["s1"]  # her own page over a mention
    assert compared_sides(question, candidates, ["w1", "s1"]) == []
    assert compared_sides("Who voiced Judy Jetson?", candidates, ["w1"]) == []  # not a comparison
    assert compared_sides(question, candidates[:3], ["w1"]) == ["k1"]  # no page of hers: a mention


def test_a_compared_sides_page_with_the_asked_qualifier_beats_another_page_of_that_name() -> None:
    # seen on the real wiki: "Alien (soundtrack)" was selected and "Alien (film)" left out
    def chunk(cid: str, title: str, text: str) -> Any:
        return {"chunk_id": cid, "title": title, "text": text, "origin": "https://wiki.test"}

    candidates = [chunk("b1", "Battle Beyond the Stars", "Battle Beyond the Stars is a 1980 film."),
                  chunk("s1", "Alien (soundtrack)", "Alien is the soundtrack to the 1979 film."),
                  chunk("f1", "Alien (film)", "Alien is a 1979 science fiction horror film.")]
    question = "Which film was released first, Alien or Battle Beyond the Stars?"
    assert compared_sides(question, candidates, ["b1", "s1"]) == ["f1"]
    assert compared_sides(question, candidates, ["b1", "f1"]) == []
    assert compared_sides("Which album came first, Alien or Battle Beyond the Stars?", candidates, ["b1", "s1"]) == []


def test_an_answer_its_own_evidence_calls_the_described_noun_is_a_problem() -> None:
    # made-up names: the shape of "Where is the company that Sachin Warrier worked for … headquartered?"
    where = "Where is the company that Anil Varmora worked for as an engineer headquartered?"
    pages = [("Zentrix Systems", "Zentrix Systems Limited (ZS) is an Indian software company based in Pune. It has 9 offices."),
             ("Anil Varmora", "Anil Varmora is an engineer. He worked for Zentrix Systems.")]
    assert described_bridge(where, "Zentrix Systems", [], [], pages) == "Zentrix Systems"
    assert described_bridge(where, "Pune", [], [], pages) is None  # the fact asked for
    assert described_bridge(where, "Zentrix Systems", [], [], []) is None  # nothing defines it
    # a quote defining the answer counts too, with no page of its own
    assert described_bridge(where, "Zentrix Systems", [], ["Zentrix Systems is a software company."]) == \
        "Zentrix Systems"
    # the question asks for the described entity itself
    assert described_bridge("Which company that Anil Varmora worked for is based in Pune?", "Zentrix Systems", [], [],
                            pages) is None
    assert described_bridge("What is the name of the company that Anil Varmora worked for?", "Zentrix Systems", [],
                            [], pages) is None
    rhyme = "What was the song index of the nursery rhyme inspiring Quell Tunes?"
    assert described_bridge(rhyme, "Ottor Drum", [], ['"Ottor Drum" is a Scottish folk song and nursery rhyme.']) \
        == "Ottor Drum"
    base = "Which airplane was the Major testing after whom the base that the 9th Squadron is at is named?"
    assert described_bridge(base, "Vold Air Force Base", [], [], [  # an initial's full stop ends no clause
        ("Vold Air Force Base", "Vold Air Force Base (IATA: VFB) is a major U.S. Air Force base in Utah.")]) == \
        "Vold Air Force Base"
    father = "Who was the father of Kasimir Holm?"
    assert described_bridge(father, "Piet Holm", [], ["Piet Holm is the father of Kasimir Holm."]) is None


def test_an_answer_that_is_the_described_bridge_entity_is_a_problem() -> None:
    # seen on the real wiki: "Shirley Temple" answered her government position
    position = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
    assert described_bridge(position, "Shirley Temple", ["Shirley Temple"]) == "Shirley Temple"
    assert described_bridge(position, "Chief of Protocol", ["Shirley Temple"]) is None
    assert described_bridge(position, "Shirley Temple", []) is None  # no hop: nothing to compare with
    song = "What is the name of the fight song of the university whose main campus is in Lawrence, Kansas?"
    assert described_bridge(song, "University of Kansas.", ["University of Kansas"]) == "University of Kansas"
    # the question asks for the described entity itself, or asks "who"
    assert described_bridge("What is the name of the woman who portrayed Corliss Archer?", "Shirley Temple",
                            ["Shirley Temple"]) is None
    assert described_bridge("2014 S/S is the debut album of a boy group that was formed by who?", "YG Entertainment",
                            ["YG Entertainment"]) is None
    problems = answer_problems(position, "Shirley Temple", "answered",
                               [{"citations": [{"quote": "It starred Shirley Temple as Corliss Archer.", "title": "Kiss"}]}],
                               bridges=["Shirley Temple"])
    assert any("in-between entity" in p for p in problems)


def test_a_chunk_tying_the_question_years_to_another_name_is_a_problem() -> None:
    # seen on the real wiki: "America East Conference" (its quote without the years) for "formerly
    # known as what from 1988 to 1996"; a chunk said "the North Atlantic Conference from 1988 to 1996"
    question = ("The Vermont Catamounts men's soccer team currently competes in a conference that was formerly "
                "known as what from 1988 to 1996?")
    claims = [{"citations": [{"quote": "The Catamounts compete in the America East Conference.", "title": "V"}]}]
    chunk = ("The America East Conference was known as the Eastern College Athletic Conference-North from 1979 "
             "to 1988 and the North Atlantic Conference from 1988 to 1996.")
    problems = answer_problems(question, "America East Conference", "answered", claims, evidence=[chunk])
    assert any("a chunk ties the question's years to North Atlantic Conference" in p for p in problems)
    assert not any("ties the question's years" in p for p in answer_problems(
        question, "America East Conference", "answered", claims))  # without the chunk, nothing says so
    right = [{"citations": [{"quote": chunk, "title": "A"}]}]
    assert not any("ties the question's years" in p for p in answer_problems(
        question, "North Atlantic Conference", "answered", right, evidence=[chunk]))


def test_a_claim_cut_by_the_grammar_cap_loses_its_partial_word_before_the_checks() -> None:
    text = "It is a component of the Georgia Army National Guard and traces its roots back to the year 1857."
    chunk = {"chunk_id": "r1", "title": "122nd Infantry Regiment", "text": text, "origin": "https://wiki.test"}
    claim = ("The 122nd Infantry Regiment is an infantry regiment of the United States Army. "
             "It is a component of the Georgia Army National Guard")[:CLAIM_CHARS]
    assert claim.endswith(" Nat")
    draft = AnswerOutput.model_validate({"answer": "1857", "claims": [{"chunk_id": "C1", "claim": claim}],
                                         "status": "answered"})
    done = complete_draft(draft, {"C1": "r1"}, {"r1": chunk})
    assert done.claims[0].claim == claim[: -len(" Nat")] + " …"
    assert done.claims[0].quote == text and done.answer == "1857"


def test_a_claim_describing_its_subject_becomes_the_quote_sentence() -> None:
    # The bridge's page states the fact; the film's page links "Big Stone Gap" to it.
    person = ("Adriana Trigiani is an Italian American best-selling author and film director based in "
              "Greenwich Village, New York City. She has published a novel a year since 2000.")
    film = "Big Stone Gap is a 2014 American romantic comedy film written and directed by Adriana Trigiani."
    chunks = {"r1": {"chunk_id": "r1", "title": "Big Stone Gap (film)", "text": film, "origin": "https://wiki.test"},
              "r2": {"chunk_id": "r2", "title": "Adriana Trigiani", "text": person, "origin": "https://wiki.test"}}
    claim = "The director of Big Stone Gap is based in Greenwich Village, New York City."
    draft = AnswerOutput.model_validate({"answer": "Greenwich Village", "status": "answered",
                                         "claims": [{"chunk_id": "C2", "claim": claim}]})
    done = complete_draft(draft, {"C1": "r1", "C2": "r2"}, chunks)
    sentence = person.split(". ")[0] + "."
    assert done.claims[0].claim == done.claims[0].quote == sentence
    # without the film's page nothing links the description to this page: the claim stays as written
    alone = complete_draft(draft, {"C2": "r2"}, {"r2": chunks["r2"]})
    assert alone.claims[0].claim == claim


def test_an_answer_no_claim_states_is_a_problem() -> None:
    # seen on the real wiki: "1984" for a founding year, present only inside "since 1984–85" in a
    # quote cited for a claim about tournament qualification
    question = "Virginia Commonwealth University was founded in what year?"
    quote = "It was also the first season since 1984–85 that the Rams consecutively qualified for the NCAA Tournament."
    claims = [{"claim": "The Rams consecutively qualified for the NCAA Tournament.",
               "citations": [{"quote": quote, "title": "2011–12 VCU Rams men's basketball team"}]}]
    problems = answer_problems(question, "1984", "answered", claims)
    assert any("no claim states it" in p for p in problems)
    stated = [{"claim": "VCU was founded in 1838.",
               "citations": [{"quote": "The university was founded in 1838 as a medical school.", "title": "VCU"}]}]
    assert answer_problems(question, "1838", "answered", stated) == []
    # a two-part answer takes each part from its own claim
    parts = [*stated, {"claim": "VCU is in Richmond.",
                       "citations": [{"quote": "VCU is a public university in Richmond.", "title": "VCU"}]}]
    assert answer_problems(question, "1838, Richmond", "answered", parts) == []
    # a named answer may add a year its claims leave out when their quotes state it; a bare year may not
    film = [{"claim": "Shirley Temple played Corliss Archer in Kiss and Tell.",
             "citations": [{"quote": "Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer.",
                            "title": "Kiss and Tell"}]}]
    who = "Who played Corliss Archer in the film Kiss and Tell?"
    assert answer_problems(who, "Shirley Temple played Corliss Archer in Kiss and Tell (1945).", "answered", film) == []
    assert any("no claim states it" in p for p in answer_problems("In what year was Kiss and Tell released?", "1945",
                                                                   "answered", film))


def test_an_answer_that_repeats_the_question_is_a_problem() -> None:
    # seen on the real wiki: "New York City" for "... based in what New York city?"
    question = 'The director of the romantic comedy "Big Stone Gap" is based in what New York city?'
    claims = [{"claim": "Adriana Trigiani lives in Greenwich Village, New York City.",
               "citations": [{"quote": "Trigiani lives in Greenwich Village, New York City.", "title": "Adriana Trigiani"}]}]
    assert any("repeats words of the question" in p for p in answer_problems(question, "New York City", "answered", claims))
    assert answer_problems(question, "Greenwich Village", "answered", claims) == []
    # a comparison's choice is exempt: the answer is one of the question's names
    older = "Who is older, Annie Morton or Terry Richardson?"
    born = [{"claim": "Terry Richardson was born in 1965.",
             "citations": [{"quote": "Terry Richardson (born 1965) is an American photographer.", "title": "Terry Richardson"}]},
            {"claim": "Annie Morton was born in 1970.",
             "citations": [{"quote": "Annie Morton (born 1970) is an American model.", "title": "Annie Morton"}]}]
    assert answer_problems(older, "Terry Richardson", "answered", born,
                           compared=["Annie Morton", "Terry Richardson"]) == []


def test_an_answer_that_is_the_excluded_entity_is_a_problem() -> None:
    from ditto_nb.patterns.web_qa.answer_checks import excluded_entity

    # seen on the real wiki: the excluded driver, and a sentence about the excluded remote
    podium = "Which other Mexican Formula One driver has held the podium besides the Force India driver born in 1990?"
    perez = [{"claim": "Sergio Pérez races with Force India.", "citations": [{"quote": (
        "Pedro Rodríguez won two Grands Prix. Sergio Pérez, the only other Mexican to finish on the podium, "
        "currently races with Sahara Force India F1 Team."), "title": "Formula One drivers from Mexico"}]}]
    assert excluded_entity(podium, "Sergio Pérez", perez) == "the Force India driver born in 1990"
    assert excluded_entity(podium, "Pedro Rodríguez", perez) is None  # his sentence does not state Force India
    remote = "Aside from the Apple Remote, what other device can control the program Apple Remote was designed for?"
    assert excluded_entity(remote, "The Apple Remote was designed for Front Row.", []) == "the Apple Remote"
    assert excluded_entity(remote, "keyboard function keys", []) is None
    assert excluded_entity("Which Mexican driver won in 1990?", "Sergio Pérez", perez) is None  # nothing excluded
    problems = answer_problems(podium, "Sergio Pérez", "answered", perez)
    assert any("which the question excludes" in p for p in problems)


def test_an_answer_whose_quote_ties_the_questions_years_to_another_name_is_a_problem() -> None:
    from ditto_nb.patterns.web_qa.tied_years import tied_elsewhere

    # seen on the real wiki: the conference's earlier name, for the years of its later one
    question = "The Vermont Catamounts currently compete in a conference that was formerly known as what from 1988 to 1996?"
    conference = [{"claim": "x", "citations": [{"quote": (
        "The conference was known as the Eastern College Athletic Conference-North from 1979 to 1988 and the "
        "North Atlantic Conference from 1988 to 1996.")}]}]
    assert tied_elsewhere(question, "Eastern College Athletic Conference-North", conference) == "North Atlantic Conference"
    assert tied_elsewhere(question, "the North Atlantic Conference", conference) is None
    voted = [{"claim": "x", "citations": [{"quote": (
        "He was voted the World's Best Goalkeeper in 1992 and Danish Player of the Year in 1993.")}]}]
    assert tied_elsewhere("What was he voted in 1993?", "World's Best Goalkeeper", voted) == "Danish Player of the Year"
    assert tied_elsewhere("What was he voted in 1992?", "World's Best Goalkeeper", voted) is None
    # a name of the question standing between is no other name; no year asked: nothing checked
    iffhs = [{"claim": "x", "citations": [{"quote": "In 1992, the IFFHS voted him the World's Best Goalkeeper."}]}]
    assert tied_elsewhere("What did the IFFHS vote him in 1992?", "World's Best Goalkeeper", iffhs) is None
    assert tied_elsewhere("What was he voted?", "World's Best Goalkeeper", voted) is None
    problems = answer_problems(question, "Eastern College Athletic Conference-North", "answered", conference)
    assert any("ties the question's years to North Atlantic Conference" in p for p in problems)


def test_a_chunk_sentence_referring_back_to_the_answer_ties_the_years_of_a_name_question() -> None:
    from ditto_nb.patterns.web_qa.tied_years import tied_in

    # seen on the real wiki: the answer's own page names it, then says "The conference was known as …"
    question = "The Vermont Catamounts currently compete in a conference that was formerly known as what from 1988 to 1996?"
    page = ("The America East Conference is a collegiate athletic conference whose members are located mainly in the Northeastern "
            "United States. "
            "The conference was known as the Eastern College Athletic Conference-North from 1979 to 1988 and the "
            "North Atlantic Conference from 1988 to 1996.")
    assert tied_in(question, "America East Conference", [page]) == "North Atlantic Conference"
    assert tied_in(question, "North Atlantic Conference", [page]) is None
    # the referring sentence must follow one that names the answer, in the same text
    assert tied_in(question, "America East Conference", [page.split(". ", 1)[1]]) is None
    # a question that does not ask for a name: the years qualify what the answer did
    coach = "John Smith is an American coach. He coached the Vermont Catamounts from 1988 to 1996."
    assert tied_in("Who coached the university's team from 1988 to 1996?", "John Smith", [coach]) is None
    assert tied_in("What was the team called from 1988 to 1996?", "John Smith", [coach]) == "Vermont Catamounts"
    assert tied_in("Which team named after John Smith played from 1988 to 1996?", "John Smith", [coach]) is None
    problems = answer_problems(question, "America East Conference", "answered", [], evidence=[page])
    assert any("a chunk ties the question's years to North Atlantic Conference" in p for p in problems)


def test_the_number_the_questions_words_qualify() -> None:
    """(The counted-number rewrite publishes it: tests/patterns/web_qa/test_rule_layer.py.)"""
    from ditto_nb.patterns.web_qa.answer_checks import number_elsewhere

    # seen on the real wiki: the arena's capacity for how many it can seat
    question = "The arena where the Lewiston Maineiacs played their home games can seat how many people?"
    arena = [{"claim": "x", "citations": [{"quote": (
        "The Colisée is a 4,000 capacity (3,677 seated) multi-purpose arena in Lewiston, Maine.")}]}]
    assert number_elsewhere(question, "4,000", arena) == "3,677"
    assert number_elsewhere(question, "3,677 seated", arena) is None
    # the asked words by the answer's number, or by no number at all: nothing to say
    census = [{"claim": "x", "citations": [{"quote": "The population was 9,984 at the 2010 census."}]}]
    asked = "The lake is in a county that has a population of how many inhabitants?"
    assert number_elsewhere(asked, "9,984", census) is None
    seats = [{"claim": "x", "citations": [{"quote": "It seats 12,000 and opened in 1995 with 80 suites."}]}]
    assert number_elsewhere("How many people can the arena seat?", "12,000", seats) is None
    assert number_elsewhere("How many suites does the arena have?", "12,000", seats) == "80"


def test_an_answer_that_is_the_relative_the_question_describes_is_a_problem() -> None:
    # seen on the real wiki: "Peter Schmeichel" for what his father was voted, after the hop read his page
    voted = "What was the father of Kasper Schmeichel voted to be by the IFFHS in 1992?"
    assert described_bridge(voted, "Peter Schmeichel", ["Peter Schmeichel"]) == "Peter Schmeichel"
    assert described_bridge(voted, "World's Best Goalkeeper", ["Peter Schmeichel"]) is None
    # asking for the relative's name, or a chain past him ("the fight song of the university whose …")
    assert described_bridge("What is the name of the father of Kasper Schmeichel?", "Peter Schmeichel",
                            ["Peter Schmeichel"]) is None
    assert described_bridge("Who was the father of Kasper Schmeichel?", "Peter Schmeichel", ["Peter Schmeichel"]) is None
