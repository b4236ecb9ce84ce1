"""The declared answer-rule layer (issue 30): every rule can be switched off by name and the
recorded trace changes; comparisons of an attribute no rule knows are answered side by side with
one quote per side; a missing side is named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.errors import InvalidRequest
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa.rule_set import RULE_NAMES, RULES
from ditto_nb.patterns.web_qa.rules import DraftAnswer, RuleContext, rules_off, run_rules
from ditto_nb.sandbox import SandboxWeb, wiki_url
from tests.patterns.web_qa.helpers import Script, make_request, run_once


def claim(text: str, quote: str, title: str) -> Any:
    return {"claim": text, "citations": [{"quote": quote, "title": title}],
            "verification": {"quotes_verified": True, "grounded": True}}


TERRY = claim("Terry Richardson was born in 1965.", "Terry Richardson (born August 14, 1965) is an American photographer.",
              "Terry Richardson")
ANNIE = claim("Annie Morton was born in 1970.", "Annie Morton (born October 8, 1970) is an American model.", "Annie Morton")
CHO = claim("Cho Kyuhyun is a South Korean singer.", "Cho Kyu-hyun (born February 3, 1988) is a South Korean singer.",
            "Cho Kyuhyun")
METHOD = claim("Method Man is an American rapper.", "Clifford Smith, known as Method Man, is an American rapper.",
               "Method Man")
JUDAH = claim("Zab Judah is a boxer.", "Zab Judah is an American professional boxer.", "Zab Judah")
BOGUES = claim("Muggsy Bogues is a basketball player.",
               "Muggsy Bogues is a retired American professional basketball player.", "Muggsy Bogues")
CLEO = claim("Letters to Cleo had six members.", "Letters to Cleo was an alternative rock band with six members.",
             "Letters to Cleo")
TREES = claim("Screaming Trees was formed in Ellensburg.", "Screaming Trees was a rock band formed in Ellensburg.",
              "Screaming Trees")
VILLAGE = claim("The director is based in Greenwich Village, New York City.",
                "Adriana Trigiani is based in Greenwich Village, New York City.", "Adriana Trigiani")
ARENA = claim("The arena has a 4,000 capacity.", "The arena has a 4,000 capacity (3,677 seated).", "Arena")
CONF = "The conference was known as the ECAC North from 1979 to 1988 and the North Atlantic Conference from 1988 to 1996."
COLOSSEUM = claim("The Colosseum was completed in AD 80.", "The Colosseum was completed in AD 80 under Titus.",
                  "Colosseum")
TEMPLE = claim("Shirley Temple was an actress.", "Shirley Temple Black was an American actress.", "Shirley Temple")
PEREZ = claim("Sergio Pérez races for Force India.", "Sergio Pérez currently races with Sahara Force India.",
              "Sergio Pérez")

CASES: dict[str, tuple[str, str, list[Any], dict[str, Any]]] = {
    # rule name: (question, draft answer, verified claims, context fields)
    "compare-order": ("Who was born first, Annie Morton or Terry Richardson?", "Annie Morton", [ANNIE, TERRY],
                      {"compared": ("Annie Morton", "Terry Richardson")}),
    "compare-nationality": ("Are Cho Kyuhyun and Method Man of the same nationality?", "Yes", [CHO, METHOD],
                            {"compared": ("Cho Kyuhyun", "Method Man")}),
    "compare-kind": ("Were Zab Judah and Muggsy Bogues both boxers?", "Yes", [JUDAH, BOGUES],
                     {"compared": ("Zab Judah", "Muggsy Bogues")}),
    "side-by-side": ("Which band had six members, Letters to Cleo or Screaming Trees?", "Letters to Cleo band",
                     [CLEO, TREES], {"compared": ("Letters to Cleo", "Screaming Trees")}),
    "narrow-place": ("The director of Big Stone Gap is based in what New York city?", "New York City", [VILLAGE], {}),
    "counted-number": ("The arena can seat how many people?", "4,000", [ARENA], {}),
    "renamed-answer": ("The team plays in a conference that was formerly known as what from 1988 to 1996?",
                       "America East Conference",
                       [claim("It plays in the America East Conference.", "It plays in the America East Conference.",
                              "Team")],
                       {"chunks": ({"chunk_id": "c1", "text": "The America East Conference is a college conference. "
                                    + CONF, "title": "America East Conference", "url": wiki_url("America East"),
                                    "final_url": wiki_url("America East"), "origin": "https://wiki.test",
                                    "page_id": "p1", "paragraph_index": 0, "sha256": "0" * 64,
                                    "fetched_at": "2026-12-04T00:00:00Z"},)}),
    "answer-quoted": ("In what year was the Colosseum completed?", "82", [COLOSSEUM], {}),
    "sides-quoted": ("Which band had six members, Letters to Cleo or Screaming Trees?", "Letters to Cleo", [CLEO],
                     {"compared": ("Letters to Cleo", "Screaming Trees")}),
    "one-side": ("Which band had six members, Letters to Cleo or Screaming Trees?", "Ellensburg", [CLEO, TREES],
                 {"compared": ("Letters to Cleo", "Screaming Trees")}),
    "asked-kind": ("In what year was the Colosseum completed?", "Titus", [COLOSSEUM], {}),
    "described-bridge": ("What government position was held by the woman who portrayed Corliss Archer?",
                         "Shirley Temple", [TEMPLE], {"bridges": ("Shirley Temple",)}),
    "tied-years": ("The team plays in a conference known as what from 1988 to 1996?", "ECAC North",
                   [claim("It was the ECAC North.", CONF, "America East Conference")], {}),
    "excluded-entity": ("Which other Mexican driver besides the Force India driver raced in 2012?", "Sergio Pérez",
                        [PEREZ], {}),
    "repeats-question": ("The director of Big Stone Gap is based in what New York city?", "New York City",
                         [claim("The director lives in New York City.", "She lives in New York City.", "Trigiani")], {}),
    "review-fits": ("In what year was the Colosseum completed?", "80", [COLOSSEUM],
                    {"fits": False, "fits_reason": "not a year"}),
    "sentence-answer": ("Who directed the film?", "The film was directed by a man who lived in Rome for years.",
                        [claim("The film was directed by a man.", "The film was directed by a man.", "Film")],
                        {"repaired": True}),
}


LAYER_NAMES = [rule.name for rule in RULES]


def test_every_declared_rule_has_a_case() -> None:
    assert set(CASES) == set(LAYER_NAMES)
    assert len(RULE_NAMES) == len(set(RULE_NAMES)) and set(RULE_NAMES) - set(LAYER_NAMES) == {
        "keep-first-answer", "compare-sides", "repair-mendable-only"}


@pytest.mark.parametrize("name", LAYER_NAMES)
def test_switching_a_rule_off_by_name_changes_the_recorded_trace(name: str) -> None:
    question, answer, claims, fields = CASES[name]
    context = RuleContext(question=question, **fields)
    draft = DraftAnswer(text=answer, status="answered", claims=claims)
    on = run_rules(RULES, context, draft)
    off = run_rules(RULES, context, draft, off={name})
    assert name in [f["rule"] for f in on.fired], on.fired
    assert name not in [f["rule"] for f in off.fired]
    assert on.fired != off.fired


def test_a_rewrite_records_the_answer_before_and_after() -> None:
    question, answer, claims, fields = CASES["side-by-side"]
    result = run_rules(RULES, RuleContext(question=question, **fields), DraftAnswer(answer, "answered", claims))
    fired = result.fired[0]
    assert (fired["rule"], fired["changed"], fired["before"], fired["after"]) == (
        "side-by-side", True, "Letters to Cleo band", "Letters to Cleo")
    assert result.draft.decided and result.problems == []
    assert "Letters to Cleo had six members" in fired["note"] and "Screaming Trees" in fired["note"]


def test_a_missing_side_is_named() -> None:
    question, answer, claims, fields = CASES["sides-quoted"]
    problems = run_rules(RULES, RuleContext(question=question, **fields), DraftAnswer(answer, "answered", claims)).problems
    assert any("Screaming Trees" in p and "Letters to Cleo" not in p.split("about")[1] for p in problems), problems


def test_unknown_rule_names_are_refused_and_the_environment_is_read() -> None:
    with pytest.raises(InvalidRequest, match="no-such-rule"):
        rules_off(["no-such-rule"], RULE_NAMES)
    assert rules_off(None, RULE_NAMES, env={"DITTO_RULES_OFF": "side-by-side, review-fits,"}) == {
        "side-by-side", "review-fits"}
    assert rules_off(None, RULE_NAMES, env={}) == frozenset()


# --- a made-up attribute, end to end through the scripted model ----------------------------------
ORVAL = "Orval Keep is a hill fort whose gate faces the sea and whose walls are painted ochre."
BRENN = "Brenn Hold is a hill fort whose gate faces the forest and whose walls are painted grey."
QUESTION = "Which fort has walls painted ochre, Orval Keep or Brenn Hold?"


async def _forts(tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any, script: Script,
                 brenn: bool = True, **kwargs: Any) -> Any:
    wiki: SandboxWeb = sandbox_factory([
        {"url": wiki_url("Orval Keep"), "title": "Orval Keep", "paragraphs": [ORVAL]},
        *([{"url": wiki_url("Brenn Hold"), "title": "Brenn Hold", "paragraphs": [BRENN]}] if brenn else []),
    ])
    scripted_model.responder = script
    request = make_request(wiki, question=QUESTION, max_queries=2, max_pages=4)
    search = SearchSetup.from_sandbox(wiki, policy_overrides={"retries": 0})
    return await run_once(tmp_path / "t", request, config, search, scripted_model, **kwargs)


def _label(chunks: list[tuple[str, str, str]], start: str) -> str:
    return next(label for label, _host, text in chunks if text.startswith(start))


def _side_answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {"status": "answered", "answer": "Orval Keep fort", "claims": [
        {"chunk_id": _label(chunks, "Orval Keep"), "claim": "Orval Keep has walls painted ochre."},
        {"chunk_id": _label(chunks, "Brenn Hold"), "claim": "Brenn Hold has walls painted grey."}]}


async def test_a_made_up_attribute_is_answered_with_one_quote_per_side(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    script = Script(queries=["Orval Keep", "Brenn Hold"], answer=_side_answer)
    report = await _forts(tmp_path, sandbox_factory, config, scripted_model, script)
    assert report.answer.status == "answered" and report.answer.text == "Orval Keep"
    assert [c.citations[0].title for c in report.answer.claims] == ["Orval Keep", "Brenn Hold"]
    assert "ochre" in report.answer.claims[0].citations[0].quote and "grey" in report.answer.claims[1].citations[0].quote
    assert [r.rule for r in report.answer.rules] == ["side-by-side"] and report.answer.rules[0].changed
    assert "repair" not in script.seen


async def test_with_the_side_by_side_rule_off_the_trace_shows_no_rewrite(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    script = Script(queries=["Orval Keep", "Brenn Hold"], answer=_side_answer, repair=_side_answer)
    report = await _forts(tmp_path, sandbox_factory, config, scripted_model, script, rules_off=["side-by-side"])
    assert "side-by-side" not in [r.rule for r in report.answer.rules]
    assert report.answer.text != "Orval Keep"  # the model's own words stand (or the task declines)


async def test_a_side_never_quoted_declines_and_names_it(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    def one_side(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {"status": "answered", "answer": "Orval Keep", "claims": [
            {"chunk_id": _label(chunks, "Orval Keep"), "claim": "Orval Keep has walls painted ochre."}]}

    script = Script(queries=["Orval Keep", "Brenn Hold"], answer=one_side, repair=one_side)
    report = await _forts(tmp_path, sandbox_factory, config, scripted_model, script, brenn=False)
    assert report.answer.status == "insufficient-evidence"
    assert "Brenn Hold" in report.answer.text
    assert "sides-quoted" in [r.rule for r in report.answer.rules]
    assert "compare" not in script.seen  # no page of Brenn Hold was read: nothing to compare


# --- compare-sides: a declined or one-sided comparison is answered from each side's quotes ---------
def _one_side(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {"status": "answered", "answer": "Orval Keep", "claims": [
        {"chunk_id": _label(chunks, "Orval Keep"), "claim": "Orval Keep has walls painted ochre."}]}


def _declined(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {"status": "insufficient-evidence", "answer": "", "claims": []}


def _compare_from_quotes(user: str) -> dict[str, Any]:
    """Decide from the quotes the prompt shows (so the test fails if a side's quote is missing)."""
    lines = dict(line.split(": ", 1) for line in user.splitlines() if line[:2] in ("1.", "2."))
    first, second = lines["1. Orval Keep"], lines["2. Brenn Hold"]
    return {"first": "ochre" if "ochre" in first else "?", "second": "grey" if "grey" in second else "?",
            "answer": "Orval Keep", "status": "answered" if "ochre" in first and "grey" in second else
            "insufficient-evidence"}


@pytest.mark.parametrize("draft", [_one_side, _declined])
async def test_a_declined_or_one_sided_comparison_is_answered_from_each_sides_quotes(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any, draft: Any
) -> None:
    script = Script(queries=["Orval Keep", "Brenn Hold"], answer=draft, compare=_compare_from_quotes)
    report = await _forts(tmp_path, sandbox_factory, config, scripted_model, script)
    assert report.answer.status == "answered" and report.answer.text == "Orval Keep"
    assert "repair" not in script.seen and script.seen.count("compare") == 1
    titles = [c.citations[0].title for c in report.answer.claims]
    assert "Orval Keep" in titles and "Brenn Hold" in titles
    brenn = next(c for c in report.answer.claims if c.citations[0].title == "Brenn Hold")
    assert brenn.citations[0].quote in BRENN and "grey" in brenn.citations[0].quote
    rules = [r.rule for r in report.answer.rules]
    assert rules[rules.index("compare-sides") + 1] == "side-by-side"


async def test_a_choice_answered_with_neither_side_goes_to_the_compare_step(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    def neither(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {"status": "answered", "answer": "ochre", "claims": [
            {"chunk_id": _label(chunks, "Orval Keep"), "claim": "Orval Keep has walls painted ochre."},
            {"chunk_id": _label(chunks, "Brenn Hold"), "claim": "Brenn Hold has walls painted grey."}]}

    script = Script(queries=["Orval Keep", "Brenn Hold"], answer=neither, compare=_compare_from_quotes)
    report = await _forts(tmp_path, sandbox_factory, config, scripted_model, script)
    assert "repair" not in script.seen and script.seen.count("compare") == 1
    assert report.answer.status == "answered" and report.answer.text == "Orval Keep"
    rules = [r.rule for r in report.answer.rules]
    assert rules.index("one-side") < rules.index("compare-sides"), rules


async def test_with_compare_sides_off_the_repair_runs_instead(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    script = Script(queries=["Orval Keep", "Brenn Hold"], answer=_one_side, repair=_one_side)
    report = await _forts(tmp_path, sandbox_factory, config, scripted_model, script, rules_off=["compare-sides"])
    assert "repair" in script.seen and "compare" not in script.seen
    assert report.answer.status == "insufficient-evidence"
    assert "compare-sides" not in [r.rule for r in report.answer.rules]


def test_a_side_gets_the_sentences_of_its_own_page_about_the_compared_fact() -> None:
    from ditto_nb.patterns.common.compare.sides import attribute_claims, attribute_words
    question = "Are Ranger Rick and Tennis both sports magazines?"
    assert attribute_words(question, ["Ranger Rick", "Tennis"]) == ["sport", "magaz"]
    base = {"url": "https://wiki.test/x", "final_url": "https://wiki.test/x", "origin": "https://wiki.test",
            "fetched_at": "2026-12-05T00:00:00Z", "sha256": "0" * 64, "paragraph_index": 0}
    tennis = {**base, "chunk_id": "c1", "title": "Tennis (magazine)",
              "text": "It was founded in 1965. Tennis is an American sports magazine about tennis. It is monthly."}
    other = {**base, "chunk_id": "c2", "title": "Wimbledon", "text": "Tennis is a sports magazine, Wimbledon says."}
    added = attribute_claims(question, ["Ranger Rick", "Tennis"], [], [other, tennis])
    quotes = [c["citations"][0]["quote"] for c in added]
    assert quotes == ["It was founded in 1965.", "Tennis is an American sports magazine about tennis."]
    assert all(c["citations"][0]["title"] == "Tennis (magazine)" for c in added)
    assert all("added by code" in c["verification"]["grounding_reason"] for c in added)


@pytest.mark.parametrize(("question", "form"), [
    ("Are both Cooking Light and Vibe magazines?", "yes-no"),
    ("Which band has more members, Lawson or American Music Club?", "side"),
    ("Mines A and B were both dug in 1900; which one yielded gold in 1935?", "side"),
    ("Both Ralph Bakshi and Béla Gaál had what role in film making?", "value"),
])
def test_the_answer_form_a_comparison_asks_for(question: str, form: str) -> None:
    from ditto_nb.patterns.common.compare.side_by_side import answer_form
    assert answer_form(question) == form


def test_a_value_question_takes_the_shared_value_not_a_side() -> None:
    from ditto_nb.patterns.common.compare.side_by_side import compared_answer
    question = "Both Ralph Bakshi and Béla Gaál had what role in film making?"
    sides = ["Ralph Bakshi", "Béla Gaál"]
    gaal = claim("Béla Gaál was a Hungarian film director.", "Béla Gaál was a Hungarian film director.", "Béla Gaál")
    bakshi = claim("Ralph Bakshi is an American film director.", "Ralph Bakshi is an American film director.",
                   "Ralph Bakshi")
    made = compared_answer(question, sides, "film director", [gaal, bakshi])
    assert made is not None and made[0] == "film director"
    assert compared_answer(question, sides, "Béla Gaál", [gaal, bakshi]) is None  # a side is not a shared value
    assert compared_answer("Are both Ralph Bakshi and Béla Gaál directors?", sides, "Béla Gaál", [gaal, bakshi]) is None


# --- keep-first-answer: the repair mends the claims, the first short answer stands ------------------
SPAN = "The Golden Gate Bridge opened in 1937. Its main span is 1,280 meters long."


async def _span(tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any,
                **kwargs: Any) -> tuple[Any, Script]:
    wiki: SandboxWeb = sandbox_factory([
        {"url": wiki_url("Golden Gate Bridge"), "title": "Golden Gate Bridge", "paragraphs": [SPAN]}])
    reviews: list[int] = []

    def ground(n: int) -> dict[str, Any]:  # the first review refuses the draft's reworded claim
        reviews.append(n)
        return {"verdicts": [{"n": i, "supported": len(reviews) > 1, "reason": "r"} for i in range(1, n + 1)]}

    def first(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {"status": "answered", "answer": "1,280 meters", "claims": [
            {"chunk_id": chunks[0][0], "claim": "The bridge's central span measures 1,280 meters."}]}

    def repair(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {"status": "answered", "answer": "The main span of the Golden Gate Bridge is 1,280 meters long.",
                "claims": [{"chunk_id": chunks[0][0], "claim": "Its main span is 1,280 meters long."}]}

    script = Script(queries=["Golden Gate Bridge"], answer=first, repair=repair, ground=ground)
    scripted_model.responder = script
    request = make_request(wiki, question="How long is the main span of the Golden Gate Bridge?",
                           max_queries=1, max_pages=2)
    search = SearchSetup.from_sandbox(wiki, policy_overrides={"retries": 0})
    return await run_once(tmp_path / "t", request, config, search, scripted_model, **kwargs), script


async def test_the_first_short_answer_stands_on_the_repaired_claims(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    report, script = await _span(tmp_path, sandbox_factory, config, scripted_model)
    assert "repair" in script.seen
    assert report.answer.status == "answered" and report.answer.text == "1,280 meters"
    assert report.answer.claims[0].claim == "Its main span is 1,280 meters long."
    assert "keep-first-answer" in [r.rule for r in report.answer.rules]


async def test_with_keep_first_answer_off_the_sentence_is_declined(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    report, _ = await _span(tmp_path, sandbox_factory, config, scripted_model, rules_off=["keep-first-answer"])
    assert report.answer.status == "insufficient-evidence"
    assert "sentence-answer" in [r.rule for r in report.answer.rules if r.round == "repair"]
    assert "keep-first-answer" not in [r.rule for r in report.answer.rules]


def test_a_side_named_longer_than_its_page_title_gets_its_pages_sentence() -> None:
    from ditto_nb.patterns.common.compare.sides import attribute_claims
    question = "Are Pothos and Tibouchina Aubl both flowering genus of plants?"
    base = {"url": "https://wiki.test/x", "final_url": "https://wiki.test/x", "origin": "https://wiki.test",
            "fetched_at": "2026-12-05T00:00:00Z", "sha256": "0" * 64, "paragraph_index": 0}
    page = {**base, "chunk_id": "c1", "title": "Tibouchina",
            "text": "Tibouchina Aubl. is a genus of about 350 species of flowering plants. They grow in Brazil."}
    added = attribute_claims(question, ["Pothos", "Tibouchina Aubl"], [], [page])
    assert [c["citations"][0]["quote"] for c in added] == [
        "Tibouchina Aubl. is a genus of about 350 species of flowering plants."]


def test_the_sides_page_that_shares_the_other_sides_qualifier_comes_first() -> None:
    from ditto_nb.patterns.common.compare.sides import attribute_claims
    question = "Do Bloody Mary and Sidecar share any ingredients in common?"
    base = {"url": "https://wiki.test/x", "final_url": "https://wiki.test/x", "origin": "https://wiki.test",
            "fetched_at": "2026-12-05T00:00:00Z", "sha256": "0" * 64, "paragraph_index": 0}
    folklore = {**base, "chunk_id": "c1", "title": "Bloody Mary (folklore)", "text": "Bloody Mary is a legend of a ghost."}
    cocktail = {**base, "chunk_id": "c2", "title": "Bloody Mary (cocktail)",
                "text": "A Bloody Mary is a cocktail containing vodka and tomato juice."}
    sidecar = {**base, "chunk_id": "c3", "title": "Sidecar (cocktail)", "text": "The sidecar is a cocktail made with cognac."}
    added = attribute_claims(question, ["Bloody Mary", "Sidecar"], [], [folklore, cocktail, sidecar])
    assert added[0]["citations"][0]["title"] == "Bloody Mary (cocktail)"


@pytest.mark.parametrize(("question", "values", "quotes", "decided"), [
    ("Is the building at 200 West Street taller than the one at 888 7th Avenue?", ["749 ft tall", "628 ft tall"],
     [["It is 749 ft (228 m) tall."], ["The tower is 628 ft tall."]], "Yes"),
    ("Is the building at 200 West Street taller than the one at 888 7th Avenue?",  # a name's number is not the value
     ["The building at 200 West Street is 749 ft tall.", "The building at 888 7th Avenue is 628 ft tall."],
     [["It is 749 ft (228 m) tall."], ["The tower is 628 ft tall."]], "Yes"),
    ("Is the building at 200 West Street taller than the one at 888 7th Avenue?", ["749 ft tall", "228 m tall"],
     [["It is 749 ft (228 m) tall."], ["It is 749 ft (228 m) tall."]], None),  # units differ: no decision
    ("Which band has more members, Lawson or Hanson?", ["four members", "3 members"],
     [["Lawson has four members."], ["Hanson has 3 members."]], "Lawson"),  # a number written out counts
    ("Do the operas Vanessa and Le roi malgré lui contain the same number of acts?", ["three acts", "3 acts"],
     [["Vanessa is an opera in three acts."], ["an opera comique in three acts"]], "Yes"),
    ("Is the building at 200 West Street taller than the one at 888 7th Avenue?",  # several numbers: the shared unit
     ["The building at 200 West Street is a 749 ft, 44-story building.",
      "888 7th Avenue is a 628 ft (191 m) tall skyscraper which was completed in 1969."],
     [["The building at 200 West Street is a 749 ft, 44-story building."],
      ["888 7th Avenue is a 628 ft (191 m) tall skyscraper which was completed in 1969."]], "Yes"),
    ("Which mountain is higher, Alpha or Beta?", ["7,885 m (25,869 ft)", "7,546 m (24,757 ft)"],  # both units agree
     [["Alpha is 7,885 m (25,869 ft) high."], ["Beta is 7,546 m (24,757 ft) high."]], "Alpha"),
    ("Which mountain is higher, Alpha or Beta?", ["7,885 m (25,869 ft)", "7,546 m (26,757 ft)"],  # units disagree
     [["Alpha is 7,885 m (25,869 ft) high."], ["Beta is 7,546 m (26,757 ft) high."]], None),
    ("Which opera has more acts, Parsifal or Manon?", ["3 acts", "5 acts"],
     [["an opera in 3 acts"], ["an opera in 5 acts"]], "Manon"),
    ("Was The Bomb released before Rolling Papers?", ["2015", "March 29, 2011"],
     [["The Bomb is a 2015 film."], ["It was released on March 29, 2011."]], "No"),
    ("Were The Bomb and Rolling Papers released in the same year?", ["2015", "2011"],
     [["The Bomb is a 2015 film."], ["It was released on March 29, 2011."]], "No"),
    ("Do the operas Vanessa and Le roi malgré lui contain the same number of acts?", ["3 acts", "3 acts"],
     [["Vanessa is an opera in 3 acts."], ["an opera comique in 3 acts"]], "Yes"),
    ("Is A taller than B?", ["749 ft", "628 ft"], [["It is 750 ft tall."], ["628 ft"]], None),  # not in A's quotes
    ("Are both Cooking Light and Vibe magazines?", ["1987", "1993"], [["1987"], ["1993"]], None),
    ("Which 1970's film was released first, Charley and the Angel or The Boatniks?",  # a decade is not a year
     ["Charley and the Angel is a 1973 Disney film set in the 1930s", "The Boatniks is a 1970 American comedy film."],
     [["Charley and the Angel is a 1973 Disney film set in the 1930s."], ["The Boatniks is a 1970 American comedy film."]],
     "Boatniks"),
])
def test_two_values_decide_an_order_or_sameness_by_code(question: str, values: list[str], quotes: list[list[str]],
                                                        decided: str | None) -> None:
    from ditto_nb.patterns.common.compare.values import decide_values
    from ditto_nb.patterns.common.retrieval import comparison_entities
    sides = comparison_entities(question) if "A taller" not in question else ["A", "B"]
    assert decide_values(question, sides, values, quotes) == decided


@pytest.mark.parametrize(("values", "decided"), [(["formed in 2000", "formed in 2005"], "Yes"),
                                                  (["formed in 2000", "2012"], "No"), (["in 2000", "long ago"], None)])
def test_both_before_a_year_compares_each_sides_year_with_it(values: list[str], decided: str | None) -> None:
    from ditto_nb.patterns.common.compare.values import decide_values
    quotes = [["Sound Team was formed in 2000 in Austin."], ["Dead by Sunrise formed in 2005, and again in 2012."]]
    question = "Were Sound Team and Dead by Sunrise both formed before 2010?"
    assert decide_values(question, ["Sound Team", "Dead by Sunrise"], values, quotes) == decided


async def test_a_yes_no_sentence_from_the_compare_step_publishes_its_leading_word(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    def sentence(user: str) -> dict[str, Any]:
        return {"first": "painted ochre", "second": "painted grey", "answer": "Yes, both have painted walls.",
                "status": "answered"}

    wiki: SandboxWeb = sandbox_factory([
        {"url": wiki_url("Orval Keep"), "title": "Orval Keep", "paragraphs": [ORVAL]},
        {"url": wiki_url("Brenn Hold"), "title": "Brenn Hold", "paragraphs": [BRENN]},
    ])
    script = Script(queries=["Orval Keep", "Brenn Hold"], answer=_declined, compare=sentence)
    scripted_model.responder = script
    request = make_request(wiki, question="Are Orval Keep and Brenn Hold hill forts of the same kind?",
                           max_queries=2, max_pages=4)
    search = SearchSetup.from_sandbox(wiki, policy_overrides={"retries": 0})
    report = await run_once(tmp_path / "t", request, config, search, scripted_model)
    assert "compare" in script.seen
    assert report.answer.status == "answered" and report.answer.text == "Yes"


@pytest.mark.parametrize(("values", "answer"), [
    (["yes, a hill fort", "Yes: a hill fort"], "Yes"), (["yes, a hill fort", "no, a castle"], None),
    (["unclear", "no, a castle"], None), (["yes, a hill fort", "unclear"], None), (["a hill fort", "yes"], None)])
def test_a_both_question_combines_each_sides_own_judgement(values: list[str], answer: str | None) -> None:
    from ditto_nb.patterns.common.compare.side_by_side import asks_both, both_answer
    assert asks_both("Are Orval Keep and Brenn Hold both hill forts?")
    assert not asks_both("Were Sound Team and Dead by Sunrise both formed before 2010?")
    assert not asks_both("Which fort is older, Orval Keep or Brenn Hold?")
    assert both_answer(values) == answer


async def test_a_both_question_is_judged_side_by_side_and_an_unclear_side_declines(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    prompts: list[str] = []

    def judged(user: str) -> dict[str, Any]:
        prompts.append(user)
        return {"first": "yes, walls painted ochre", "second": "unclear", "answer": "yes", "status": "answered"}

    wiki: SandboxWeb = sandbox_factory([
        {"url": wiki_url("Orval Keep"), "title": "Orval Keep", "paragraphs": [ORVAL]},
        {"url": wiki_url("Brenn Hold"), "title": "Brenn Hold", "paragraphs": [BRENN]},
    ])
    script = Script(queries=["Orval Keep", "Brenn Hold"], answer=_declined, compare=judged)
    scripted_model.responder = script
    request = make_request(wiki, question="Do both Orval Keep and Brenn Hold have ochre walls?", max_queries=2,
                           max_pages=4)
    search = SearchSetup.from_sandbox(wiki, policy_overrides={"retries": 0})
    report = await run_once(tmp_path / "t", request, config, search, scripted_model)
    assert "yes, no or unclear for the first one" in prompts[0]
    assert report.answer.status == "insufficient-evidence"  # the model's "yes" does not stand on an unclear side
