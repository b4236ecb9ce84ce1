"""Code decides an ordering comparison from verified claims (issue 13): unit rules and one task
through the scripted model whose answer names the wrong side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa.rule_set import answer_problems
from ditto_nb.patterns.common.compare.comparison import decide_order, order_of, side_value
from ditto_nb.sandbox import SandboxWeb, wiki_url
from tests.patterns.web_qa.helpers import Script, make_request, run_once


def claim(text: str, quote: str, title: str) -> Any:
    return {"claim": text, "citations": [{"quote": quote, "title": title}]}


TERRY = claim("Terry Richardson was born in 1965.", "Terry Richardson (born August 14, 1965) is an American photographer.",
              "Terry Richardson")
ANNIE = claim("Annie Morton was born in 1970.", "Annie Morton (born October 8, 1970) is an American model.", "Annie Morton")


@pytest.mark.parametrize(("question", "order"), [
    ("Who was born first, Annie Morton or Terry Richardson?", "earlier"),
    ("Who is older, Chris Hardwick or Jessica Chobot?", "earlier"),
    ("Which film was released more recently, A or B?", "later"),
    ("Who is younger, A or B?", "later"),
    ("Which arena has more seats, the Robins Center or Case Gym?", "more"),
    ("Which river is shorter, the Po or the Tiber?", "fewer"),
    ("Were Shirley Temple and Janet Waldo both American?", None),
    ("Was the Robins Center built first?", None),
    ("Which high jumper is Danish, A or B?", None),
    ("Who was the first Danish poet to win the prize, A or B?", None),  # a record holder, not an order
    ("Which was the first to be founded, A or B?", "earlier"),
])
def test_order_of_the_question(question: str, order: str | None) -> None:
    assert order_of(question) == order


def test_the_earlier_year_wins_whatever_the_order_of_the_sides() -> None:
    question = "Who was born first, Annie Morton or Terry Richardson?"
    assert decide_order(question, ["Annie Morton", "Terry Richardson"], [ANNIE, TERRY]) == "Terry Richardson"
    assert decide_order(question, ["Annie Morton", "Terry Richardson"], [TERRY, ANNIE]) == "Terry Richardson"
    younger = "Who is younger, Annie Morton or Terry Richardson?"
    assert decide_order(younger, ["Annie Morton", "Terry Richardson"], [ANNIE, TERRY]) == "Annie Morton"


def test_a_year_only_in_the_quote_counts_and_a_missing_side_decides_nothing() -> None:
    question = "Which film was released first, Kiss and Tell or A Kiss for Corliss?"
    kiss = claim("Kiss and Tell is an American comedy film.", "Kiss and Tell is a 1945 American comedy film.",
                 "Kiss and Tell (1945 film)")
    corliss = claim("A Kiss for Corliss is a film released in 1949.",
                    "A Kiss for Corliss is a 1949 American comedy film.", "A Kiss for Corliss")
    sides = ["Kiss and Tell", "A Kiss for Corliss"]
    assert decide_order(question, sides, [corliss, kiss]) == "Kiss and Tell"
    assert decide_order(question, sides, [corliss]) is None


def test_seats_compare_numbers_not_years() -> None:
    question = "Which arena has more seats, the Robins Center or Case Gym?"
    robins = claim("The Robins Center, opened in 1972, seats 7,201 people.",
                   "The Robins Center, opened in 1972, seats 7,201 people.", "Robins Center")
    case = claim("Case Gym has 1,800 seats.", "Case Gym has 1,800 seats.", "Case Gym")
    sides = ["Robins Center", "Case Gym"]
    assert side_value("more", "Robins Center", "Case Gym", [robins, case]) == 7201.0
    assert decide_order(question, sides, [case, robins]) == "Robins Center"
    assert decide_order("Which arena has fewer seats, the Robins Center or Case Gym?", sides, [case, robins]) == "Case Gym"


def test_a_plural_title_is_not_the_side() -> None:
    # seen on the real wiki: "Aliens (soundtrack)" (1986) was read as "Alien" (1979)
    from ditto_nb.patterns.common.compare.comparison import about

    aliens = claim("The score to the 1986 film Aliens was composed by James Horner.",
                   "The score to the 1986 film Aliens was composed by James Horner.", "Aliens (soundtrack)")
    alien = claim("Alien is a 1979 film.", "Alien is a 1979 science fiction horror film.", "Alien (film)")
    battle = claim("Battle Beyond the Stars is a 1980 film.", "Battle Beyond the Stars is a 1980 film.",
                   "Battle Beyond the Stars")
    sides = ["Alien", "Battle Beyond the Stars"]
    assert not about(aliens, *sides) and about(alien, *sides)
    question = "Which film was released first, Alien or Battle Beyond the Stars?"
    assert decide_order(question, sides, [aliens, battle]) is None
    assert decide_order(question, sides, [aliens, alien, battle]) == "Alien"


def record(title: str, text: str) -> Any:
    """A chunk record of one paragraph on the wiki page ``title``."""
    return {"chunk_id": title, "url": wiki_url(title), "final_url": wiki_url(title), "origin": "https://wiki.test",
            "title": title, "fetched_at": "2026-12-02T00:00:00Z", "sha256": "0" * 64, "paragraph_index": 0,
            "text": text}


def test_the_side_sentence_comes_from_the_page_the_question_asks_for() -> None:
    # seen on the real wiki: "Aliens (soundtrack)" gave Alien's side sentence (1986), not "Alien (film)"
    from ditto_nb.patterns.common.compare.sides import side_claims

    shown = [record("Aliens (soundtrack)", "The score to the 1986 film Aliens was composed by James Horner."),
             record("Alien (soundtrack)", "Alien is the soundtrack to the 1979 film, composed by Jerry Goldsmith."),
             record("Alien (film)", "Alien is a 1979 science-fiction horror film directed by Ridley Scott."),
             record("Battle Beyond the Stars", "Battle Beyond the Stars is a 1980 American space opera film.")]
    question = "Which film was released first, Alien or Battle Beyond the Stars?"
    sides = ["Alien", "Battle Beyond the Stars"]
    added = side_claims(question, sides, [], shown)
    assert [c["citations"][0]["title"] for c in added] == ["Alien (film)", "Battle Beyond the Stars"]
    assert decide_order(question, sides, added) == "Alien"


def test_a_page_titled_by_the_side_is_its_page_and_a_disambiguation_page_is_none() -> None:
    # seen on the real wiki: "Manon (disambiguation)" and the ballet "L'histoire de Manon" were read
    # beside the opera "Manon", and its "five acts" was not among the side's quotes
    from ditto_nb.patterns.common.compare.sides import attribute_claims

    shown = [record("Parsifal", "Parsifal is an opera in three acts by Richard Wagner."),
             record("Manon (disambiguation)", "Manon is an opera by Jules Massenet. Manon Lescaut has 4 acts."),
             record("L'histoire de Manon", "L'histoire de Manon is a ballet in 2 acts to music by Massenet."),
             record("Manon", "Manon is an opéra comique in five acts by Jules Massenet.")]
    question = "Which opera has more acts, Parsifal or Manon?"
    sides = ["Parsifal", "Manon"]
    added = attribute_claims(question, sides, [], shown)
    assert {c["citations"][0]["title"] for c in added} == {"Parsifal", "Manon"}
    assert decide_order(question, sides, added) == "Manon"


def test_disagreeing_values_or_a_claim_naming_both_sides_decide_nothing() -> None:
    question = "Who was born first, Annie Morton or Terry Richardson?"
    sides = ["Annie Morton", "Terry Richardson"]
    other_year = claim("Annie Morton was born in 1960.", "Annie Morton was born in 1960.", "Annie Morton")
    assert decide_order(question, sides, [ANNIE, other_year, TERRY]) is None
    both = claim("Annie Morton worked with Terry Richardson in 1995.",
                 "Annie Morton worked with Terry Richardson in 1995.", "Fashion shoots")
    assert decide_order(question, sides, [both]) is None
    same = claim("Annie Morton was born in 1965.", "Annie Morton was born in 1965.", "Annie Morton")
    assert decide_order(question, sides, [same, TERRY]) is None


def test_a_decided_side_skips_the_answer_word_checks_but_not_both_sides() -> None:
    question = "Who was born first, Annie Morton or Terry Richardson?"
    sides = ["Annie Morton", "Terry Richardson"]
    assert answer_problems(question, "Terry Richardson", "answered", [ANNIE, TERRY], sides, fits=True,
                           decided=True) == []
    problems = answer_problems(question, "Terry Richardson", "answered", [TERRY], sides, decided=True)
    assert any("Annie Morton" in p for p in problems)


OLDER = "Mara Quell (born 12 March 1931) is a Danish architect."
YOUNGER = "Tor Vennick (born 4 June 1945) is a Norwegian architect known for wooden churches."


async def run_architects(tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any, script: Script,
                         question: str, max_queries: int = 2, max_pages: int = 4, younger: str = YOUNGER) -> Any:
    """One task over a wiki of the two architects' pages (Mara Quell older, Tor Vennick younger)."""
    wiki: SandboxWeb = sandbox_factory([
        {"url": wiki_url("Mara Quell"), "title": "Mara Quell", "paragraphs": [OLDER]},
        {"url": wiki_url("Tor Vennick"), "title": "Tor Vennick", "paragraphs": [younger]},
    ])
    scripted_model.responder = script
    request = make_request(wiki, question=question, max_queries=max_queries, max_pages=max_pages)
    search = SearchSetup.from_sandbox(wiki, policy_overrides={"retries": 0})
    return await run_once(tmp_path / "t", request, config, search, scripted_model)


def labels(chunks: list[tuple[str, str, str]]) -> dict[str, str]:
    """Chunk label by the page subject its text starts with."""
    return {text.split(" (")[0]: lbl for lbl, _origin, text in chunks}


async def test_the_task_publishes_the_side_its_verified_claims_decide(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    """The model quotes both birth years and then names the younger architect: code answers."""
    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        label = labels(chunks)
        return {"status": "answered", "answer": "Tor Vennick", "claims": [
            {"chunk_id": label["Mara Quell"], "quote": OLDER, "claim": "Mara Quell was born on 12 March 1931."},
            {"chunk_id": label["Tor Vennick"], "quote": YOUNGER, "claim": "Tor Vennick was born on 4 June 1945."}]}

    script = Script(queries=["Mara Quell", "Tor Vennick"], answer=answer)
    report = await run_architects(tmp_path, sandbox_factory, config, scripted_model, script,
                                  "Who was born first, Mara Quell or Tor Vennick?")
    assert report.answer.status == "answered"
    assert report.answer.text == "Mara Quell"
    assert "repair" not in script.seen  # the claims were sound; only the choice was wrong
    assert {c.citations[0].title for c in report.answer.claims} == {"Mara Quell", "Tor Vennick"}


CHO = claim("Cho Kyuhyun is a South Korean singer.", "Cho Kyu-hyun (born February 3, 1988) is a South Korean singer.",
            "Cho Kyuhyun")
METHOD = claim("Method Man is an American rapper.", "Clifford Smith, known as Method Man, is an American rapper.",
               "Method Man")
WALDO = claim("Janet Waldo was an American actress.",
              "Janet Waldo (February 4, 1920 – June 12, 2016) was an award-winning American radio actress.", "Janet Waldo")
TEMPLE = claim("Shirley Temple was an actress.", "Shirley Temple Black was an American actress and diplomat.",
               "Shirley Temple")


def test_nationality_comparisons_are_decided_from_each_sides_demonym() -> None:
    from ditto_nb.patterns.common.compare.nationality import decide_nationality, nationality

    same = "Are Cho Kyuhyun and Method Man of the same nationality?"
    assert nationality("Cho Kyuhyun", "Method Man", [CHO, METHOD]) == "South Korean"
    assert decide_nationality(same, ["Cho Kyuhyun", "Method Man"], [CHO, METHOD]) == "no"
    both = "Were Shirley Temple and Janet Waldo both American?"
    assert decide_nationality(both, ["Shirley Temple", "Janet Waldo"], [TEMPLE, WALDO]) == "yes"  # quote-only word
    assert decide_nationality("Were Shirley Temple and Cho Kyuhyun both American?", ["Shirley Temple", "Cho Kyuhyun"],
                              [TEMPLE, CHO]) == "no"
    # a side without a stated nationality, a non-demonym attribute, or an ordering question: undecided
    assert decide_nationality(same, ["Cho Kyuhyun", "Method Man"], [CHO]) is None
    assert decide_nationality("Are Winner and SF9 both boy groups?", ["Winner", "SF9"], [CHO, METHOD]) is None
    name = claim("Morgan Lee is a Morgan fan.", "Morgan Lee is a Morgan fan.", "Morgan Lee")  # a name, not a demonym
    assert nationality("Morgan Lee", "Method Man", [name]) is None


def test_a_count_comparison_reads_the_numbers_of_the_counted_noun() -> None:
    from ditto_nb.patterns.common.compare.comparison import counted_unit, decide_order, order_of

    assert counted_unit("Which genus has more species, Red Fen or Tusk?") == ["speci"]
    assert counted_unit("Which peak is higher: Oren Peak or Tusk") == []
    fen = claim("Red Fen is a genus.", "Red Fen (RF 111) is a genus of about 20 species of grasses.", "Red Fen")
    tusk = claim("Tusk is a genus.", "Tusk is a genus of 6 species of aquatic plants.", "Tusk")
    question, sides = "Which genus has more species, Red Fen or Tusk?", ["Red Fen", "Tusk"]
    fen_claim = claim("Red Fen (RF 111) is a genus of about 20 species of grasses.",
                      "Red Fen (RF 111) is a genus of about 20 species of grasses.", "Red Fen")
    tusk_claim = claim("Tusk is a genus of 6 species of aquatic plants.", "Tusk is a genus of 6 species of aquatic plants.",
                       "Tusk")
    assert decide_order(question, sides, [fen_claim, tusk_claim]) == "Red Fen"  # 20 species, not "RF 111"
    assert decide_order(question, sides, [fen, tusk]) is None  # the claims state no number
    # a planned number is no count ("plans to open sixty new stores"): every number is read, two disagree
    plans = claim("Tusk has 5 shops and plans to open sixty new stores.", "Tusk has 5 shops and plans to open sixty "
                  "new stores.", "Tusk")
    shops = claim("Red Fen has about 14 stores.", "Red Fen has about 14 stores.", "Red Fen")
    assert decide_order("Who has more stores, Red Fen or Tusk?", sides, [shops, plans]) is None
    # "how many more …" asks a difference, not a side
    assert order_of("How many more titles did Red Fen win than Tusk?") is None


def test_who_died_first_reads_the_death_year_not_the_birth_year() -> None:
    from ditto_nb.patterns.common.compare.comparison import decide_order

    lead = "Mara Quell (1 July 1909 – 30 May 1994) was a Danish novelist."
    quell = claim(lead, lead, "Mara Quell")
    tamm = claim("Ilse Tamm died in 1990.", "Ilse Tamm (born 1920) was a pilot. She died in 1990.", "Ilse Tamm")
    sides = ["Mara Quell", "Ilse Tamm"]
    assert decide_order("Who died first, Mara Quell or Ilse Tamm?", sides, [quell, tamm]) == "Ilse Tamm"
    assert decide_order("Who was born first, Mara Quell or Ilse Tamm?", sides, [quell, claim(
        "Ilse Tamm was born in 1920.", "Ilse Tamm (born 1920) was a pilot.", "Ilse Tamm")]) == "Mara Quell"


def test_two_births_in_one_year_are_ordered_by_their_days_and_only_then() -> None:
    from ditto_nb.patterns.common.compare.comparison import order_decision, value_text

    quell = claim("Mara Quell was born in 1941.", "Mara Quell (born June 20, 1941) is a German physicist.", "Mara Quell")
    tamm = claim("Ilse Tamm was born on 15 September 1941.", "Ilse Tamm (born 15 September 1941) is a Polish pilot.",
                 "Ilse Tamm")
    question, sides = "Who was born first, Ilse Tamm or Mara Quell?", ["Ilse Tamm", "Mara Quell"]
    decided = order_decision(question, sides, [quell, tamm])
    assert decided is not None and decided[0] == "Mara Quell"  # the claim's year, its day from the quote
    assert [value_text(v) for v in decided[1:]] == ["1941-09-15", "1941-06-20"]
    younger = order_decision("Who is younger, Ilse Tamm or Mara Quell?", sides, [quell, tamm])
    assert younger is not None and younger[0] == "Ilse Tamm"
    # the same year and one side without a day: nothing is decided
    bare = claim("Ilse Tamm was born in 1941.", "Ilse Tamm (born 1941) is a Polish pilot.", "Ilse Tamm")
    assert order_decision(question, sides, [quell, bare]) is None
    # different years still decide with or without days; plain numbers print as numbers
    older = claim("Ilse Tamm was born in 1939.", "Ilse Tamm (born 1939) is a Polish pilot.", "Ilse Tamm")
    earlier = order_decision(question, sides, [quell, older])
    assert earlier is not None and earlier[0] == "Ilse Tamm"
    assert value_text(1939.0) == "1939" and value_text(3.0) == "3"


def test_both_a_and_b_then_the_nationality_word_is_decided_and_a_birthplace_is_no_nationality() -> None:
    from ditto_nb.patterns.common.compare.nationality import decide_nationality, nationality

    quell = claim("Mara Quell is an American writer.", "Mara Quell (born 1950) is an American television writer.",
                  "Mara Quell")
    tamm = claim("Ilse Tamm was a director.", "Ilse Tamm (1885 – 1959) was a French-born American film director.",
                 "Ilse Tamm")
    assert nationality("Ilse Tamm", "Mara Quell", [tamm]) == "American"  # not "French" of "French-born"
    sides = ["Mara Quell", "Ilse Tamm"]
    assert decide_nationality("Are both Mara Quell and Ilse Tamm American?", sides, [quell, tamm]) == "yes"
    assert decide_nationality("Are both Mara Quell and Ilse Tamm French?", sides, [quell, tamm]) == "no"
    # the words after the asked nationality must be stated too ("writers": only one side says so)
    assert decide_nationality("Are both Mara Quell and Ilse Tamm American writers?", sides, [quell, tamm]) is None


def test_both_needs_the_nationality_word_right_after_it_and_the_noun_stated() -> None:
    from ditto_nb.patterns.common.compare.nationality import decide_nationality

    winner = claim("Winner is a South Korean boy group.", "Winner is a South Korean boy group formed in 2013.", "Winner")
    sf9 = claim("SF9 is a South Korean boy band.", "SF9 is a South Korean boy band formed by FNC.", "SF9")
    sf9_group = claim("SF9 is a South Korean boy group.", "SF9 is a South Korean boy group.", "SF9")
    sides = ["Winner", "SF9"]
    question = "Are Winner and SF9 both South Korean boy groups?"
    assert decide_nationality(question, sides, [winner, sf9_group]) == "yes"
    assert decide_nationality(question, sides, [winner, sf9]) is None  # "band": the noun is not stated
    # "both directors of American films" asks no nationality
    assert decide_nationality("Are Winner and SF9 both directors of American films?", sides, [winner, sf9_group]) is None


async def test_a_claim_copied_from_its_quote_stands_against_a_refusing_review(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    """The grounding review refuses both claims; the one that is a word-for-word excerpt of its
    quote is published, the paraphrase is withheld (issue 13: the 1.5B reviewer refused "Shirley
    Temple was an American actress …" with the reason "the quote explicitly states …")."""
    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        label = labels(chunks)
        return {"status": "answered", "answer": "Danish", "claims": [
            {"chunk_id": label["Mara Quell"], "quote": OLDER, "claim": "Mara Quell is a Danish architect."},
            {"chunk_id": label["Mara Quell"], "quote": OLDER, "claim": "Mara Quell was a Danish architect."}]}

    refuse = lambda n: {"verdicts": [{"n": i, "supported": False, "reason": "the quote states it"}  # noqa: E731
                                     for i in range(1, n + 1)]}
    script = Script(queries=["Mara Quell"], answer=answer, repair=answer, ground=refuse)
    report = await run_architects(tmp_path, sandbox_factory, config, scripted_model, script,
                                  "What nationality is the architect Mara Quell?", max_queries=1, max_pages=2)
    assert [c.claim for c in report.answer.claims] == ["Mara Quell is a Danish architect."]
    assert report.answer.status == "answered" and report.answer.text == "Danish"


async def test_a_side_left_without_a_claim_gets_its_pages_deciding_sentence(
    tmp_path: Path, sandbox_factory: Any, config: Any, scripted_model: Any
) -> None:
    """The draft claims the younger architect's birth year only; code adds the other side's
    sentence from its page (verbatim, verified) and decides, with no repair."""
    def answer(chunks: list[tuple[str, str, str]]) -> dict[str, Any]:
        label = labels(chunks)
        return {"status": "answered", "answer": "Tor Vennick", "claims": [
            {"chunk_id": label["Tor Vennick"], "quote": YOUNGER, "claim": "Tor Vennick was born on 4 June 1945."}]}

    script = Script(queries=["Mara Quell", "Tor Vennick"], answer=answer)
    report = await run_architects(tmp_path, sandbox_factory, config, scripted_model, script,
                                  "Who was born first, Mara Quell or Tor Vennick?")
    assert report.answer.status == "answered" and report.answer.text == "Mara Quell"
    assert "repair" not in script.seen
    added = [c for c in report.answer.claims if c.citations[0].title == "Mara Quell"]
    assert len(added) == 1 and added[0].claim == OLDER == added[0].citations[0].quote
    assert "added by code" in added[0].verification.grounding_reason


def test_side_claims_only_for_a_comparison_code_decides() -> None:
    from ditto_nb.patterns.common.compare.sides import side_claims

    record: Any = {"chunk_id": "c1", "url": wiki_url("Mara Quell"), "final_url": wiki_url("Mara Quell"),
                   "origin": "https://wiki.test", "title": "Mara Quell", "fetched_at": "2026-12-02T00:00:00Z",
                   "sha256": "0" * 64, "paragraph_index": 0, "text": OLDER}
    younger: Any = claim("Tor Vennick was born in 1945.", YOUNGER, "Tor Vennick")
    sides = ["Mara Quell", "Tor Vennick"]
    added = side_claims("Who was born first, Mara Quell or Tor Vennick?", sides, [younger], [record])
    assert [c["claim"] for c in added] == [OLDER]
    assert side_claims("Who designed the Blue Museum, Mara Quell or Tor Vennick?", sides, [younger], [record]) == []
    assert side_claims("Who was born first, Mara Quell or Tor Vennick?", [], [younger], [record]) == []


def test_numbers_and_years_followed_by_a_comma_are_read() -> None:
    # seen on the real wiki: "the population was 43,742, making it …" gave no number, so the
    # ordering comparison was left to a repair (and ended insufficient)
    from ditto_nb.patterns.common.compare.comparison import YEAR, numbers

    assert numbers("As of the 2010 census, the population was 43,742, making it the second-least populous.") == [43742.0]
    assert numbers("It has 12, 1,234,567 or 3.5 of them.") == [12.0, 1234567.0, 3.5]
    assert YEAR.findall("He was born in 1988, and died in 1996.") == ["1988", "1996"]
    assert YEAR.findall("1,988 people; 19880 votes; 3.1988 points") == []
    question = "Which county had more residents at the 2010 census, Sullivan County or Carroll County?"
    sides = ["Sullivan County", "Carroll County"]
    sullivan = claim("As of the 2010 census, the population was 43,742, making it the second-least populous county.",
                     "As of the 2010 census, the population was 43,742, making it the second-least populous county.",
                     "Sullivan County, New Hampshire")
    carroll = claim("As of the 2010 census, the population was 47,818, making it the third-least populous county.",
                    "As of the 2010 census, the population was 47,818, making it the third-least populous county.",
                    "Carroll County, New Hampshire")
    assert decide_order(question, sides, [sullivan, carroll]) == "Carroll County"


def test_a_choice_answered_with_neither_or_both_sides_is_a_problem() -> None:
    # seen on the real wiki: "American" for "Which American film director …, A or B?"; "A or B"
    from ditto_nb.patterns.web_qa.rule_set import answer_problems
    from ditto_nb.patterns.common.compare.side_by_side import named_sides

    question = "Which fort has walls painted ochre, Orval Keep or The Brenn Hold?"
    sides = ["Orval Keep", "The Brenn Hold"]
    assert named_sides("Brenn Hold", sides) == ["The Brenn Hold"]
    assert named_sides("Orval Keep or The Brenn Hold", sides) == sides
    assert named_sides("ochre", sides) == []
    claims = [{"citations": [{"quote": "Orval Keep is a hill fort whose walls are painted ochre.", "title": "Orval Keep"}]}]
    assert any("names neither" in p for p in answer_problems(question, "ochre", "answered", claims, compared=sides))
    assert any("names both" in p for p in answer_problems(question, "Orval Keep or The Brenn Hold", "answered", claims,
                                                          compared=sides))
    assert not any("the question asks which" in p for p in answer_problems(question, "Orval Keep", "answered", claims,
                                                                          compared=sides))
    # not a choice: a shared value names neither side and is no problem here
    assert not any("the question asks which" in p for p in answer_problems(
        "Orval Keep and The Brenn Hold have walls of what colour?", "ochre", "answered", claims, compared=sides))
