"""The declared answer rules of Web QA, in their one order (see :mod:`ditto_nb.patterns.web_qa.rules`).

Rewrite phase (the first rule that rewrites wins):

- ``compare-order``, ``compare-nationality``, ``compare-kind``: code decides an ordering, a
  nationality or a ``both <kind>`` comparison from each side's verified claim (a side without one
  gets its page's deciding sentence, :mod:`.sides`); :mod:`.comparison`, :mod:`.kinds`.
- ``side-by-side``: any other comparison with one verified claim per side publishes the side,
  yes/no or shared value the answer gives (:mod:`.side_by_side`).
- ``narrow-place``, ``counted-number``, ``renamed-answer``: a single question's answer made more
  precise from its own quotes (:mod:`.narrow`).

Check phase (each problem goes to the one repair; one left after it declines the task):

- ``answer-quoted``: the answer's words are in its quotes and its claims state it.
- ``sides-quoted``: each compared side has a verified claim (the problem names the missing side).
- ``asked-kind``: a year, number or person when the question asks for one.
- ``described-bridge``: not the in-between entity the question describes.
- ``tied-years``: not a name the quotes (or a shown chunk) tie the question's years away from.
- ``excluded-entity``: not the entity a ``besides …`` question excludes.
- ``repeats-question``: more than the question's own words.
- ``review-fits``: the grounding review says the answer gives what is asked.
- ``sentence-answer``: after the repair, a few words, not a sentence.

The check functions live in :mod:`.answer_checks` and :mod:`.tied_years`; each module's docstring
says which measured answer it came from.
"""

from __future__ import annotations

import re
from typing import cast
from collections.abc import Callable, Collection, Sequence

from ditto_nb.evidence.support import answer_in_quotes
from ditto_nb.patterns.web_qa.answer_checks import (
    _NUMBER_WORDS,
    carried,
    described_bridge,
    excluded_entity,
    expected_kind,
    is_sentence,
    repeats_question,
)
from ditto_nb.patterns.common.records import ChunkRecord, ClaimJson
from ditto_nb.patterns.common.retrieval import names_entity
from ditto_nb.patterns.common.compare.comparison import decide_order
from ditto_nb.patterns.common.compare.nationality import decide_nationality
from ditto_nb.patterns.common.compare.kinds import decide_kind
from ditto_nb.patterns.web_qa.narrow import counted_answer, narrower_answer, renamed_answer
from ditto_nb.patterns.web_qa.rules import AnswerRule, DraftAnswer, QuestionKind, Rewrite, RuleContext, RuleOutput
from ditto_nb.patterns.common.compare.side_by_side import answer_form, compared_answer, is_yes_no, missing_sides, named_sides
from ditto_nb.patterns.common.compare.sides import side_claims
from ditto_nb.patterns.web_qa.stage_models import RuleFiredJson
from ditto_nb.patterns.web_qa.tied_years import tied_elsewhere, tied_in
from ditto_nb.text import normalize_text

_ALL: frozenset[QuestionKind] = frozenset({"single", "comparison"})
_SINGLE: frozenset[QuestionKind] = frozenset({"single"})
_COMPARISON: frozenset[QuestionKind] = frozenset({"comparison"})


Decide = Callable[[str, Sequence[str], Sequence[ClaimJson]], "str | None"]
Narrow = Callable[[str, str, Sequence[ClaimJson]], "tuple[str, list[ClaimJson]] | None"]
Apply = Callable[[RuleContext, DraftAnswer], RuleOutput]


def _decider(decide: Decide) -> Apply:
    def apply(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
        every = [*draft.claims, *side_claims(ctx.question, ctx.compared, draft.claims, list(ctx.chunks))]
        winner = decide(ctx.question, list(ctx.compared), every)
        if winner is None:
            return None
        text = str(winner).capitalize() if winner in ("yes", "no") else str(winner)
        added = len(every) - len(draft.claims)
        return Rewrite(text, every, decided=True, note=f"decided by code from each side's claim"
                       + (f" ({added} side claim(s) added by code)" if added else ""))
    return apply


def _side_by_side(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    if draft.status != "answered":
        return None
    made = compared_answer(ctx.question, ctx.compared, draft.text, draft.claims)
    return None if made is None else Rewrite(made[0], draft.claims, decided=True, note=made[1])


def _narrower(find: Narrow) -> Apply:
    def apply(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
        out = find(ctx.question, draft.text, draft.claims) if draft.status == "answered" else None
        return None if out is None else Rewrite(out[0], out[1], note="from the answer's own quote")
    return apply


def _renamed(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    out = renamed_answer(ctx.question, draft.text, draft.claims, list(ctx.chunks)) if draft.status == "answered" else None
    return None if out is None else Rewrite(out[0], out[1], note="the name a shown chunk ties the question's years to")


def _answered(draft: DraftAnswer) -> bool:
    return draft.status == "answered"


def _quotes(claims: Sequence[ClaimJson]) -> list[tuple[str, str]]:
    return [(str(c.get("quote", "")), str(c.get("title", ""))) for claim in claims for c in claim.get("citations") or []]


def _answer_quoted(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    text = normalize_text(draft.text)
    if not _answered(draft) or is_yes_no(text) or draft.decided:
        return None
    check = answer_in_quotes(text, [q for q, _ in _quotes(draft.claims)])
    if not check.ok:
        return f"answer: {'; '.join(check.reasons)}; answer with words copied from a quote"
    if not carried(text, draft.claims):
        return "answer: no claim states it; add a claim that states the answer, from the chunk that says it"
    return None


def _sides_quoted(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    if not _answered(draft):
        return None
    missing = missing_sides(ctx.compared, draft.claims)
    if len(ctx.compared) > 2:
        missing = [e for e in ctx.compared if not any(names_entity(f"{q} {t}", e) for q, t in _quotes(draft.claims))]
    if not missing:
        return None
    return (f"answer: no verified claim states the compared fact about {' or '.join(missing)}; add one claim "
            f"per side, from that side's own chunk")


def _one_side(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    if not _answered(draft) or len(ctx.compared) != 2 or answer_form(ctx.question) != "side":
        return None
    named = named_sides(normalize_text(draft.text), ctx.compared)
    if len(named) == 1:
        return None
    return (f"answer: the question asks which of {ctx.compared[0]} or {ctx.compared[1]}; the answer names "
            f"{'both' if named else 'neither'}")


def _asked_kind(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    if not _answered(draft):
        return None
    kind, text = expected_kind(ctx.question), normalize_text(draft.text)
    if kind == "year" and not re.search(r"\b\d{1,4}\b", text):  # "AD 80" is a year too
        return "answer: the question asks for a year; the answer gives none"
    if kind == "number" and not (re.search(r"\d", text) or _NUMBER_WORDS.search(text)):
        return "answer: the question asks for a number; the answer gives none"
    if kind == "person" and not re.search(r"\b[A-Z][\w'-]+", draft.text):
        return "answer: the question asks who; the answer names no one"
    return None


def _described_bridge(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    if not _answered(draft) or draft.decided:
        return None
    quotes = [str(c.get("quote", "")) for claim in draft.claims for c in claim.get("citations") or []]
    pages = [(str(c.get("title", "")), str(c.get("text", ""))) for c in ctx.chunks]
    bridge = described_bridge(ctx.question, draft.text, ctx.bridges, [*quotes, *ctx.evidence], pages)
    return None if not bridge else (f"answer: {bridge} is the in-between entity the question describes; the "
                                    f"question asks for a fact about {bridge} — answer with that fact, from a "
                                    f"chunk that states it")


def _tied_years(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    if not _answered(draft):
        return None
    text = normalize_text(draft.text)
    elsewhere = tied_elsewhere(ctx.question, text, draft.claims)
    if elsewhere:
        return (f"answer: its quote ties the question's years to {elsewhere}, not to the answer; answer with the "
                f"name the quote gives for those years")
    if not draft.decided and (elsewhere := tied_in(ctx.question, text, ctx.evidence)):
        return (f"answer: a chunk ties the question's years to {elsewhere}, not to the answer; answer with the "
                f"name the chunk gives for those years, from that chunk")
    return None


def _excluded(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    excluded = excluded_entity(ctx.question, draft.text, draft.claims) if _answered(draft) else None
    return None if not excluded else (f"answer: it is {excluded}, which the question excludes; answer with the "
                                      f"other one it asks for, from a chunk that states it")


def _repeats(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    text = normalize_text(draft.text)
    if not _answered(draft) or is_yes_no(text) or not repeats_question(ctx.question, text):
        return None
    return "answer: it only repeats words of the question; answer with the asked fact, copied from a quote"


def _review_fits(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    if not _answered(draft) or ctx.fits or draft.decided:
        return None
    return f"answer: the review says it does not answer the question ({ctx.fits_reason or 'no reason'})"


def _sentence(ctx: RuleContext, draft: DraftAnswer) -> RuleOutput:
    if not ctx.repaired or not _answered(draft) or draft.decided or not is_sentence(draft.text, draft.claims):
        return None
    return "answer: it is a sentence, not the few words that answer the question"


RULES: tuple[AnswerRule, ...] = (
    AnswerRule("compare-order", "rewrite", _COMPARISON, _decider(decide_order),
               "the side an ordering comparison's years or numbers decide for"),
    AnswerRule("compare-nationality", "rewrite", _COMPARISON, _decider(decide_nationality),
               "yes/no of a nationality comparison, from each side's nationality word"),
    AnswerRule("compare-kind", "rewrite", _COMPARISON, _decider(decide_kind),
               "yes/no of a 'both <kind>' comparison, from each side's defining clause"),
    AnswerRule("side-by-side", "rewrite", _COMPARISON, _side_by_side,
               "a comparison with one verified claim per side publishes the side, yes/no or shared value"),
    AnswerRule("narrow-place", "rewrite", _SINGLE, _narrower(narrower_answer),
               "an answer repeating the question becomes the 'Place, Region' its quote writes"),
    AnswerRule("counted-number", "rewrite", _SINGLE, _narrower(counted_answer),
               "the number of the quote sentence that the question's words count"),
    AnswerRule("renamed-answer", "rewrite", _SINGLE, _renamed,
               "the former name a shown chunk ties the question's years to"),
    AnswerRule("answer-quoted", "check", _ALL, _answer_quoted, "the answer's words are in its quotes and claims",
               mendable=True),
    AnswerRule("sides-quoted", "check", _COMPARISON, _sides_quoted, "each compared side has a verified claim",
               mendable=True, compares=True),
    AnswerRule("one-side", "check", _COMPARISON, _one_side, "a choice's answer names one of its two sides",
               compares=True),
    AnswerRule("asked-kind", "check", _ALL, _asked_kind, "a year, number or person when the question asks one"),
    AnswerRule("described-bridge", "check", _SINGLE, _described_bridge, "not the in-between entity described"),
    AnswerRule("tied-years", "check", _ALL, _tied_years, "not a name the quotes tie the question's years away from"),
    AnswerRule("excluded-entity", "check", _ALL, _excluded, "not the entity a 'besides …' question excludes"),
    AnswerRule("repeats-question", "check", _SINGLE, _repeats, "more than the question's own words"),
    AnswerRule("review-fits", "check", _ALL, _review_fits, "the grounding review says the answer fits"),
    AnswerRule("sentence-answer", "check", _ALL, _sentence, "after the repair, a few words, not a sentence"),
)
"""Every answer rule, in the layer's one order."""

KEEP_FIRST_ANSWER = "keep-first-answer"
"""A step of the repair, switchable like a rule: when the repaired answer fails the rules and the
first draft's answer passes them on the repaired claims, the first answer stands (the 1.5B
repair often rewrote a right short answer as a sentence). Recorded in the trace under this name."""

COMPARE_SIDES = "compare-sides"
"""The compare step (:mod:`ditto_nb.patterns.web_qa.compare_step`), switchable like a rule: a
comparison declined or left with one side unquoted is answered from each side's quotes (off: the
repair runs instead). Recorded in the trace under this name."""

REPAIR_MENDABLE_ONLY = "repair-mendable-only"
"""A step of the answer round, switchable like a rule: a draft whose every rule problem says the
answer itself is not the asked fact (no problem from a :attr:`~ditto_nb.patterns.web_qa.rules.AnswerRule.mendable`
check) is declined at once, without the repair call. Measured on every stored Web QA row of the
2,468-page wiki (1.5B model, both halves, 2026-12-07): of 23 such repairs (tuning 9, check 14),
none made the answer right, one made it wrong (tuning), and each cost ~20 s (the repair and its
regrade). Off: the repair runs as before. Recorded in the trace under this name."""

RULE_NAMES: tuple[str, ...] = (*(rule.name for rule in RULES), KEEP_FIRST_ANSWER, COMPARE_SIDES, REPAIR_MENDABLE_ONLY)
"""The names ``rules_off`` accepts: the declared rules in order, then :data:`KEEP_FIRST_ANSWER`,
:data:`COMPARE_SIDES` and :data:`REPAIR_MENDABLE_ONLY`."""


_MENDABLE: frozenset[str] = frozenset(rule.name for rule in RULES if rule.mendable)
_COMPARES: frozenset[str] = frozenset(rule.name for rule in RULES if rule.compares)


def mendable(fired: Sequence[RuleFiredJson]) -> bool:
    """Whether a round's rule trace holds a problem the repair can mend: no check problem at all,
    or one from a :attr:`~ditto_nb.patterns.web_qa.rules.AnswerRule.mendable` rule."""
    checks = [f["rule"] for f in fired if f["phase"] == "check"]
    return not checks or any(name in _MENDABLE for name in checks)


def compares(fired: Sequence[RuleFiredJson]) -> bool:
    """Whether a round's rule trace holds check problems and every one of them is from a
    :attr:`~ditto_nb.patterns.web_qa.rules.AnswerRule.compares` rule (the draft is not yet a
    comparison's answer; the compare step decides it)."""
    checks = {f["rule"] for f in fired if f["phase"] == "check"}
    return bool(checks) and checks <= _COMPARES


def answer_problems(question: str, answer: str, status: str, claims: Sequence[ClaimJson],
                    compared: Sequence[str] = (), fits: bool = True, fits_reason: str = "",
                    bridges: Sequence[str] = (), decided: bool = False, evidence: Sequence[str] = (),
                    off: Collection[str] = ()) -> list[str]:
    """The check phase alone on one draft: its problems (empty when it answers from its quotes).

    Args:
        question: the question as asked.
        answer: the draft's answer text.
        status: the draft's status hint (only ``answered`` is checked).
        claims: the verified claims (report JSON).
        compared: the compared entities (``[]`` for a single question).
        fits, fits_reason: the grounding review's judgement and reason.
        bridges: the names the second hop looked up.
        decided: code chose the answer (the answer-words checks are skipped).
        evidence: the texts of the chunks shown to the answer call.
        off: rule names switched off.

    Returns:
        Human-readable problems, each starting with ``answer:``.
    """
    chunks = cast(tuple[ChunkRecord, ...], tuple({"text": text} for text in evidence))
    context = RuleContext(question=question, compared=tuple(compared), chunks=chunks,
                          bridges=tuple(bridges), fits=fits, fits_reason=fits_reason)
    draft = DraftAnswer(text=answer, status=status, claims=list(claims), decided=decided)
    problems: list[str] = []
    for rule in RULES:
        if rule.phase == "check" and rule.name not in off and context.kind in rule.kinds:
            out = rule.apply(context, draft)
            if isinstance(out, str) and out:
                problems.append(out)
    return problems


__all__ = ["COMPARE_SIDES", "KEEP_FIRST_ANSWER", "REPAIR_MENDABLE_ONLY", "RULES", "RULE_NAMES", "answer_problems", "compares",
           "mendable"]
