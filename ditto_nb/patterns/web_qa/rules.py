"""One declared answer-rule layer: every code rule that rewrites or checks a draft answer (pure).

A rule is one :class:`AnswerRule`: a name, the question kinds it applies to (``single``: a
question about one thing, bridges included; ``comparison``: two compared entities, see
:func:`~ditto_nb.patterns.common.retrieval.comparison_entities`), a phase and one function. The
layer (:func:`run_rules`) runs the declared rules (:data:`ditto_nb.patterns.web_qa.rule_set.RULES`)
in their one order, in two phases:

1. ``rewrite``: a rule may return a :class:`Rewrite` (a new answer and claims, e.g. the side an
   ordering comparison's quotes decide for); the first rule that rewrites ends the phase.
2. ``check``: every rule may return a problem (a string starting with ``answer:``); problems go to
   the one repair when one of them is :attr:`AnswerRule.mendable` (a quote is missing), and a
   problem left after it, or a draft whose every problem says the answer is not the asked fact,
   makes the task ``insufficient-evidence``.

Every rule that fired is recorded (:class:`RuleFired`: name, phase, whether it changed the
answer, the answer before and after, a note), kept in the report's ``answer.rules`` and shown by
``ditto-nb show`` and the claims frame. Any rule can be switched off by name
(:func:`rules_off`: the ``DITTO_RULES_OFF`` environment variable, comma-separated, or the
``rules_off`` argument of :func:`~ditto_nb.patterns.web_qa.app.run_web_qa`); an unknown name is an
:class:`~ditto_nb.errors.InvalidRequest`. Rules earn their place on questions they were not built
on: ``benchmarks/web_qa.py`` reports, per rule, the answers it changed, made right and made wrong.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ditto_nb.errors import InvalidRequest
from ditto_nb.patterns.common.records import ChunkRecord, ClaimJson
from ditto_nb.patterns.web_qa.stage_models import RuleFiredJson

QuestionKind = Literal["single", "comparison"]
Phase = Literal["rewrite", "check"]
ENV_RULES_OFF = "DITTO_RULES_OFF"
"""Environment variable naming the rules switched off (comma-separated rule names)."""


@dataclass(frozen=True)
class RuleContext:
    """What every rule may read about the question and the evidence (never changed by a rule).

    Attributes:
        question: the question as asked.
        compared: the compared entities of a comparison (``()`` otherwise).
        chunks: the chunks shown to the answer call (``ChunkRecord``: ``chunk_id``, ``text``, ``title``…).
        bridges: the names the second hop looked up (the in-between entities; ``()`` without a hop).
        fits: the grounding review's judgement that the answer gives what the question asks.
        fits_reason: its reason.
        repaired: True when the draft is the repair's (the one repair has been spent).
    """

    question: str
    compared: tuple[str, ...] = ()
    chunks: tuple[ChunkRecord, ...] = ()
    bridges: tuple[str, ...] = ()
    fits: bool = True
    fits_reason: str = ""
    repaired: bool = False

    @property
    def kind(self) -> QuestionKind:
        """``comparison`` with two or more compared entities, else ``single``."""
        return "comparison" if len(self.compared) >= 2 else "single"

    @property
    def evidence(self) -> list[str]:
        """The shown chunks' texts."""
        return [str(c.get("text", "")) for c in self.chunks]


@dataclass(frozen=True)
class DraftAnswer:
    """The draft answer as the layer sees it.

    Attributes:
        text: the short answer.
        status: the model's status hint (rules check only ``answered``).
        claims: the verified, supported claims (report JSON).
        decided: True once code chose the answer from one verified quote per compared side (the
            answer-words checks are then skipped: the answer is the comparison's outcome, not a
            phrase copied from a quote).
    """

    text: str
    status: str
    claims: list[ClaimJson] = field(default_factory=list)
    decided: bool = False


@dataclass(frozen=True)
class Rewrite:
    """A rule's new answer: its text, the claims it rests on, whether code decided it, and why."""

    text: str
    claims: list[ClaimJson]
    decided: bool = False
    note: str = ""


RuleOutput = Rewrite | str | None
"""What a rule returns: a :class:`Rewrite` (phase ``rewrite``), a problem (phase ``check``), or None."""


@dataclass(frozen=True)
class AnswerRule:
    """One named rule of the layer.

    Attributes:
        name: the rule's name (lower-case, dashes): what the trace, the benchmark and
            ``DITTO_RULES_OFF`` call it.
        phase: ``rewrite`` or ``check``.
        kinds: the question kinds it applies to.
        apply: ``(context, draft) -> Rewrite | problem | None``.
        summary: one line saying what it does (shown by ``ditto-nb show`` and the docs).
        mendable: a check whose problem the one repair can mend: a quote or claim is missing (the
            answer may be right, its citation is not). False for a check that finds the answer
            itself is not the asked fact; a draft whose every problem is of that sort is declined
            without a repair (see :mod:`~ditto_nb.patterns.web_qa.grounded`).
        compares: a check whose problem means the draft is not yet a comparison's answer (a side
            without a verified claim, a choice naming neither side): a draft whose every problem
            is of that sort goes to the compare step instead of the repair
            (:func:`~ditto_nb.patterns.web_qa.compare_step.wants_compare`).
    """

    name: str
    phase: Phase
    kinds: frozenset[QuestionKind]
    apply: Callable[[RuleContext, DraftAnswer], RuleOutput]
    summary: str
    mendable: bool = False
    compares: bool = False


RuleFired = RuleFiredJson
"""One rule that fired on one draft (kept in the report's ``answer.rules``): ``rule``, ``phase``,
``round`` (``answer`` for the first draft, ``repair``), ``changed`` (the rule rewrote the answer
text), ``before``, ``after`` and ``note`` (a check rule's problem, a rewrite's reason)."""


@dataclass
class LayerResult:
    """The outcome of the layer on one draft: the (maybe rewritten) draft, the problems of the
    check phase and the rules that fired, in order."""

    draft: DraftAnswer
    problems: list[str]
    fired: list[RuleFired]


def run_rules(rules: Sequence[AnswerRule], context: RuleContext, draft: DraftAnswer,
              off: Collection[str] = (), round: str = "answer") -> LayerResult:
    """Run the declared rules on a draft (rewrite phase, then check phase; see the module docstring).

    Args:
        rules: the declared rules, in order.
        context: the question and evidence.
        draft: the draft answer with its verified claims.
        off: names of rules switched off (they do not run and are not recorded).
        round: ``answer`` or ``repair`` (recorded in the trace).

    Returns:
        The :class:`LayerResult`.
    """
    fired: list[RuleFired] = []
    active = [r for r in rules if r.name not in off and context.kind in r.kinds]
    for rule in (r for r in active if r.phase == "rewrite"):
        out = rule.apply(context, draft)
        if isinstance(out, Rewrite):
            fired.append({"rule": rule.name, "phase": "rewrite", "round": round, "changed": out.text != draft.text,
                          "before": draft.text, "after": out.text, "note": out.note})
            draft = replace(draft, text=out.text, claims=list(out.claims), decided=out.decided,
                            status="answered" if out.decided else draft.status)
            break
    problems: list[str] = []
    for rule in (r for r in active if r.phase == "check"):
        out = rule.apply(context, draft)
        if isinstance(out, str) and out:
            problems.append(out)
            fired.append({"rule": rule.name, "phase": "check", "round": round, "changed": False,
                          "before": draft.text, "after": draft.text, "note": out})
    return LayerResult(draft=draft, problems=problems, fired=fired)


def rules_off(names: Collection[str] | None, known: Collection[str],
              env: Mapping[str, str] | None = None) -> frozenset[str]:
    """The rule names switched off: ``names`` when given, else ``$DITTO_RULES_OFF`` (comma-separated).

    Args:
        names: rule names, or None to read the environment.
        known: every declared rule name.
        env: the environment (default ``os.environ``).

    Returns:
        The names, stripped, empty entries dropped.

    Raises:
        InvalidRequest: a name that is not a declared rule (the message lists the known names).
    """
    if names is None:
        raw = (env if env is not None else os.environ).get(ENV_RULES_OFF, "")
        names = [part for part in raw.split(",")]
    chosen = frozenset(n.strip() for n in names if n.strip())
    unknown = sorted(chosen - set(known))
    if unknown:
        raise InvalidRequest(f"unknown answer rule(s) {', '.join(unknown)}; the rules are: {', '.join(known)}")
    return chosen


__all__ = ["ENV_RULES_OFF", "AnswerRule", "DraftAnswer", "LayerResult", "Phase", "QuestionKind", "Rewrite",
           "RuleContext", "RuleFired", "RuleOutput", "rules_off", "run_rules"]
