"""Relevance to the question: search hits ranked by it, and bridge names found in evidence (pure).

Used by Web QA's page choice and second hop and by deep research's query forming; the entity
names and title keys come from :mod:`ditto_nb.patterns.common.retrieval`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from ditto_nb.evidence.rank import bm25_rank, terms
from ditto_nb.patterns.common.retrieval import DEMONYM_ENDINGS, question_entities, title_key
from ditto_nb.text import normalize_text, split_sentences


def _stems(text: str) -> set[str]:
    """Five-letter prefixes of ``text``'s ranking terms: ``director`` and ``directed`` share ``direc``."""
    return {w[:5] for w in terms(text)}


def _words(text: str) -> set[str]:
    """Lower-case words of ``text``, unstemmed (``son``, ``father``)."""
    return set(re.findall(r"[a-z]+", text.lower()))


_SENTENCE_END = re.compile(r"(?<=[a-z0-9)][.!?])\s+(?=[A-Z])")


def _lead_in(name: str, text: str, width: int = 8, words: Callable[[str], set[str]] = _stems) -> set[str]:
    """``words`` (default: stems) of the ``width`` words before each mention of ``name`` in
    ``text`` (``directed by``), within the mention's sentence."""
    found: set[str] = set()
    start = text.find(name)
    while start >= 0:
        before = _SENTENCE_END.split(text[:start])[-1]  # within the mention's sentence
        found |= words(" ".join(before.split()[-width:]))
        start = text.find(name, start + 1)
    return found


KINSHIP = frozenset(
    "father mother parent son daughter child children brother sister sibling wife husband spouse uncle aunt "
    "nephew niece grandfather grandmother grandson granddaughter cousin".split()
)
"""Family words: a question naming one ("the father of X") asks for a relative, and a page names
one by the inverse word ("He is the son of … Peter Schmeichel")."""
_CLAUSE = re.compile(r"\s*(?:[,;:()\[\]]|\s[–—-]\s)\s*")
"""Where a list or an aside ends a name: "starring George Raft, Claire Trevor and Signe Hasso"."""
_NUMBER_TAIL = re.compile(r"\s+(?:for|of|the|in|at|by|to|from)\s+\d.*$")
"""A connector and a number after a name end the name: "bought by Vextor for 5 billion"."""
_QUALIFIER = re.compile(r"\(([^()]*)\)")
_DESCRIBED_HEAD = re.compile(r"\b([a-z][\w-]+)\s+(?:who|whom|whose|that|which|where)\b")


def described_heads(question: str) -> set[str]:
    """Five-letter stems of the nouns a question describes by a relative clause: ``conference``
    in "competes in a conference that was formerly known as what", ``woman`` in "the woman who
    portrayed …" (lower-case words only: a name before ``who`` is not a description)."""
    return {m.group(1)[:5] for m in _DESCRIBED_HEAD.finditer(normalize_text(question))} - {w[:5] for w in ("and", "one", "the")}


def bridge_candidates(question: str, texts: Sequence[str], known: Sequence[str], limit: int = 2, *,
                      one_word: bool = False, loose: bool = False) -> list[str]:
    """Names in evidence texts that the question does not name: candidate bridge entities.

    A bridge question's in-between entity is usually a multi-word name that the first pages
    mention and the question does not (the actress a film page names). Multi-word capitalized
    spans of ``texts`` are kept unless they are a question entity or a title in ``known`` (titles
    already read), a part of one, or one of them with more words (``Peter Schmeichel`` stays a
    candidate for a question naming ``Kasper Schmeichel``; ``Shirley Temple Black`` does not for
    a question naming ``Shirley Temple``); ranked by how many of the question's other words (by five-letter stem)
    stand in the eight words before a mention (``the director of X`` → ``directed by Adriana
    Trigiani``), then by how many texts mention them, then by first appearance. A name that
    contains the noun the question describes (``America East Conference`` for "a conference that
    was formerly known as what") comes first: it names the described entity. For a question with
    a family word (:data:`KINSHIP`: "the father of Kasper Schmeichel"), a relative comes next: a
    name with a family word in the eight words before it ("the son of … Peter Schmeichel") or
    sharing a question entity's last name.

    With ``one_word``, a one-word name counts too when it stands inside a sentence, is not a
    demonym, month, weekday or acronym, is not a word of a longer candidate, and has a question
    word before it ("corporations such as Exxonmobil and Halliburton"). Measured offline on the
    109 dev-150 bridge questions whose second page the first page names (first page's paragraph
    in, the second page's title expected first): 33 first before lists were split and one-word
    names admitted, 37 after (47 in the first two, was 42); 19 of the 90 second pages the first
    names have one-word titles.

    Args:
        question: the question as asked.
        texts: the selected chunks' texts, best first.
        known: titles of pages already read.
        limit: most names returned.
        one_word: admit one-word names (Web QA's hop; deep research forms queries from names of
            two words or more).
        loose: with ``one_word``, keep a one-word name even when no question word stands before
            it (ranked after the others): for a lookup whose own filter is strict (a page titled
            by the name, :func:`ditto_nb.patterns.common.tools.named_pages`), not for queries.

    Returns:
        Names, best first.
    """
    entities = question_entities(question)
    named = [{w for w in title_key(e).split() if len(w) > 2} for e in [*entities, *known]]
    named = [words for words in named if words]
    taken = set().union(*named)
    asked = _stems(question) - {w[:5] for w in taken}
    counts: dict[str, int] = {}
    context: dict[str, int] = {}
    first: dict[str, tuple[int, int]] = {}
    for number, text in enumerate(texts):
        for name in _evidence_names(text):
            words = [w for w in title_key(name).split() if len(w) > 2]
            if not words or any(ch.isdigit() for ch in name) \
                    or any(set(words) <= known_words or known_words <= set(words) for known_words in named):
                continue
            if len(name.split()) < 2 and not (one_word and _lone_name(name, text)):
                continue
            counts[name] = counts.get(name, 0) + 1
            context[name] = max(context.get(name, 0), len(asked & _lead_in(name, text)))
            first.setdefault(name, (number, text.find(name)))
    heads = described_heads(question)
    kin_asked = bool(KINSHIP & _words(question))
    surnames = {title_key(e).split()[-1] for e in entities if len(e.split()) > 1}

    def kin(name: str) -> int:
        """1 when a family question's candidate is a relative: a family word before it, or it
        shares a question entity's last name."""
        if not kin_asked:
            return 0
        before = {w for text in texts for w in _lead_in(name, text, words=_words)}
        return int(bool(KINSHIP & before) or title_key(name).split()[-1] in surnames)

    # a one-word name that is a part of a longer candidate is that candidate ("Mourning")
    # a one-word name must also be described by the question's words (a town a page mentions in
    # passing is not the bridge)
    longer = {w for n in counts if " " in n for w in title_key(n).split()}
    names = [n for n in counts if " " in n or (title_key(n) not in longer and (loose or context[n] > 0))]
    return sorted(names, key=lambda n: (-len(heads & _stems(n)), -kin(n), -context[n], -counts[n], first[n]))[:limit]


CALENDAR = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)
"""Capitalized words that name a date, not an entity."""


def _lone_name(word: str, text: str) -> bool:
    """Whether a one-word capitalized span of ``text`` may be a name: it stands inside a sentence
    (after a lower-case word or a comma, so it is not capitalized for starting the sentence), and
    it is not a demonym (``French``), a month or weekday (:data:`CALENDAR`) or an acronym
    (``NFL``: too many pages hold one)."""
    if word.lower().endswith(DEMONYM_ENDINGS) or word.lower() in CALENDAR or not any(c.islower() for c in word[1:]):
        return False
    return re.search(rf"(?<=[a-z,] ){re.escape(word)}\b", normalize_text(text)) is not None


def _evidence_names(text: str) -> list[str]:
    """Distinct capitalized names of an evidence text: the spans of
    :func:`~ditto_nb.patterns.common.retrieval.question_entities` read sentence by sentence (so
    "Peter Schmeichel" in one sentence is not hidden by "Kasper Peter Schmeichel" in another) and
    clause by clause (a comma, semicolon, colon, bracket or dash ends a name: "George Raft, Claire
    Trevor" are two), a span joined by ``and`` split into its parts ("Manchester United and Danish"),
    a number after a connector cut off ("Vextor for 5 billion" is "Vextor")."""
    names: list[str] = []
    for sentence in split_sentences(normalize_text(text)):
        for clause in _CLAUSE.split(sentence):
            for span in question_entities(clause) if clause.strip() else []:
                names += [_NUMBER_TAIL.sub("", part) for part in re.split(r"\s+and\s+(?:the\s+)?", span) if part]
    return list(dict.fromkeys(names))


def qualifier_asked(title: str, question: str) -> bool:
    """Whether a word of the title's parenthetical qualifier is a word of the question (5-letter
    prefixes): ``Alien (film)`` for "Which film was released first, Alien or …"."""
    qualifier = {w[:5] for part in _QUALIFIER.findall(title) for w in terms(part)}
    return bool(qualifier & {w[:5] for w in terms(question)})


def rank_hits(question: str, results: Sequence[Sequence[Mapping[str, object]]], entities: Sequence[str]) -> list[str]:
    """Order the URLs of search hits by relevance to the question (not by query order).

    The best hit of every query comes first (in query order) so each queried entity keeps a page;
    the remaining hits follow by score: BM25 of title + snippet against the question and
    entities, plus 2.0 for a title naming an entity exactly (parenthetical qualifier ignored),
    1.0 for a title contained in the question and 1.5 for a title whose parenthetical qualifier
    is a word of the question ("Alien (film)" for "Which film was released first, Alien or …",
    before "Alien (soundtrack)": measured, the soundtrack pages were read and the film's was not).

    Args:
        question: the question as asked.
        results: one hit list per query (dicts with ``url``, ``title``, ``snippet``).
        entities: the question's entities plus any bridge names.

    Returns:
        Distinct URLs (fragments removed), best first.
    """
    flat: list[tuple[int, int, Mapping[str, object]]] = []
    for qi, hits in enumerate(results):
        for rank, hit in enumerate(hits):
            if hit.get("url"):
                flat.append((qi, rank, hit))
    if not flat:
        return []
    texts = [f"{hit.get('title') or ''} {hit.get('title') or ''} {hit.get('snippet') or ''}" for _, _, hit in flat]
    scores = {r.index: r.score for r in bm25_rank(" ".join([question, *entities]), texts)}
    keys = {title_key(e) for e in entities}
    lower_question = normalize_text(question).lower()
    bonus = []
    for _, _, hit in flat:
        title = str(hit.get("title") or "")
        key = title_key(title)
        bonus.append((2.0 if key and key in keys else 0.0) + (1.0 if key and key in lower_question else 0.0)
                     + (1.5 if qualifier_asked(title, question) else 0.0))
    order: list[str] = []

    def add(url: str) -> None:
        url = url.split("#", 1)[0]
        if url not in order:
            order.append(url)

    tops = sorted(
        (i for i, (_, rank, _) in enumerate(flat) if rank == 0),
        key=lambda i: flat[i][0],
    )
    # within each query, its best hit is the highest-scoring of its first three (search rank is noisy)
    for i in tops:
        qi = flat[i][0]
        own = [j for j, (q, rank, _) in enumerate(flat) if q == qi and rank < 3]
        best = max(own, key=lambda j: (scores.get(j, 0.0) + bonus[j], -flat[j][1]))
        add(str(flat[best][2]["url"]))
    rest = sorted(range(len(flat)), key=lambda j: (-(scores.get(j, 0.0) + bonus[j]), flat[j][1], flat[j][0]))
    for j in rest:
        add(str(flat[j][2]["url"]))
    return order


__all__ = ["bridge_candidates", "described_heads", "qualifier_asked", "rank_hits"]
