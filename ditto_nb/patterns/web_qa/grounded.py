"""Web QA's answer through the shared grounded-answer component
(:func:`ditto_nb.patterns.common.grounding.ground`).

First attempt (round ``answer``): one graph with the ``answer`` call, the ``verify_quotes`` tool
and the ``ground`` review (:func:`~ditto_nb.patterns.web_qa.draft_round.draft_round`), then the
declared answer rules (:func:`~ditto_nb.patterns.web_qa.rules.run_rules`). Second attempt, at
most one:

- ``compare``: a comparison declined, or left with one side unquoted, is answered from each
  side's quotes (:mod:`~ditto_nb.patterns.web_qa.compare_step`);
- none: the answer stands on its verified, supported claims (failed claims are withheld with
  their reasons, no repair call is spent), or nothing failed;
- none either, and the task declines: every rule problem says the answer itself is not the asked
  fact (none is :attr:`~ditto_nb.patterns.web_qa.rules.AnswerRule.mendable`; the step
  :data:`~ditto_nb.patterns.web_qa.rule_set.REPAIR_MENDABLE_ONLY`, recorded in the trace);
- ``repair``: otherwise; only the failed claims are sent back with their problems, the claims
  that passed stay, and only the repaired claims are regraded. When no claim passes and the
  repair did not conclude ``insufficient-evidence``, the failed claims are kept in Memory
  (``withheld``) and :class:`~ditto_nb.errors.UngroundedAnswer` is raised. When the repaired
  answer fails the rules, the first draft's answer may stand on the repaired claims
  (``keep-first-answer``).

:func:`grounded_answer` returns the report's ``answer`` object (status decided by code,
:func:`~ditto_nb.patterns.web_qa.evaluate.decide_status`), the withheld claims and whether the
repair ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ditto_nb.errors import UngroundedAnswer
from ditto_nb.patterns.common import run_step
from ditto_nb.patterns.common.grounding import Attempt, Grounding, ground
from ditto_nb.patterns.common.records import ChunkRecord, ClaimJson, PageRecord, WithheldClaim
from ditto_nb.patterns.web_qa import schemas
from ditto_nb.patterns.web_qa.compare_step import compare_round, wants_compare
from ditto_nb.patterns.web_qa.draft_round import draft_round
from ditto_nb.patterns.web_qa.evaluate import Evaluation, decide_status, merge_claims
from ditto_nb.patterns.web_qa.rule_set import KEEP_FIRST_ANSWER, REPAIR_MENDABLE_ONLY, RULES, mendable
from ditto_nb.patterns.web_qa.rules import DraftAnswer, LayerResult, RuleContext, run_rules
from ditto_nb.patterns.web_qa.stage_models import AnswerJson, ReportConflict, RuleFiredJson, SelectedJson
from ditto_nb.patterns.web_qa.stages import RunState, Step
from ditto_nb.patterns.web_qa.withheld import withheld_graph


@dataclass
class WebDraft:
    """A Web QA draft after the rule layer.

    Attributes:
        answer: the draft with the answer text and status the rules left.
        result: the draft's :class:`~ditto_nb.patterns.web_qa.evaluate.Evaluation` (quotes,
            support, review).
        layer: the rule layer's result on the draft.
        fired: the rules that fired in this round (and the compare step's record), in order.
    """

    answer: schemas.AnswerOutput
    result: Evaluation
    layer: LayerResult
    fired: list[RuleFiredJson] = field(default_factory=list)

    @property
    def issues(self) -> list[str]:
        """The rule layer's answer-level problems."""
        return list(self.layer.problems)


@dataclass(frozen=True)
class _Shown:
    """What the answer and repair calls are shown: chunks, their labels, the selection, conflicts."""

    chunks: list[ChunkRecord]
    labels: dict[str, str]
    selected: SelectedJson
    conflicts: list[ReportConflict]


WebAttempt = Attempt[WebDraft, ClaimJson, WithheldClaim]


def _layer(run: RunState, context: RuleContext, draft: schemas.AnswerOutput, claims: list[ClaimJson],
           round: str) -> LayerResult:
    """The declared answer rules (:data:`~ditto_nb.patterns.web_qa.rule_set.RULES`) on one draft."""
    return run_rules(RULES, context, DraftAnswer(text=draft.answer, status=draft.status, claims=list(claims)),
                     off=run.rules_off, round=round)


def _with(draft: schemas.AnswerOutput, layer: LayerResult) -> schemas.AnswerOutput:
    """The draft with the answer text and status the rule layer left."""
    return draft.model_copy(update={"answer": layer.draft.text, "status": layer.draft.status})


def _attempt(round: str, answer: schemas.AnswerOutput, result: Evaluation, layer: LayerResult,
             fired: list[RuleFiredJson], withheld: list[WithheldClaim]) -> WebAttempt:
    return Attempt(round, WebDraft(_with(answer, layer), result, layer, fired),
                   list(layer.draft.claims), list(withheld), [*result.problems, *layer.problems], result.fits)


def grounded_answer(run: RunState, context: RuleContext, chunks: list[ChunkRecord], labels: dict[str, str],
                    selected: SelectedJson, conflicts: list[ReportConflict], pages: Sequence[PageRecord]
                    ) -> Step[tuple[AnswerJson, list[WithheldClaim], bool]]:
    """The answer, its checks and at most one repair or compare step (see the module docstring).

    Returns:
        ``(answer, withheld, repaired)``: the report's ``answer`` object (``status``, ``text``,
        ``claims``, ``rules`` and, when claims failed, ``withheld``), the withheld claims, and
        True when the repair ran.

    Raises:
        UngroundedAnswer: no claim passed after the repair and it did not conclude
            ``insufficient-evidence`` (the failed claims are kept in Memory first).
        BudgetExceeded: the model-call cap.
    """
    question, compared = context.question, list(context.compared)
    shown = _Shown(chunks, labels, selected, conflicts)

    def first() -> Step[WebAttempt]:
        draft, result = yield from draft_round(run, "answer", question, compared, chunks, labels, selected,
                                               conflicts, [], [], [])
        layer = _layer(run, replace(context, fits=result.fits, fits_reason=result.fits_reason), draft,
                       result.valid_claims, "answer")
        return _attempt("answer", draft, result, layer, list(layer.fired), result.rejected)

    def second(one: WebAttempt) -> Step[WebAttempt | None]:
        draft, result, issues, claims = one.draft.answer, one.draft.result, one.draft.issues, one.kept
        if wants_compare(context, one.draft.layer, run.rules_off):
            compared_out = yield from compare_round(run, context, draft, claims, pages)
            if compared_out is not None:
                sides_draft, sides_claims, sides_fired = compared_out
                layer = _layer(run, replace(context, repaired=True), sides_draft, sides_claims, "compare")
                return _attempt("compare", sides_draft, result, layer, [sides_fired, *layer.fired], result.rejected)
        if (result.problems and not issues and claims) or not (result.problems or issues):
            return None  # the answer stands on its verified, supported claims (or nothing failed)
        if issues and not mendable(one.draft.layer.fired) and REPAIR_MENDABLE_ONLY not in run.rules_off:
            one.draft.fired.append({"rule": REPAIR_MENDABLE_ONLY, "phase": "check", "round": "answer",
                                    "changed": False, "before": draft.answer, "after": draft.answer,
                                    "note": "no repair: every problem says the answer is not the asked fact"})
            return None  # declined below: the answer's problems stand
        return (yield from _repair(run, context, shown, one))

    grounding: Grounding[WebDraft, ClaimJson, WithheldClaim] = yield from ground(first, second)
    final = grounding.final
    draft, claims, issues = final.draft.answer, final.kept, final.draft.issues
    fired = [*grounding.first.draft.fired, *(grounding.second.draft.fired if grounding.second else [])]
    has_conflict = bool(conflicts)
    first_result = grounding.first.draft.result
    stands = final.round == "answer" and bool(first_result.problems) and not issues and bool(claims)
    answer: AnswerJson
    if final.round == "compare" or stands or issues or (final.round == "repair" and final.withheld):
        # Failed claims are withheld (with their reasons), never published; an answer its
        # verified quotes do not carry is not published either.
        hint = "insufficient-evidence" if issues else draft.status
        answer = {"status": decide_status(hint, len(claims), has_conflict), "text": draft.answer, "claims": claims,
                  "withheld": _withheld_json(final.withheld)}
    else:
        answer = {"status": decide_status(draft.status, len(claims), has_conflict), "text": draft.answer,
                  "claims": claims}
    answer["rules"] = fired
    return answer, final.withheld, final.round == "repair"


def _repair(run: RunState, context: RuleContext, shown: _Shown, one: WebAttempt) -> Step[WebAttempt]:
    """The one repair of the answer round's failed claims (see the module docstring)."""
    first, result, claims = one.draft.answer, one.draft.result, one.kept
    items = first.claims
    failed = [items[i] for i in sorted(set(result.failed))]
    kept = [items[i] for i in range(len(items)) if i not in set(result.failed)]
    draft, repaired = yield from draft_round(run, "repair", context.question, list(context.compared),
                                             shown.chunks, shown.labels, shown.selected, shown.conflicts,
                                             failed, [*result.problems, *one.draft.issues], kept)
    claims = merge_claims([*claims, *repaired.valid_claims])
    withheld = repaired.rejected
    if repaired.problems and not claims and draft.status != "insufficient-evidence":
        # kept in Memory (``withheld``) so show / claims_frame list them after the failure
        yield from run_step(withheld_graph(run.task, withheld, "UngroundedAnswer"))
        raise UngroundedAnswer("the answer failed verification after one repair: " + "; ".join(repaired.problems))
    context = replace(context, repaired=True)
    layer = _layer(run, replace(context, fits=repaired.fits, fits_reason=repaired.fits_reason), draft, claims,
                   "repair")
    fired: list[RuleFiredJson] = list(layer.fired)
    if (layer.problems and first.status == "answered" and first.answer != draft.answer
            and KEEP_FIRST_ANSWER not in run.rules_off):
        # The repair mends claims; the first draft's answer may stand on them (the repair often
        # rewrites a right short answer as a sentence): the same rules decide.
        kept_answer = _layer(run, replace(context, fits=result.fits, fits_reason=result.fits_reason), first, claims,
                             "repair")
        if not kept_answer.problems:
            fired += [{"rule": KEEP_FIRST_ANSWER, "phase": "rewrite", "round": "repair", "changed": True,
                       "before": draft.answer, "after": kept_answer.draft.text,
                       "note": "the repaired answer failed the rules; the first answer stands on the "
                               "repaired claims"}, *kept_answer.fired]
            draft, layer = first, kept_answer
    return _attempt("repair", draft, repaired, layer, fired, withheld)


def _withheld_json(withheld: list[WithheldClaim]) -> list[WithheldClaim]:
    """The report's ``answer.withheld`` entries: each failed claim with its quote and reasons only."""
    return [{"claim": w["claim"], "quote": w["quote"], "reasons": w["reasons"]} for w in withheld]


__all__ = ["WebAttempt", "WebDraft", "grounded_answer"]
