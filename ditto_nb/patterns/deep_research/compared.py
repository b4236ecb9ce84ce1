"""A comparison topic answered side by side: the comparison engine Web QA's compare step uses
(:mod:`ditto_nb.patterns.common.compare`), run on the research's evidence.

Research drafts findings for its sub-questions; on a comparison topic ("Which has more acts,
Vanessa or Le roi malgré lui?", "Are both Polar Bear and Daiquiri cocktails?") a 1.5B model's
drafts rarely state the comparison itself, and never the ``yes``/``no`` a yes/no topic asks for
(on 30 unseen topics, 2026-12-06: 3 of 10 comparisons reached, 0 of 2 yes/no). Web QA answers the
same questions from one quote per side (its compare step, ``web_qa/compare_step.py``); this
module runs that one mechanism after the report's grounding:

1. the compared sides are the topic's
   (:func:`~ditto_nb.patterns.common.retrieval.comparison_entities`, exactly two);
2. each side's quotes are code's: the sentences of its own page about the compared fact and its
   defining sentence (:func:`~ditto_nb.patterns.common.compare.sides.attribute_claims`, verbatim and
   verified as exact text of the evidence item). The published findings are not used: they answer
   the sub-questions, and a finding about one side's photographers stood in for its birth date
   (check half, 2026-12-06: "Who is older, Annie Morton or Terry Richardson?" answered wrong);
3. one ``compare`` call (the prompt of :func:`~ditto_nb.patterns.common.compare.prompt.compare_request`)
   writes each side's value and the answer; code decides where it can
   (:func:`~ditto_nb.patterns.common.compare.values.sides_answer`), and only an answer of the form
   the topic asks for is published (:func:`~ditto_nb.patterns.common.compare.side_by_side.compared_answer`:
   yes/no, one side, or a value both sides' quotes state).

An ordering whose quotes state one year or number per side is decided by code first, with no call
(Web QA's ``compare-order`` rule, :func:`~ditto_nb.patterns.common.compare.comparison.order_decision`). An
ordering or sameness code cannot decide (:func:`~ditto_nb.patterns.common.compare.values.asks_values`)
is not published on the call's pick alone: on both halves (2026-12-06) the 1.5B model's pick was
right for 2 such topics and wrong for 4 ("Which tennis player is younger, John Newcombe or Květa
Peschke?" with both birth years quoted).

No call is made when a side has no quote, or when no model call is left; the report then has no
compared answer, and :class:`Compared` says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from ditto_nb.errors import BudgetExceeded
from ditto_nb.patterns.common.compare.comparison import about, order_decision, order_of, value_text
from ditto_nb.patterns.common.compare.schema import SidesOutput
from ditto_nb.patterns.common.compare.side_by_side import compared_answer, missing_sides
from ditto_nb.patterns.common.compare.sides import attribute_claims, attribute_score, attribute_words
from ditto_nb.patterns.common.compare.values import asks_values, side_quotes, sides_answer
from ditto_nb.patterns.common.records import ChunkRecord, ClaimJson, EvidenceItem
from ditto_nb.patterns.common.report_records import ComparedAnswer, ComparedSide
from ditto_nb.patterns.common.retrieval import comparison_entities, names_entity
from ditto_nb.patterns.deep_research import prompts
from ditto_nb.patterns.deep_research.run_state import Ask, Plan


@dataclass(frozen=True)
class Compared:
    """What the side-by-side step did.

    Attributes:
        answer: the published comparison, or None.
        note: why there is none ("" when there is one, or the topic is not a comparison).
    """

    answer: ComparedAnswer | None
    note: str = ""


def _chunk(item: EvidenceItem) -> ChunkRecord:
    """An evidence item as the chunk record it was made from (its short id and round dropped)."""
    return cast(ChunkRecord, {k: v for k, v in item.items() if k not in ("id", "round")})


def _side(side: str, other: str, value: str, claims: Sequence[ClaimJson], wanted: Sequence[str],
          evidence_ids: dict[str, str]) -> ComparedSide:
    """One side's row: its value and, of its quotes, the one sharing most of the topic's attribute
    words (the earlier on a tie), with its evidence id."""
    cited = [c for claim in claims if about(claim, side, other) for c in claim["citations"]]
    citation = max(cited, key=lambda c: (attribute_score(str(c["quote"]), wanted), -cited.index(c)))
    return {"side": side, "value": value, "quote": str(citation["quote"]),
            "evidence_id": evidence_ids.get(str(citation["chunk_id"]), ""), "title": str(citation.get("title", ""))}


ORDERING_WITHHELD = ("it orders the compared sides; an ordering is published only side by side, from one "
                     "quoted value per side")
"""The reason a finding that orders the two compared sides is withheld (:func:`orders_sides`)."""


def orders_sides(topic: str, statement: str) -> bool:
    """Whether a finding orders a comparison topic's two sides ("Annie Morton is older than Terry
    Richardson"): it names both and an ordering word (:func:`~ditto_nb.patterns.common.compare.comparison.order_of`).

    Such a finding is the model's pick, not a comparison of two quoted values: measured on the
    check half, the 1.5B drafter wrote "Annie Morton is older than Terry Richardson" in three runs
    beside the side-by-side answer "Terry Richardson" (1965 against 1970), which code decided from
    the two birth dates. The ordering is published as the side-by-side answer only.
    """
    sides = comparison_entities(topic)
    return (len(sides) == 2 and all(names_entity(statement, side) for side in sides)
            and order_of(statement) is not None)


def answer_side_by_side(ask: Ask, topic: str, evidence: Sequence[EvidenceItem]) -> Plan[Compared]:
    """The comparison topic's answer from one set of quotes per side (see the module docstring).

    Args:
        ask: the budgeted model call (ledger key ``model:compare``, purpose ``compare``).
        topic: the research topic.
        evidence: every evidence item of the research (``id``, ``chunk_id``, ``text``, ``title``…).

    Returns:
        The :class:`Compared` (``answer`` None when the topic is not a two-sided comparison, a side
        has no quote, no model call is left, code could not decide an ordering or sameness, or the
        call's answer is not of the form the topic asks for).

    Raises:
        Model and worker errors of the call, unchanged (a spent model budget is not an error).
    """
    compared = comparison_entities(topic)
    if len(compared) != 2:
        return Compared(None)
    every = attribute_claims(topic, compared, [], [_chunk(item) for item in evidence])
    missing = missing_sides(compared, every)
    if missing:
        return Compared(None, f"no quote for {' or '.join(missing)}")
    first, second = compared[0], compared[1]
    wanted = attribute_words(topic, compared)
    evidence_ids = {str(item.get("chunk_id", "")): str(item["id"]) for item in evidence}
    by_order = order_decision(topic, compared, every)
    if by_order is not None:  # each side's quotes state one value: code decides
        ordered, a, b = by_order
        sides = [_side(first, second, value_text(a), every, wanted, evidence_ids),
                 _side(second, first, value_text(b), every, wanted, evidence_ids)]
        return Compared({"answer": ordered, "decided_by": "code", "sides": sides})
    sides_shown = side_quotes(compared, every)
    quotes = [q for _side_name, q in sides_shown]
    try:
        out = yield from ask("model:compare", "compare", prompts.compare_messages(topic, sides_shown), SidesOutput)
    except BudgetExceeded:
        return Compared(None, "no model call left for the compare call")
    answer, status, decided = sides_answer(topic, compared, out, quotes)
    guessed = decided is None and asks_values(topic)  # an order or sameness code could not read
    published = compared_answer(topic, compared, answer, every) if status == "answered" and not guessed else None
    if published is None:
        return Compared(None, f"the two sides do not decide it ({first}: {out.first}; {second}: {out.second})")
    sides = [_side(first, second, out.first, every, wanted, evidence_ids),
             _side(second, first, out.second, every, wanted, evidence_ids)]
    return Compared({"answer": published[0], "decided_by": "code" if decided is not None else "model", "sides": sides})


__all__ = ["ORDERING_WITHHELD", "Compared", "answer_side_by_side", "orders_sides"]
