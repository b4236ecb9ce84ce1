"""A statement that names its subject by a description, restated as its quote's sentence (pure).

A two-hop finding joins two pages: "The director of the romantic comedy 'Big Stone Gap' is based
in Greenwich Village, New York City" is quoted with "Adriana Trigiani is an Italian American
best-selling author …, film director, and entrepreneur based in Greenwich Village, New York City."
The quote states the fact but not the description's names (*Big Stone Gap* is on the film's page),
so the lexical support check (:func:`ditto_nb.evidence.support.check_support`) rightly rejects the
statement, and a 1.5B repair writes it again the same way (measured on the real MediaWiki: the
research's only finding withheld, nothing published).

:func:`restatement` gives the quote's own sentence instead: it is page text, word for word, so
its quote states it; it is offered only when

- the statement failed for names alone (every number present; not a question);
- another piece of the shown evidence links the description to the quote's page: it names every
  absent name *and* the quote page's title (the film's page names its director). Without that
  link the statement is about someone else ("Ilse Marrek was a captain" on a page about how the
  captains were chosen) and stays rejected;
- the rest of the statement's content words are mostly in the quote's sentence;
- the sentence starts with a name, not a pronoun (it must say whom it is about).

The caller publishes it through the same checks as any finding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ditto_nb.evidence.rank import terms
from ditto_nb.evidence.support import META_WORDS, NOT_NAMES, WORD, check_support, sentence_of, stem
from ditto_nb.text import normalize_text

MIN_REST = 0.6
"""Least share of the statement's other content words (its absent names left out) in the sentence."""
MIN_REST_WORDS = 2
"""Fewest such words the sentence must contain (a restatement must carry the statement's fact)."""
def _linked(absent: set[str], title: str, others: Sequence[str]) -> bool:
    """Whether one of ``others`` names every absent name stem and every word (3+ letters) of ``title``."""
    wanted = absent | {stem(w) for w in WORD.findall(title) if len(w) > 2}
    return bool(title.strip()) and any(wanted <= {stem(w) for w in WORD.findall(text)} for text in others)


def restatement(statement: str, quote: str, *, paragraph: str = "", title: str = "",
                others: Sequence[str] = ()) -> str | None:
    """The quote's sentence, when it can stand for ``statement`` (see the module docstring).

    Args:
        statement: a finding or claim.
        quote: its verified quote (exact text of ``paragraph``).
        paragraph: the paragraph the quote was found in ("" = the quote alone).
        title: the title of the quote's page ("" = none: never restated).
        others: the texts of the other evidence shown with it (one must link the absent names
            to ``title``).

    Returns:
        The sentence of ``paragraph`` containing the quote (exact, normalized page text), or None
        when the statement passes the support check, fails it for more than names, no other
        evidence links its names to the quote's page, or the sentence does not carry the rest.
    """
    check = check_support(statement, quote, paragraph=paragraph, title=title)
    if check.ok or any(not reason.startswith(("the quote does not name", "most of its words"))
                       for reason in check.reasons):
        return None
    absent = {stem(w) for w in check.absent if w[:1].isupper()}
    if not absent or not _linked(absent, title, others):
        return None  # not a names failure, or nothing links the description to this page
    sentence = sentence_of(paragraph, quote) if paragraph else normalize_text(quote)
    if not sentence or (paragraph and sentence not in normalize_text(paragraph)):
        return None
    first = WORD.match(sentence)
    if first is None or not first.group(0)[:1].isupper() or first.group(0).lower() in NOT_NAMES:
        return None  # "She served as …" does not say whom it is about
    rest = [w for w in dict.fromkeys(terms(statement)) if stem(w) not in absent and w not in META_WORDS]
    have = {stem(w) for w in WORD.findall(sentence)}
    found = [w for w in rest if stem(w) in have]
    if len(found) < MIN_REST_WORDS or len(found) < MIN_REST * len(rest):
        return None
    return sentence


def restate_cited(statement: str, quote: str, cited: str,
                  shown: Mapping[str, tuple[str, str]]) -> str | None:
    """:func:`restatement` of a statement quoted from the shown item ``cited``, linked by the
    other shown items (the form both patterns hold their evidence in).

    Args:
        statement: the finding or claim.
        quote: its quote from item ``cited``.
        cited: the key of the quoted item in ``shown``.
        shown: ``{key: (title, paragraph text)}`` of every item shown to the model.

    Returns:
        The sentence (an exact substring of the cited paragraph), or None.
    """
    title, paragraph = shown.get(cited, ("", ""))
    if not paragraph:
        return None
    others = [text for key, (_title, text) in shown.items() if key != cited]
    restated = restatement(statement, quote, paragraph=paragraph, title=title, others=others)
    return restated if restated is not None and restated in paragraph else None


__all__ = ["MIN_REST", "MIN_REST_WORDS", "restate_cited", "restatement"]
