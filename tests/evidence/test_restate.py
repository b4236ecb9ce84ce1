"""A statement naming its subject by a description is restated as its quote's sentence, and only then."""

from __future__ import annotations

from ditto_nb.evidence.restate import restatement
from ditto_nb.evidence.support import check_support
from ditto_nb.patterns.deep_research.synthesis import complete_quotes, support_split

PARAGRAPH = ("Adriana Trigiani is an Italian American best-selling author of sixteen books, television writer, "
             "film director, and entrepreneur based in Greenwich Village, New York City. Trigiani has published "
             "a novel a year since 2000. She grew up in Big Stone Gap, Virginia.")
SENTENCE = PARAGRAPH.split(". ")[0] + "."
FILM = "Big Stone Gap is a 2014 American drama romantic comedy film written and directed by Adriana Trigiani."
BRIDGED = "The director of the romantic comedy 'Big Stone Gap' is based in Greenwich Village, New York City."


def test_a_described_subject_is_restated_as_the_quote_sentence() -> None:
    # Measured on the real MediaWiki: the support check withheld this (the quote names no "Big Stone Gap").
    assert not check_support(BRIDGED, SENTENCE, paragraph=PARAGRAPH, title="Adriana Trigiani").ok
    restated = restatement(BRIDGED, "based in Greenwich Village, New York City", paragraph=PARAGRAPH,
                           title="Adriana Trigiani", others=[FILM])
    assert restated == SENTENCE
    # without the film's page nothing links "Big Stone Gap" to this page
    assert restatement(BRIDGED, SENTENCE, paragraph=PARAGRAPH, title="Adriana Trigiani",
                       others=["Big Stone Gap is a town in Virginia."]) is None
    assert check_support(restated, restated, paragraph=PARAGRAPH, title="Adriana Trigiani").ok


def test_what_the_sentence_does_not_carry_is_not_restated() -> None:
    def restate(statement: str, quote: str) -> str | None:
        return restatement(statement, quote, paragraph=PARAGRAPH, title="Adriana Trigiani",
                           others=[FILM, "Kiss and Tell stars Adriana Trigiani."])

    # a number the quote does not state
    assert restate("The director of 'Big Stone Gap' was born in 1969.", SENTENCE) is None
    # a fact the sentence does not state
    assert restate("The director of 'Big Stone Gap' has lived in a lighthouse for decades.", SENTENCE) is None
    # already supported: nothing to restate
    assert restate("Adriana Trigiani is based in Greenwich Village.", SENTENCE) is None
    # a sentence that starts with a pronoun does not say whom it is about
    assert restate("The director of 'Kiss and Tell' grew up in Big Stone Gap, Virginia.",
                   "She grew up in Big Stone Gap, Virginia.") is None


def test_research_publishes_the_restated_finding() -> None:
    selected = [{"id": "E1", "title": "Big Stone Gap (film)", "origin": "https://wiki.test", "text": FILM},
                {"id": "E4", "title": "Adriana Trigiani", "origin": "https://wiki.test", "text": PARAGRAPH}]
    draft = complete_quotes({"summary": "", "unknowns": [],
                             "conclusions": [{"index": 2, "statement": BRIDGED, "chunk_id": "E4", "quote": ""}]},
                            selected)  # type: ignore[arg-type]
    finding = draft["conclusions"][0]
    assert finding["statement"] == finding["quote"] == SENTENCE
    kept, rejected = support_split([{**finding, "evidence_id": "E4", "title": "Adriana Trigiani"}],  # type: ignore[typeddict-item]
                                   selected)  # type: ignore[arg-type]
    assert [c["statement"] for c in kept] == [SENTENCE] and rejected == []
