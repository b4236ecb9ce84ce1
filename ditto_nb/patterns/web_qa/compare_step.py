"""Step ``compare``: a comparison answered from one set of verified quotes per side.

A comparison's answer call sees up to six chunks and must write a claim per side before it
answers; the 1.5B model often declines with both pages in hand or writes a claim for one side only
(on the first 42 questions of the 250-question split, 9 of 14 yes/no comparisons ended
``insufficient-evidence``, 7 with both pages read: README "Measured"). So when the answer round
leaves a two-sided comparison declined, or its only problem is a side without a claim:

1. code gives each side without a verified claim the sentences of its own page that are about the
   compared fact (:func:`~ditto_nb.patterns.common.compare.sides.attribute_claims`: verbatim, verified as
   exact text of their chunk);
2. when every side has quotes, one short model call (``Task: compare``,
   :class:`~ditto_nb.patterns.common.compare.schema.SidesOutput`) sees only the question and each
   side's quotes (:func:`~ditto_nb.patterns.common.compare.values.side_quotes`), writes each side's
   value, then the answer (:func:`~ditto_nb.patterns.common.compare.values.sides_answer`); an
   ordering or ``same`` question whose two values each state one number or year written in that
   side's quotes is decided by code from them
   (:func:`~ditto_nb.patterns.common.compare.values.decide_values`; the 1.5B model wrote "749
   ft" and "628 ft" for "Is 200 West Street taller than 888 7th Avenue?", then declined); a
   ``both`` question (:func:`~ditto_nb.patterns.common.compare.side_by_side.asks_both`) has each side
   judged on its own (yes / no / unclear) and code combines them
   (:func:`~ditto_nb.patterns.common.compare.side_by_side.both_answer`: yes when both are; otherwise the
   task declines);
3. the declared answer rules (:data:`~ditto_nb.patterns.web_qa.rule_set.RULES`) run on that answer
   with the sides' claims, as on any draft: ``side-by-side`` publishes it with one quote per side,
   and a problem left declines the task, naming the side without a quote.

The step replaces the repair for these drafts (one call instead of repair + regrade) and is
switchable by name like a rule (:data:`COMPARE_SIDES`). Nothing here knows which attribute is
compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from ditto_nb.patterns.common import run_step
from ditto_nb.evidence.chunks import chunks_from_page
from ditto_nb.patterns.common.compare.schema import SidesOutput
from ditto_nb.patterns.common.compare.side_by_side import missing_sides
from ditto_nb.patterns.common.compare.sides import attribute_claims
from ditto_nb.patterns.common.compare.values import side_quotes, sides_answer
from ditto_nb.patterns.common.records import ChunkRecord, ClaimJson, PageRecord
from ditto_nb.patterns.web_qa import prompts, schemas
from ditto_nb.patterns.web_qa.rule_set import COMPARE_SIDES, compares
from ditto_nb.patterns.web_qa.rules import LayerResult, RuleContext
from ditto_nb.patterns.web_qa.stage_models import RuleFiredJson
from ditto_nb.patterns.web_qa.stages import RunState, Step
from ditto_nb.runtime.graph import graph


def wants_compare(context: RuleContext, layer: LayerResult, rules_off: frozenset[str]) -> bool:
    """Whether the answer round's draft goes to the compare step rather than the repair.

    Args:
        context: the question's rule context (``compared``: its sides).
        layer: the rule layer's result on the answer round's draft.
        rules_off: names switched off (:data:`COMPARE_SIDES` among them: never).

    Returns:
        True for a two-sided comparison whose draft declined, or whose only problems say it is not
        yet the comparison's answer (rules declared with ``compares``: a side without a verified
        claim, a choice answered with neither or both sides; :func:`~.rule_set.compares`).
    """
    if len(context.compared) != 2 or COMPARE_SIDES in rules_off:
        return False
    return layer.draft.status != "answered" or compares(layer.fired)


def compare_round(run: RunState, context: RuleContext, draft: schemas.AnswerOutput, claims: list[ClaimJson],
                  pages: Sequence[PageRecord]
                  ) -> Step[tuple[schemas.AnswerOutput, list[ClaimJson], RuleFiredJson] | None]:
    """The compare step on one declined or one-sided draft (see the module docstring).

    Args:
        run: the run's state (the call goes through its ledger and budget).
        context: the question's rule context.
        draft: the answer round's draft.
        claims: its verified, supported claims.
        pages: every page read (``page_read`` outputs): each side's own page is looked up among
            all their chunks, not only the chunks ranked for the answer call.

    Returns:
        ``(draft, claims, trace entry)``: the compare call's answer and status on the draft, the
        claims with the sides' quotes added; None (no call made) when a side has no quote.

    Raises:
        BudgetExceeded: the call would exceed the run's model calls.
    """
    compared = context.compared
    chunks = [cast(ChunkRecord, c.model_dump()) for page in pages for c in chunks_from_page(page)]
    every = [*claims, *attribute_claims(context.question, compared, claims, chunks)]
    if missing_sides(compared, every):
        return None
    sides = side_quotes(compared, every)
    g = graph("compare")
    get = run.add_model_call(g, "compare", prompts.compare_messages(context.question, sides), SidesOutput)
    outputs = yield from run_step(g)
    out = SidesOutput.model_validate(get(outputs))
    answer, status, decided = sides_answer(context.question, compared, out, [q for _, q in sides])
    compared_draft = draft.model_copy(update={"answer": answer, "status": status})
    added = len(every) - len(claims)
    before = draft.answer if draft.status == "answered" else ""  # a declined draft had no answer
    fired: RuleFiredJson = {
        "rule": COMPARE_SIDES, "phase": "rewrite", "round": "compare", "changed": answer != before,
        "before": before, "after": answer,
        "note": f"{compared[0]}: {out.first} | {compared[1]}: {out.second} → {out.status}"
                + (f"; decided by code from the two sides: {decided}" if decided is not None else "")
                + (f" ({added} side quote(s) added by code)" if added else ""),
    }
    return compared_draft, every, fired


__all__ = ["COMPARE_SIDES", "compare_round", "wants_compare"]
