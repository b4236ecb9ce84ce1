"""Lexical support checks: does a statement follow from its quote? (code-side, before any review)

A quote can be exact page text and still not support the statement it is cited for (a date the
quote never mentions, a sentence about a different person). A small model's grounding review
misses such cases, so code checks first; the checks are lexical and deliberately conservative
(they reject only what the quote's words cannot carry):

1. **Numbers and dates**: every number of the statement (digits, with ``,`` thousands separators
   ignored, e.g. ``1,280`` = ``1280``) must appear in the *support text*.
2. **Named entities**: every capitalized word of the statement (names, months, places; not a
   function word such as ``The`` or ``He``) must appear in the support text, the statement's
   first word included: a statement's first word is most often its subject, and a finding about
   the other side of a comparison is written with it ("Paper is focused more on children 7 to 12
   years old" quoting Jack and Jill's page). Measured over the 109 distinct published research
   conclusions stored in ``benchmarks/results``: the first word withheld 6, all six wrong (each
   stated one side's or page's fact of another name), and no right one. A one-letter initial is
   found in a name of the support text that starts with it ("Henry J. Kaiser" on "Henry John
   Kaiser …"; found on a held-out research topic whose answer was that finding).
3. **Content words**: at least :data:`MIN_COVERAGE` of the statement's content words (the
   ranking terms of :func:`ditto_nb.evidence.rank.terms`, minus words about the evidence itself
   such as "answer" or "quote") must appear in the support text.
4. **A fact, not a name**: a statement (a sentence, not a short answer) whose content words are
   all words of its page's title (``Cho Kyuhyun`` on the page *Cho Kyuhyun*) only names the
   page's subject and states nothing a quote could support; it is rejected.
5. **A statement, not a question**: a sentence ending in ``?`` states nothing; it is rejected
   (measured on a real wiki: "A Rather Blustery Day also voiced what hedgehog?" had passed rules
   1-3 on its page's title).

The *support text* is the quote, plus the sentence of the paragraph that contains the quote (so a
quote cut mid-sentence keeps its sentence's subject) and the page title (a page's sentences name
their subject by pronoun: "She served as …" on the page *Shirley Temple*). The title supports
names only (capitalized words of the statement): a lower-case content word (``soccer``,
``formerly``) must be in the quote or its sentence, so a page title cannot carry a statement
about something its quote does not say (measured: "… men's soccer team … formerly known as …"
passed on a basketball season's title and a quote about its conference record). Words match on a
5-character prefix stem after lower-casing (``American``/``America``, ``directed``/``director``
do not all match; ``served``/``serve`` do), and a possessive ``'s`` is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ditto_nb.evidence.rank import terms
from ditto_nb.text import normalize_text, split_sentences, with_digits

MIN_COVERAGE = 0.5
"""Least share of a statement's content words that must appear in its support text."""
STEM_CHARS = 5
"""Characters of the prefix stem words are compared on."""
_NUMBER = re.compile(r"\d[\d,.]*\d|\d")
WORD = re.compile(r"[^\W_][\w'’-]*")
"""A word token: letters or digits, with inner apostrophes and hyphens."""
NOT_NAMES = frozenset(
    "the a an he she it they his her its their this that these those there in on at of for by with "
    "from to as and but or yes no not both also was were is are has had have after before during "
    "when while who what which where how i we you".split()
)
"""Capitalized words that are not names (sentence starts, pronouns)."""
META_WORDS = frozenset("answer question quote claim chunk page text states stated says said according".split())
"""Words about the evidence itself, not counted as content words of a statement."""


@dataclass(frozen=True)
class SupportCheck:
    """The outcome of :func:`check_support`.

    Attributes:
        ok: True when every rule passed.
        reasons: one human-readable reason per failed rule (empty when ok); sent to the repair.
        absent: the numbers, names and content words of the statement not found.
        coverage: share of the statement's content words found (0.0–1.0; 1.0 for none).
    """

    ok: bool
    reasons: tuple[str, ...]
    absent: tuple[str, ...]
    coverage: float


def stem(word: str) -> str:
    """The words' comparison key: lower-cased, a possessive ``'s`` dropped, the first
    :data:`STEM_CHARS` characters."""
    word = word.lower().replace("’", "'")
    word = re.sub(r"'s$", "", word).strip("'-")
    return word[:STEM_CHARS]


def _numbers(text: str) -> set[str]:
    return {m.group(0).replace(",", "").rstrip(".") for m in _NUMBER.finditer(text)}


def _names(statement: str) -> list[str]:
    """Capitalized words that are not function words (:data:`NOT_NAMES`) or numbers."""
    return [m.group(0) for m in WORD.finditer(statement)
            if m.group(0)[0].isupper() and m.group(0).lower() not in NOT_NAMES and not m.group(0)[0].isdigit()]


def sentence_of(paragraph: str, quote: str) -> str:
    """The sentence(s) of ``paragraph`` that contain ``quote`` (``quote`` when not found).

    Args:
        paragraph: the full paragraph text.
        quote: an exact substring of it.

    Returns:
        The sentences overlapping the quote, joined by a space.
    """
    text, needle = normalize_text(paragraph), normalize_text(quote)
    start = text.find(needle)
    if not needle or start < 0:
        return needle
    end = start + len(needle)
    out, offset = [], 0
    for part in split_sentences(text):
        begin = text.find(part, offset)
        finish = begin + len(part)
        offset = finish
        if begin < end and finish > start:
            out.append(part)
    return " ".join(out) or needle


def check_support(statement: str, quote: str, *, paragraph: str = "", title: str = "",
                  min_coverage: float = MIN_COVERAGE, sentence: bool = True) -> SupportCheck:
    """Check that ``statement`` is lexically supported by ``quote`` (see the module docstring).

    Args:
        statement: the claim or conclusion.
        quote: its verified quote.
        paragraph: the paragraph the quote was found in ("" = the quote alone).
        title: the title of the quote's page ("" = none).
        min_coverage: least share of content words found (0.0–1.0).
        sentence: True when ``statement`` is a sentence (rules 4 and 5 apply); False for a short
            answer.

    Returns:
        A :class:`SupportCheck`.
    """
    text = " ".join([sentence_of(paragraph, quote) if paragraph else quote, quote])
    text_stems = {stem(w) for w in WORD.findall(text)}
    support = f"{text} {title}"
    support_stems = text_stems | {stem(w) for w in WORD.findall(title)}
    support_numbers = _numbers(support) | _numbers(with_digits(support))  # "five acts" states 5
    reasons: list[str] = []
    absent: list[str] = []
    numbers = sorted(_numbers(statement) - support_numbers)
    if numbers:
        absent += numbers
        reasons.append(f"the quote does not state the number(s) {', '.join(numbers)}")
    initials = {w[0] for w in WORD.findall(support) if w[0].isupper()}
    names = [n for n in dict.fromkeys(_names(statement))
             if stem(n) not in support_stems and not (len(n) == 1 and n in initials)]
    if names:
        absent += names
        reasons.append(f"the quote does not name {', '.join(names)}")
    words = [w for w in dict.fromkeys(terms(statement)) if not w.isdigit() and w not in META_WORDS]
    capitalized = {w.lower() for w in _names(statement)}
    found = [w for w in words if stem(w) in (support_stems if w in capitalized else text_stems)]
    coverage = len(found) / len(words) if words else 1.0
    if coverage < min_coverage:
        missing = [w for w in words if w not in found]
        absent += [w for w in missing if w not in {n.lower() for n in names}]
        reasons.append(f"most of its words are not in the quote ({len(found)} of {len(words)} found)")
    title_stems = {stem(w) for w in terms(title)}
    if sentence and title_stems and words and all(stem(w) in title_stems for w in words):
        reasons.append(f"it only names its page's subject ({title}); a claim states a fact about it")
    if sentence and statement.rstrip().endswith("?"):
        reasons.append("it is a question; a claim states a fact from its quote")
    return SupportCheck(ok=not reasons, reasons=tuple(reasons), absent=tuple(dict.fromkeys(absent)), coverage=coverage)


def answer_in_quotes(answer: str, quotes: Sequence[str], *, min_coverage: float = MIN_COVERAGE) -> SupportCheck:
    """Check that a short answer's words appear in the quotes it rests on.

    ``yes``/``no`` answers (and the words of :data:`NOT_NAMES`) carry no checkable words and pass;
    the numbers and names of the answer must each appear in some quote, and at least
    ``min_coverage`` of its content words.

    Args:
        answer: the answer text.
        quotes: the verified quotes of the answer's claims.
        min_coverage: least share of content words found.

    Returns:
        A :class:`SupportCheck` (``reasons`` name what the quotes lack).
    """
    if not quotes:
        return SupportCheck(ok=False, reasons=("the answer has no verified quote",), absent=(), coverage=0.0)
    result = check_support(answer, " ".join(quotes), min_coverage=min_coverage, sentence=False)
    if result.ok:
        return result
    what = ", ".join(result.absent) or "its words"
    return SupportCheck(ok=False, reasons=(f"the answer's {what} appear(s) in none of its quotes",),
                        absent=result.absent, coverage=result.coverage)


_PARENTHETICAL = re.compile(r"\s*\([^()]*\)")
MIN_EXCERPT_WORDS = 4
_PRONOUNS = frozenset("he she it they his her its their this these those there".split())
"""Fewest words of a claim that :func:`verbatim_excerpt` treats as an excerpt."""


def verbatim_excerpt(statement: str, quote: str) -> bool:
    """Whether ``statement`` is a word-for-word excerpt of ``quote`` (so the quote states it).

    The statement's words (case-insensitive; a trailing " …" of a cut dropped, its last word may
    be a prefix: a cut "box-" of "box-office") must be consecutive words of the quote with its
    parentheticals removed, skipping at most one capitalized quote word (a name part: "Shirley
    Temple was …" of "Shirley Temple Black (April 23, 1928 – …) was …"). No other word may be left
    out, so nothing that changes the meaning ("not", "born in France and moved to") can be
    skipped; the excerpt starts at a capitalized quote word that is not a pronoun (a sentence or
    a name, not "was born in Paris" of "His father was born in Paris"). At least
    :data:`MIN_EXCERPT_WORDS` words.

    Args:
        statement: a claim or finding.
        quote: its verified quote.

    Returns:
        True for an excerpt; a model reviewer's "not supported" cannot stand against it.
    """
    claim = [w.lower() for w in WORD.findall(normalize_text(statement).rstrip(" …."))]
    words = WORD.findall(_PARENTHETICAL.sub("", normalize_text(quote)))
    if len(claim) < MIN_EXCERPT_WORDS:
        return False
    lowered = [w.lower() for w in words]

    def same(j: int, k: int) -> bool:
        last = j == len(claim) - 1
        return lowered[k] == claim[j] or (last and lowered[k].startswith(claim[j]))

    for start in range(len(words)):
        if not words[start][:1].isupper() or lowered[start] in _PRONOUNS:
            continue  # an excerpt starts a sentence or a name, never mid-clause ("was born in …" of "His father …")
        j, k, skipped = 0, start, False
        while j < len(claim) and k < len(words):
            if same(j, k):
                j, k = j + 1, k + 1
            elif j > 0 and not skipped and words[k][:1].isupper() and k + 1 < len(words) and same(j, k + 1):
                skipped, k = True, k + 1
            else:
                break
        if j == len(claim):
            return True
    return False


__all__ = ["META_WORDS", "MIN_COVERAGE", "NOT_NAMES", "STEM_CHARS", "WORD", "SupportCheck", "answer_in_quotes", "check_support", "verbatim_excerpt",
           "sentence_of", "stem"]
