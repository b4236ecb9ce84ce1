"""Step ``compare``: a comparison answered from one set of verified quotes per side.

A comparison's answer call sees up to six chunks and must write a claim per side before it
answers; the 1.5B model often declines with both pages in hand or writes a claim for one side only
(on the first 42 questions of the 250-question split, 9 of 14 yes/no comparisons ended
``insufficient-evidence``, 7 with both pages read: README "Measured"). So when the answer round
leaves a two-sided comparison declined, or its only problem is a side without a claim:

1. code gives each side without a verified claim the sentences of its own page that are about the
   compared fact (:func:`~ditto_nb.patterns.web_qa.sides.attribute_claims`: verbatim, verified as
   exact text of their chunk);
2. when every side has quotes, one short model call (``Task: compare``, :class:`SidesOutput`)
   sees only the question and each side's quotes, writes each side's value, then the answer;
3. the declared answer rules (:data:`~ditto_nb.patterns.web_qa.rule_set.RULES`) run on that answer
   with the sides' claims, as on any draft: ``side-by-side`` publishes it with one quote per side,
   and a problem left declines the task, naming the side without a quote.

The step replaces the repair for these drafts (one call instead of repair + regrade) and is
switchable by name like a rule (:data:`COMPARE_SIDES`). Nothing here knows which attribute is
compared.
"""

from __future__ import annotations

from collections.abc import Sequence

from ditto_nb.patterns.common import run_step
from ditto_nb.patterns.common.records import ChunkRecord
from ditto_nb.patterns.web_qa import prompts, schemas
from ditto_nb.patterns.web_qa.comparison import about
from ditto_nb.patterns.web_qa.rule_set import COMPARE_SIDES
from ditto_nb.patterns.web_qa.rules import LayerResult, RuleContext
from ditto_nb.patterns.web_qa.side_by_side import missing_sides
from ditto_nb.patterns.web_qa.sides import attribute_claims
from ditto_nb.patterns.web_qa.stage_models import ClaimJson, RuleFiredJson
from ditto_nb.patterns.web_qa.stages import RunState, Step
from ditto_nb.runtime.graph import graph

def wants_compare(context: RuleContext, layer: LayerResult, rules_off: frozenset[str]) -> bool:
    """Whether the answer round's draft goes to the compare step rather than the repair.

    Args:
        context: the question's rule context (``compared``: its sides).
        layer: the rule layer's result on the answer round's draft.
        rules_off: names switched off (:data:`COMPARE_SIDES` among them: never).

    Returns:
        True for a two-sided comparison whose draft declined, or whose only problem is a side
        without a verified claim (``sides-quoted``).
    """
    if len(context.compared) != 2 or COMPARE_SIDES in rules_off:
        return False
    if layer.draft.status != "answered":
        return True
    checks = {f["rule"] for f in layer.fired if f["phase"] == "check"}
    return checks == {"sides-quoted"}


def _side_quotes(compared: Sequence[str], claims: Sequence[ClaimJson]) -> list[tuple[str, list[str]]]:
    first, second = compared[0], compared[1]
    return [(side, [str(c.get("quote", "")) for claim in claims if about(claim, side, other)
                    for c in claim.get("citations") or []])
            for side, other in ((first, second), (second, first))]


def compare_round(run: RunState, context: RuleContext, draft: schemas.AnswerOutput, claims: list[ClaimJson],
                  candidates: Sequence[ChunkRecord]
                  ) -> Step[tuple[schemas.AnswerOutput, list[ClaimJson], RuleFiredJson] | None]:
    """The compare step on one declined or one-sided draft (see the module docstring).

    Args:
        run: the run's state (the call goes through its ledger and budget).
        context: the question's rule context.
        draft: the answer round's draft.
        claims: its verified, supported claims.
        candidates: every chunk read (the sides' pages are looked up among them).

    Returns:
        ``(draft, claims, trace entry)``: the compare call's answer and status on the draft, the
        claims with the sides' quotes added; None (no call made) when a side has no quote.

    Raises:
        BudgetExceeded: the call would exceed the run's model calls.
    """
    compared = context.compared
    every = [*claims, *attribute_claims(context.question, compared, claims, candidates)]
    if missing_sides(compared, every):
        return None
    g = graph("compare")
    get = run.add_model_call(g, "compare", prompts.compare_messages(context.question, _side_quotes(compared, every)),
                             schemas.SidesOutput)
    outputs = yield from run_step(g)
    out = schemas.SidesOutput.model_validate(get(outputs))
    compared_draft = draft.model_copy(update={"answer": out.answer, "status": out.status})
    added = len(every) - len(claims)
    fired: RuleFiredJson = {
        "rule": COMPARE_SIDES, "phase": "rewrite", "round": "compare", "changed": out.answer != draft.answer,
        "before": draft.answer, "after": out.answer,
        "note": f"{compared[0]}: {out.first} | {compared[1]}: {out.second} → {out.status}"
                + (f" ({added} side quote(s) added by code)" if added else ""),
    }
    return compared_draft, every, fired


__all__ = ["COMPARE_SIDES", "compare_round", "wants_compare"]
