"""Step ``bridge``: a question asked again about the in-between entity its draft answered with.

A bridge question names A and asks for a fact about B, which A's page names ("What government
position was held by the woman who portrayed Corliss Archer in Kiss and Tell?": B is Shirley
Temple). The 1.5B model often answers with B itself, with B's own page read: on the check half's
75 bridge questions (real wiki, README "Measured"), 11 of the 23 answered or declined wrongly with
both pages read had a blocked draft that named a page read ("Sela Ward" for the character she
played, "Sullivan County" for its county seat, "Algeria" for the team it lost to). The repair saw
the same six chunks and the rules' problem and answered B again.

So when a single (non-comparison) question's draft was blocked by the answer rules and its answer
is the title of a page read (:func:`bridge_page`), one call (``Task: bridge``) sees only that
page's best chunks and the chunks that led to it, told that the question describes B and asks a
fact about it, not B; its claims are verified and reviewed as any draft's (``regrade``), and the
declared answer rules run on it. An answer that is B again is declined. The step replaces the
repair for these drafts (the same two calls: bridge + regrade) and is switchable by name like a
rule (:data:`~ditto_nb.patterns.web_qa.rule_set.BRIDGE_STEP`). Nothing here knows the question's
wording.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import cast

from ditto_nb.patterns.common.records import ChunkRecord, PageRecord, WithheldClaim
from ditto_nb.patterns.common.retrieval import names_entity, title_key
from ditto_nb.patterns.web_qa import prompts, schemas
from ditto_nb.patterns.web_qa.candidates import rank_candidates
from ditto_nb.patterns.web_qa.draft_round import draft_round
from ditto_nb.patterns.web_qa.evaluate import Evaluation, merge_claims
from ditto_nb.patterns.web_qa.rule_set import BRIDGE_STEP, RULES
from ditto_nb.patterns.web_qa.rules import DraftAnswer, LayerResult, RuleContext, run_rules
from ditto_nb.patterns.web_qa.stage_models import ClaimJson, RuleFiredJson, SelectedJson
from ditto_nb.patterns.web_qa.stages import RunState, Step

WRONG_ENTITY = frozenset({"described-bridge", "tied-years", "excluded-entity", "repeats-question"})
"""The check rules whose problem says the answer is the wrong entity (the one the question
describes, ties its years to, excludes or names), not that its claims fail to state it: only these
send a draft to the bridge step; a right name whose claim failed (``answer-quoted``) goes to the
repair, which mends claims."""
BRIDGE_CHUNKS = 3
"""Most chunks of the in-between entity's own page shown to the bridge call."""
_QUALIFIER = re.compile(r"\s*\([^)]*\)\s*$")
LINK_CHUNKS = 2
"""Most chunks of other pages that name the entity (the first step's evidence) shown beside them."""


def bridge_page(context: RuleContext, layer: LayerResult, pages: Sequence[PageRecord],
                rules_off: frozenset[str]) -> PageRecord | None:
    """The page read whose title the blocked draft answered with, or None (pure).

    Args:
        context: the question's rule context (a comparison never bridges).
        layer: the rule layer's result on the answer round's draft.
        pages: every page read (``page_read`` outputs, both hops).
        rules_off: names switched off (:data:`BRIDGE_STEP` among them: never).

    Returns:
        The first page whose title (:func:`~ditto_nb.patterns.common.retrieval.title_key`:
        qualifier dropped, case folded) equals the draft's answer, when the draft answered and a
        :data:`WRONG_ENTITY` check rule blocked it; else None.
    """
    if context.kind != "single" or BRIDGE_STEP in rules_off:
        return None
    blocked = {f["rule"] for f in layer.fired if f["phase"] == "check"}
    if layer.draft.status != "answered" or not layer.problems or not blocked & WRONG_ENTITY:
        return None
    key = title_key(layer.draft.text)
    if not key:
        return None
    return next((p for p in pages if title_key(str(p.get("title") or "")) == key), None)


def bridge_chunks(question: str, bridge: PageRecord, evidence: Sequence[ChunkRecord]) -> list[ChunkRecord]:
    """The chunks the bridge call sees (pure): the entity's page's best chunks, then the chunks of
    other pages that name it.

    Args:
        question: the question as asked (chunks are ranked against it and the entity's name).
        bridge: the in-between entity's page.
        evidence: the chunks shown to the answer call.

    Returns:
        At most :data:`BRIDGE_CHUNKS` chunks of ``bridge`` (BM25 order), then at most
        :data:`LINK_CHUNKS` of ``evidence`` from other pages whose text names the entity.
    """
    name = str(bridge.get("title") or "")
    own, _ = rank_candidates(question, [name], [bridge], limit=BRIDGE_CHUNKS)
    url = str(bridge.get("url") or "")
    links = [c for c in evidence if str(c.get("url") or "") != url and names_entity(str(c["text"]), name)]
    return [*own, *links[:LINK_CHUNKS]]


def bridge_round(run: RunState, context: RuleContext, bridge: PageRecord, selected: SelectedJson,
                 quoted: Sequence[str] = ()) -> Step[tuple[schemas.AnswerOutput, Evaluation, str]]:
    """The bridge call on its chunks, with quote verification and the ``regrade`` review.

    Args:
        run: the run's state (the calls go through its ledger and budget).
        context: the question's rule context (``chunks``: the answer call's evidence).
        bridge: the page :func:`bridge_page` found.
        selected: the selection (its ``missing`` facets are not shown to this call).
        quoted: the first draft's quotes from the entity's page: their sentences are not shown
            (they led to the entity; :func:`~ditto_nb.patterns.web_qa.prompts.without_sentences`).

    Returns:
        ``(draft, evaluation, entity)``: the completed draft, its evaluation and the entity's name
        (the page title with its qualifier dropped).

    Raises:
        BudgetExceeded: the calls would exceed the run's model calls.
    """
    chunks = bridge_chunks(context.question, bridge, cast(Sequence[ChunkRecord], context.chunks))
    labels = {prompts.label(i): c["chunk_id"] for i, c in enumerate(chunks)}
    entity = _QUALIFIER.sub("", str(bridge.get("title") or "")).strip()
    draft, result = yield from draft_round(run, "bridge", context.question, [], chunks, labels, selected, [],
                                            [], [], [], bridge=entity, hidden=quoted)
    return draft, result, entity


@dataclass
class BridgeOutcome:
    """What the bridge step leaves: the draft (answer and status after the rules), its claims (the
    answer round's verified claims and the bridge call's), the rules' problems (any: the task
    declines), the claims that failed (withheld with their reasons) and the trace entries."""

    draft: schemas.AnswerOutput
    claims: list[ClaimJson]
    problems: list[str]
    withheld: list[WithheldClaim]
    fired: list[RuleFiredJson]


def bridge_answer(run: RunState, context: RuleContext, layer: LayerResult, bridge: PageRecord,
                  selected: SelectedJson) -> Step[BridgeOutcome]:
    """The bridge step on one blocked draft (see the module docstring).

    Args:
        run: the run's state.
        context: the question's rule context.
        layer: the rule layer's result on the answer round's draft (its verified claims are kept).
        bridge: the page :func:`bridge_page` found.
        selected: the selection.

    Returns:
        A :class:`BridgeOutcome`; an answer that names the entity again is a problem.

    Raises:
        BudgetExceeded: the calls would exceed the run's model calls.
    """
    before = layer.draft.text
    quoted = [c["quote"] for claim in layer.draft.claims for c in claim.get("citations") or []
              if c.get("sha256") == bridge.get("sha256")]
    draft, result, entity = yield from bridge_round(run, context, bridge, selected, quoted)
    claims = merge_claims([*layer.draft.claims, *result.valid_claims])
    after = run_rules(RULES, replace(context, fits=result.fits, fits_reason=result.fits_reason, repaired=True),
                      DraftAnswer(text=draft.answer, status=draft.status, claims=claims),
                      off=run.rules_off, round="bridge")
    problems = list(after.problems)
    if after.draft.status == "answered" and title_key(after.draft.text) == title_key(entity):
        problems.append(f"answer: it is {entity} again, the in-between entity the question describes")
    fired: RuleFiredJson = {
        "rule": BRIDGE_STEP, "phase": "rewrite", "round": "bridge", "changed": after.draft.text != before,
        "before": before, "after": after.draft.text,
        "note": f"the blocked answer is the title of a page read; the question asked again about {entity}, "
                f"from its page" + (f" → {draft.status}" if draft.status != "answered" else ""),
    }
    out = draft.model_copy(update={"answer": after.draft.text, "status": after.draft.status})
    return BridgeOutcome(out, after.draft.claims, problems, list(result.rejected), [fired, *after.fired])


__all__ = ["WRONG_ENTITY", "BridgeOutcome", "bridge_answer", "BRIDGE_CHUNKS", "BRIDGE_STEP", "LINK_CHUNKS", "bridge_chunks", "bridge_page", "bridge_round"]
