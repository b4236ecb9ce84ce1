"""Coverage decided from the published findings: the report's ``coverage`` call (issue 32).

After the report's findings are judged (quotes, support, review), code picks for each
sub-question the published findings most likely to answer it (:func:`candidates`: those sharing
most of its words, among those :func:`answers_question` admits that state a word only it asks
about, :func:`own_words`) and, for the topic, every finding
it admits; one model call judges each (question, finding) pair side by side — ``answers`` or
``does not answer``, with a short reason — as the review judges (statement, quote) pairs. Then:

- a sub-question is ``covered`` only when a pair's verdict is ``answers``; the row's
  ``evidence_ids`` are that finding's and its ``reason`` the call's;
- otherwise it is a ``gap`` whose reason says why (no published finding shares its words; the
  call said the finding does not answer it; its own finding was withheld, with the reason);
- ``conflict`` rows stay (both sides are quoted in the report);
- the first finding judged to answer the topic is published first and leads the summary
  (:func:`ditto_nb.patterns.deep_research.published.summary_of`); when none is, the first chain of
  two findings judged to answer it together (:func:`chains`: the first names what the topic names
  and a name the second one names) leads instead.

Before this call, coverage counted a finding for the sub-question number the drafter gave it;
hand-read on 15 unseen topics, about 6 of 14 rows were then wrong (a sub-question ``covered`` by a
finding about something else, a ``gap`` beside a finding that answers it). A first version let
the model pick the finding's number for each question; the 1.5B model then marked a gap beside
the one finding that answered it, and parroted the prompt as its reason: so code picks, the model
judges.

With no pair to judge, no call is made. When the model budget is spent, coverage falls back to
the drafter's numbers (:func:`~ditto_nb.patterns.deep_research.published.published_coverage`) and
says so in each reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ditto_nb.errors import BudgetExceeded
from ditto_nb.evidence.rank import terms
from ditto_nb.patterns.common.demonyms import nations_named
from ditto_nb.patterns.common.report_records import ConclusionItem, CoverageItem, WithheldFinding
from ditto_nb.patterns.common.retrieval import comparison_entities, names_entity, question_entities
from ditto_nb.patterns.deep_research import prompts, schemas
from ditto_nb.patterns.deep_research.coverage import addresses
from ditto_nb.patterns.deep_research.published import full_sentence, published_coverage
from ditto_nb.patterns.deep_research.run_state import Ask, Plan
from ditto_nb.patterns.common.compare.comparison import NUMBER, YEAR
from ditto_nb.text import normalize_text, with_digits

NO_CALL_LEFT = "decided by the drafter's sub-question numbers (no model call left for the coverage call)"
"""The reason on every row when the coverage call could not be made."""

STATED = "it restates the question with its names and most of its words (decided by code)"
"""The reason of a row :func:`states_its_words` decided."""


@dataclass(frozen=True)
class Answers:
    """What the coverage call decided.

    Attributes:
        coverage: one row per sub-question (``index``, ``question``, ``status``, ``evidence_ids``,
            ``gap``, ``next_queries``, ``reason``).
        topic: the 0-based positions in the published findings of what answers the topic: one
            finding, or two that answer it together as a chain (:func:`chains`, in chain order);
            empty when none does.
    """

    coverage: list[CoverageItem]
    topic: tuple[int, ...]


def _text(c: ConclusionItem) -> str:
    return f"{c.get('title', '')} {c['statement']} {c['quote']}"


def _wanted(question: str) -> set[str]:
    """The question's content words other than its names (five-letter prefixes)."""
    named = {w for name in question_entities(question) for w in terms(name)}
    return {w[:5] for w in terms(question) if w not in named}


def answers_question(question: str, c: ConclusionItem) -> bool:
    """Whether finding ``c`` may answer ``question`` (what code lets the call judge).

    It must share one of the question's content words other than its names (by five-letter
    prefix of :func:`~ditto_nb.evidence.rank.terms`, as
    :func:`~ditto_nb.patterns.deep_research.coverage.addresses` matches them); a question with no
    other content word needs its names. A two-hop answer need not name the first entity
    ("Adriana Trigiani … film director … based in Greenwich Village, New York City" answers "What
    city does the director of 'Big Stone Gap' work in?").
    """
    wanted = _wanted(question)
    if not wanted:
        return addresses(question, [_text(c)])
    have = set(terms(_text(c)))
    return any(t.startswith(w) for w in wanted for t in have)


def states_its_words(question: str, c: ConclusionItem) -> bool:
    """Whether finding ``c``'s statement restates ``question`` with its answer: every name the
    question gives (:func:`~ditto_nb.patterns.common.retrieval.question_entities`, at least one),
    every one of its other content words but the asked kind of answer (five-letter prefixes; at
    least one such word: "Who was Annie Morton?" is not restated by any sentence naming her), and
    the asked kind itself (:func:`states_asked_kind`: a year for "What year"/"When", a country
    for "Which country", a number for "How many").

    Such a pair is decided ``covered`` by code, without the coverage call: the 1.5B model said
    "does not answer" for "Nancy Sinatra wrote 'These Boots Are Made for Walkin'" beside "Who wrote
    'These Boots Are Made for Walkin'?" (README, hand read of coverage rows). Half of the words
    were enough before 2026-12-07; then "The album … was released in 2000" covered "In which
    country was the album … released?" and an Apple Remote finding "Are there any smart home
    devices that can be controlled by the Apple Remote?" (hand read: 6 of the 16 stored pairs it
    decided were wrong; with all the words and the asked kind, none of the 6 and 1 of the 10 right
    ones go to the call instead).
    """
    names = question_entities(question)
    statement = str(c["statement"])
    if not names or not all(names_entity(statement, name) for name in names):
        return False
    wanted, have = _wanted(question) - _ASKED_KINDS, set(terms(statement))
    return (bool(wanted) and all(any(t.startswith(w) for t in have) for w in wanted)
            and states_asked_kind(question, statement))


def states_asked_kind(question: str, statement: str) -> bool:
    """Whether ``statement`` gives the kind of answer ``question`` asks for, when it asks one a
    sentence shows by its form: a year the question does not hold ("What year …", "When …"), a
    country or nationality it does not name ("Which country …"), a number it does not hold ("How
    many …"). True for any other question.

    Args:
        question: a sub-question.
        statement: a finding's statement.

    Returns:
        Whether the asked kind is stated.
    """
    q = normalize_text(question).lower()
    if re.search(r"\b(what|which) (year|date)\b", q) or re.match(r"^\s*when\b", q):
        return bool(set(YEAR.findall(statement)) - set(YEAR.findall(question)))
    if re.search(r"\b(what|which) (country|nationality)\b", q):
        return bool(nations_named(statement) - nations_named(question))
    if re.search(r"\bhow (many|much)\b", q):
        return bool(set(NUMBER.findall(with_digits(statement))) - set(NUMBER.findall(with_digits(question))))
    return True


_ASKED_KINDS = frozenset(w[:5] for w in "name year date city country place many much each some kind type".split())
"""Words that name the kind of answer asked for ("What year …", "How many …"): an answer states
a year or a count, not the word."""


def own_words(question: str, others: Sequence[str]) -> set[str]:
    """The content words of ``question`` (five-letter prefixes, names and the asked kind of answer
    left out) that none of the ``others`` (the topic's other sub-questions) has: what this
    sub-question alone asks about ("fight song" in "What is the name of the fight song associated
    with this university?" beside "What is the name of the university located in Lawrence?")."""
    theirs = set().union(*(_wanted(other) for other in others)) if others else set()
    return _wanted(question) - theirs - _ASKED_KINDS


def candidates(question: str, kept: Sequence[ConclusionItem], limit: int = 2, others: Sequence[str] = (),
               sides: Sequence[str] = ()) -> list[int]:
    """The 0-based positions of the published findings code shows the call for ``question``:
    among those :func:`answers_question` admits and that state one of its :func:`own_words` (when
    it has any, beside the topic's ``others`` sub-questions), the ones sharing most of its content
    words and names (all tied for the most, earlier first, at most ``limit``: "Where was the
    designer born?" shares one word with "… designed by Ilse Marrek" and one with "… was born in
    Kessendorf").

    A finding that states none of the words only this sub-question asks about answers another
    one: the 1.5B coverage call said "University of Kansas is the name of the university" answers
    "What is the name of the fight song …?", and Adriana Trigiani's base answers "Which city did
    Big Stone Gap shoot in?" (7 such rows, 5 distinct, on earlier runs; all wrong by hand). A
    sub-question asking what another asks about another name ("Which country does Ken Flach play
    for?" beside "… does Lucie Šafářová play for?") takes only findings naming one of its names: the
    call said "Ken Flach plays for the United States" answers the second. On a comparison topic
    (``sides``: the compared entities), a sub-question naming one side only takes no finding that
    names the other side and not this one: the call said "Juan Carlos Onetti died on May 30, 1994"
    answers "When did Bryce Courtenay die?" (held-out run, 2026-12-07)."""
    wanted, names = _wanted(question), question_entities(question)
    asked_sides = [side for side in sides if names_entity(question, side)]
    own = own_words(question, others)
    # asked the same as another sub-question about another name ("Which country does A play for?" /
    # "… does B play for?"): only its names tell it apart, so a finding must name one of them
    by_name = bool(others) and bool(names) and not own and any(_wanted(o) >= wanted for o in others)

    def score(c: ConclusionItem) -> int | None:
        """Words and names shared with the question; None when ``c`` is no candidate."""
        text = _text(c)
        have, named = set(terms(text)), [name for name in names if names_entity(text, name)]
        states_own = bool(named) if by_name else not own or any(t.startswith(w) for w in own for t in have)
        if not states_own or not answers_question(question, c):
            return None
        if len(asked_sides) == 1 and not names_entity(text, asked_sides[0]) and any(
                names_entity(text, side) for side in sides):
            return None  # about the other compared side
        return sum(1 for w in wanted if any(t.startswith(w) for t in have)) + len(named)

    scored = [(sc, i) for i, c in enumerate(kept) if (sc := score(c)) is not None]
    best = max((sc for sc, _i in scored), default=0)
    return [i for sc, i in scored if sc == best][:limit]


def decide_coverage(ask: Ask, topic: str, coverage: Sequence[CoverageItem], kept: Sequence[ConclusionItem],
                    withheld: Sequence[WithheldFinding]) -> Plan[Answers]:
    """Coverage and the topic's answer from the published findings (see the module docstring).

    Args:
        ask: the budgeted model call (ledger key ``model:coverage``, purpose ``coverage``).
        topic: the research topic.
        coverage: the last assessment's rows (their order and ``conflict`` statuses are kept).
        kept: the published findings (``statement``, ``quote``, ``evidence_id``, ``title``).
        withheld: the withheld findings (named in a gap when one was drafted for the row).

    Returns:
        The :class:`Answers`.

    Raises:
        Model and worker errors of the call, unchanged (a spent model budget is not an error: the
        drafter's numbers decide, see the module docstring).
    """
    if not kept or not coverage:
        return Answers(_with_reasons(published_coverage(coverage, kept, withheld), ""), ())
    questions = [topic, *(str(row["question"]) for row in coverage)]
    # The topic: every finding it admits is judged (on a two-hop topic the first hop's finding
    # shares as many of its words as the answer does); its answer is the first judged to answer.
    picked = {0: [i for i, c in enumerate(kept) if answers_question(topic, c)]}
    subs = questions[1:]
    sides = comparison_entities(topic)
    picked |= {q: candidates(questions[q], kept, others=[o for o in subs if o != questions[q]], sides=sides)
               for q, row in enumerate(coverage, start=1) if row["status"] != "conflict"}
    # A sub-question a finding restates with its answer is decided by code (states_its_words).
    stated = {q: i for q, found in picked.items() if q > 0
              for i in reversed(found) if states_its_words(questions[q], kept[i])}
    judged = [(q, i) for q, found in picked.items() if q not in stated for i in found]
    linked = [] if sides else chains(topic, kept)  # shown last: the sub-questions' numbers stay
    shown = [(questions[q], str(kept[i]["statement"])) for q, i in judged]
    shown += [(topic, " ".join(full_sentence(str(kept[i]["statement"])) for i in chain)) for chain in linked]
    verdicts: dict[tuple[int, int], tuple[bool, str]] = {}
    chained: list[tuple[int, ...]] = []
    if shown:
        try:
            out = yield from ask("model:coverage", "coverage", prompts.coverage_messages(shown),
                                 schemas.coverage_output(len(shown)))
        except BudgetExceeded:
            return Answers(_with_reasons(published_coverage(coverage, kept, withheld), NO_CALL_LEFT), ())
        given = {v.n: v for v in out.verdicts}
        for n, pair in enumerate(judged, start=1):
            v = given.get(n)
            verdicts[pair] = (v is not None and v.verdict == schemas.ANSWERS, v.reason.strip() if v else "")
        chained = [chain for n, chain in enumerate(linked, start=len(judged) + 1)
                   if (v := given.get(n)) is not None and v.verdict == schemas.ANSWERS]
    verdicts |= {(q, i): (True, STATED) for q, i in stated.items()}
    rows = [_row(row, [(i, verdicts.get((q, i))) for i in picked.get(q, [])], kept, withheld)
            for q, row in enumerate(coverage, start=1)]
    # a single finding judged to answer the topic wins over a chain
    answer = next(((i,) for (q, i), (yes, _why) in verdicts.items() if q == 0 and yes), chained[0] if chained else ())
    return Answers(rows, answer)


def chains(topic: str, kept: Sequence[ConclusionItem], limit: int = 2) -> list[tuple[int, int]]:
    """Pairs of published findings that may answer a two-hop topic together: the first names a
    name the topic gives and a name the topic does not give (the entity it leads to), which the
    second one names. Held-out research topics whose answer was published but judged to answer
    the topic by no finding alone (2026-12-07): "2014 S/S is the debut album of South Korean boy
    group WINNER" then "WINNER was formed by YG Entertainment"; "Big Stone Gap is a 2014 … film
    … directed by Adriana Trigiani" then "Adriana Trigiani is … based in Greenwich Village".

    Args:
        topic: the research topic (not a comparison: its sides are answered side by side).
        kept: the published findings.
        limit: the most pairs returned (each is one more pair for the coverage call).

    Returns:
        ``(first, second)`` 0-based positions, in the order of the findings.
    """
    given = question_entities(topic)
    pairs: list[tuple[int, int]] = []
    for i, first in enumerate(kept):
        statement = str(first["statement"])
        if not any(names_entity(statement, name) for name in given):
            continue
        leads = [name for name in question_entities(statement)
                 if not names_entity(topic, name) and not any(names_entity(name, g) for g in given)]
        pairs += [(i, j) for j, second in enumerate(kept) if j != i
                  and any(names_entity(str(second["statement"]), name) for name in leads)]
    return pairs[:limit]


def _row(row: CoverageItem, judged: Sequence[tuple[int, tuple[bool, str] | None]], kept: Sequence[ConclusionItem],
         withheld: Sequence[WithheldFinding]) -> CoverageItem:
    """One sub-question's row from code's picks (0-based findings) and the call's verdict on each."""
    new = row.copy()
    if row["status"] == "conflict":
        new["reason"] = "sources disagree; both sides are quoted in the report"
        return new
    for i, verdict in judged:
        if verdict is not None and verdict[0]:
            new["status"], new["gap"], new["next_queries"] = "covered", "", []
            new["evidence_ids"] = [str(kept[i]["evidence_id"])]
            new["reason"] = f"finding {i + 1} answers it" + (f": {verdict[1]}" if verdict[1] else "")
            return new
    lost = [w for w in withheld if int(w.get("index", 0) or 0) == row["index"]]
    refused = [(i, v) for i, v in judged if v is not None]
    if refused:
        reason = "; ".join(f"finding {i + 1} does not answer it" + (f": {v[1]}" if v[1] else "") for i, v in refused)
    elif lost:
        reason = f"its finding was withheld: {'; '.join(lost[0]['reasons'])}"
    elif judged:
        reason = "the coverage call gave no verdict on its finding"
    else:
        reason = "no published finding shares its words"
    new["status"], new["gap"], new["reason"] = "gap", reason, reason
    return new


def _with_reasons(rows: Sequence[CoverageItem], note: str) -> list[CoverageItem]:
    """Rows of :func:`published_coverage` with a ``reason`` (``note`` added when given)."""
    out: list[CoverageItem] = []
    for row in rows:
        new = row.copy()
        base = ("sources disagree; both sides are quoted in the report" if row["status"] == "conflict"
                else "a published finding was drafted for it" if row["status"] == "covered"
                else str(row.get("gap") or "no published finding answers it"))
        new["reason"] = f"{base} ({note})" if note else base
        out.append(new)
    return out


__all__ = ["NO_CALL_LEFT", "STATED", "Answers", "answers_question", "candidates", "chains", "decide_coverage",
           "own_words", "states_asked_kind", "states_its_words"]
