"""pick_quote: the sentence(s) of a paragraph that state a claim (exact paragraph text)."""

from __future__ import annotations

from ditto_nb.evidence.quote_pick import pick_quote

TEMPLE = ("Shirley Temple Black (April 23, 1928 – February 10, 2014) was an American actress, singer, "
          "dancer, businesswoman, and diplomat. As an adult, she was named United States ambassador to "
          "Ghana and also served as Chief of Protocol of the United States. She died in Woodside.")


def test_the_sentence_with_the_claims_fact_wins_over_the_subjects_first_sentence() -> None:
    quote = pick_quote(TEMPLE, "She served as Chief of Protocol.", focus="Chief of Protocol", title="Shirley Temple")
    assert quote == "As an adult, she was named United States ambassador to Ghana and also served as Chief of Protocol of the United States."


def test_two_adjacent_sentences_when_the_claim_spans_them() -> None:
    quote = pick_quote(TEMPLE, "Shirley Temple Black, an actress, was named ambassador to Ghana.",
                       focus="ambassador", title="Shirley Temple")
    assert quote.startswith("Shirley Temple Black (April 23, 1928") and quote.endswith("Chief of Protocol of the United States.")
    assert quote in TEMPLE


def test_answer_words_weigh_more_and_ties_keep_the_earlier_sentence() -> None:
    assert pick_quote(TEMPLE, "Something else entirely.", title="Shirley Temple").startswith("Shirley Temple Black")
    assert pick_quote(TEMPLE, "She died.", focus="Woodside") == "She died in Woodside."
    assert pick_quote("", "anything") == ""


def test_a_swapped_label_is_quoted_from_the_source_that_names_the_claim() -> None:
    from ditto_nb.evidence.quote_pick import best_source

    sources = {"C1": ("Janet Waldo", "Janet Marie Waldo was an American radio and voice actress."),
               "C2": ("Shirley Temple", "Shirley Temple Black was an American actress and diplomat.")}
    assert best_source("Shirley Temple was an American actress.", "C1", sources) == "C2"
    assert best_source("Janet Waldo was an American actress.", "C1", sources) == "C1"
    assert best_source("She was an actress.", "C1", sources) == "C1"  # no names: the cited source stays
    assert best_source("Shirley Temple was an actress.", "C9", sources) == "C9"  # unknown ids are left to fail


def test_a_statement_is_quoted_from_the_source_that_states_its_number() -> None:
    """The cited source names the statement's names but not its number; another shown source has
    the number: the quote comes from that one (a number missing from its quote fails support)."""
    from ditto_nb.evidence.quote_pick import best_source, quote_for

    sources = {
        "E1": ("Lewiston Maineiacs", "The Lewiston Maineiacs were a junior ice hockey team based in Lewiston, Maine."),
        "E2": ("Androscoggin Bank Colisée", "The Androscoggin Bank Colisée is a 4,000 capacity (3,677 seated) "
                                            "multi-purpose arena in Lewiston, Maine."),
    }
    statement = "The Lewiston Maineiacs arena can seat 4,000 people."
    assert best_source(statement, "E1", sources) == "E2"
    source, quote = quote_for(statement, "E1", sources)
    assert source == "E2" and "4,000 capacity" in quote
    # without a number, names decide as before: the cited source names both
    assert best_source("The Lewiston Maineiacs were based in Maine.", "E1", sources) == "E1"


def test_a_verbatim_excerpt_is_recognised_and_nothing_meaningful_may_be_skipped() -> None:
    from ditto_nb.evidence.support import verbatim_excerpt

    temple = ("Shirley Temple Black (April 23, 1928 – February 10, 2014) was an American actress, singer, dancer, "
              "businesswoman, and diplomat who was Hollywood's number one box-office draw.")
    assert verbatim_excerpt("Shirley Temple was an American actress, singer, dancer", temple)  # name part + parenthetical
    assert verbatim_excerpt("Shirley Temple was an American actress, singer, dancer, businesswoman, and diplomat "
                            "who was Hollywood's number one box- …", temple)  # a cut last word
    assert not verbatim_excerpt("Shirley Temple was an actress", temple)  # "American" skipped
    assert not verbatim_excerpt("X was born in Italy", "X was born in France and moved to Italy.")
    assert not verbatim_excerpt("X was an American", "X was not an American.")
    assert not verbatim_excerpt("was born in Paris", "His father was born in Paris.")  # mid-clause start
    assert not verbatim_excerpt("He was born in Paris", "He was born in Paris.")  # a pronoun subject
    assert not verbatim_excerpt("Temple was American", temple)  # too short
