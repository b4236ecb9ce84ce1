"""Lexical support checks: a statement's numbers, dates, names and words must be in its quote."""

from __future__ import annotations

from ditto_nb.evidence.support import answer_in_quotes, check_support, sentence_of


def test_date_absent_from_quote_is_rejected() -> None:
    result = check_support("He became captain on 5 May 1990.", "The final was played at Wembley Stadium.")
    assert not result.ok and "1990" in result.absent and "May" in result.absent
    assert any("number" in reason for reason in result.reasons)


def test_quote_about_a_different_entity_is_rejected() -> None:
    result = check_support("John Smith was a captain of Leeds United.",
                           "The captains were chosen by Peter Brown before the final.")
    assert not result.ok and {"smith", "leeds", "united"} <= {w.lower() for w in result.absent}
    assert any("does not name John, Smith, Leeds" in reason for reason in result.reasons)


def test_a_statement_whose_first_word_names_another_subject_is_rejected() -> None:
    # a comparison's finding written about one side from the other side's page
    quote = "Jack and Jill is an American bimonthly magazine for children 7 to 12 years old."
    wrong = check_support("Paper is focused more on children 7 to 12 years old.", quote,
                          title="Jack and Jill (magazine)")
    assert not wrong.ok and "Paper" in wrong.absent
    assert check_support("Jack and Jill is focused on children 7 to 12 years old.", quote,
                         title="Jack and Jill (magazine)").ok
    # an initial is found in the name it abbreviates, not in a name of another letter
    kaiser = "Henry John Kaiser was an American industrialist who founded Kaiser Ventures."
    assert check_support("Henry J. Kaiser founded Kaiser Ventures.", kaiser).ok
    assert "Q" in check_support("Henry Q. Kaiser founded Kaiser Ventures.", kaiser).absent
    # a first word the quote holds in lower case is not a name it lacks
    assert check_support("Founded in 1990, the magazine serves children.", "The magazine was founded in 1990 "
                         "and serves children.").ok


def test_pronoun_quote_is_supported_by_its_sentence_and_page_title() -> None:
    paragraph = "Shirley Temple was an actress. As an adult, she also served as Chief of Protocol of the United States."
    quote = "served as Chief of Protocol"
    assert not check_support("Shirley Temple served as Chief of Protocol.", quote).ok
    assert check_support("Shirley Temple served as Chief of Protocol.", quote, paragraph=paragraph,
                         title="Shirley Temple").ok
    assert sentence_of(paragraph, quote).startswith("As an adult")


def test_mostly_absent_content_words_are_rejected_and_numbers_ignore_separators() -> None:
    assert check_support("The main span is 1,280 meters long.", "Its main span is 1280 meters long.").ok
    result = check_support("The bridge was painted orange by volunteers.", "The bridge opened in 1937.")
    assert not result.ok and result.coverage < 0.5


def test_a_number_written_out_in_the_quote_states_its_digits() -> None:
    assert check_support("The opera has 3 acts.", "The opera is in three acts.").ok
    result = check_support("The opera has 4 acts.", "The opera is in three acts.")
    assert not result.ok and "4" in result.absent


def test_answer_words_must_appear_in_quotes() -> None:
    assert answer_in_quotes("Chief of Protocol", ["She served as Chief of Protocol."]).ok
    missing = answer_in_quotes("Greenwich Village", ["She lives in Manhattan."])
    assert not missing.ok and "Greenwich" in missing.reasons[0]
    assert not answer_in_quotes("1838", []).ok


def test_a_claim_that_only_names_its_pages_subject_is_rejected() -> None:
    """A small model writes the entity's name as a comparison claim ("Cho Kyuhyun"): no fact."""
    quote = "Cho Kyu-hyun (born February 3, 1988), better known as Kyuhyun, is a South Korean singer."
    check = check_support("Cho Kyuhyun", quote, title="Cho Kyuhyun")
    assert not check.ok and any("only names its page's subject" in r for r in check.reasons)
    assert check_support("Kyuhyun is a South Korean singer.", quote, title="Cho Kyuhyun").ok
    assert check_support("Cho Kyuhyun", quote, title="Cho Kyuhyun", sentence=False).ok  # a short answer may be a name


def test_page_title_supports_names_not_other_words() -> None:
    """A basketball season's title cannot carry 'men's soccer team' for a quote about its conference."""
    quote = "The Catamounts won their third consecutive America East Conference regular season Championship."
    title = "2013–14 Vermont Catamounts men's basketball team"
    claim = "The Vermont Catamounts men's soccer team currently competes in a conference formerly known as the America East."
    check = check_support(claim, quote, title=title)
    assert not check.ok and any("most of its words" in r for r in check.reasons)
    assert "soccer" in check.absent and "team" in check.absent  # title words count for names only
    # the title still names a pronoun sentence's subject
    assert check_support("Vermont Catamounts won the America East Conference championship.", quote, title=title).ok


def test_a_question_is_not_a_claim() -> None:
    quote = '"A Rather Blustery Day" is a whimsical song from the Walt Disney musical film featurette.'
    check = check_support("A Rather Blustery Day also voiced what hedgehog?", quote, title="A Rather Blustery Day")
    assert not check.ok and any("it is a question" in r for r in check.reasons)
    assert check_support("A Rather Blustery Day is a whimsical song.", quote, title="A Rather Blustery Day").ok
