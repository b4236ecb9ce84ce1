"""One draft of the report stage: the ``answer`` (or ``repair``) call, its quote verification and
its grounding review (``ground`` / ``regrade``), in one graph.

The draft's chunk labels are resolved and its quotes picked by code
(:func:`~ditto_nb.patterns.web_qa.evaluate.complete_draft`); the verification tool and the review
run after the draft call, and :func:`~ditto_nb.patterns.web_qa.evaluate.evaluate_draft` reads
their results into an :class:`~ditto_nb.patterns.web_qa.evaluate.Evaluation`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ditto_nb.patterns.common import run_step
from ditto_nb.patterns.common.records import ChunkRecord, ToolCall
from ditto_nb.patterns.web_qa import prompts, schemas
from ditto_nb.patterns.web_qa.evaluate import Evaluation, complete_draft, draft_citations, evaluate_draft
from ditto_nb.patterns.web_qa.stage_models import ReportConflict, SelectedJson, ShownConflict
from ditto_nb.patterns.web_qa.stages import RunState, Step
from ditto_nb.runtime.capabilities import INTERACTION_ACT_TOOL
from ditto_nb.runtime.graph import NodeOutputs, graph


def verify_and_ground(run: RunState, g: Any, purpose: str, answer_get: Any, answer_done: tuple[str, ...],
                       labels: Mapping[str, str], chunks: list[ChunkRecord], question: str) -> Any:
    """Add the quote-verification tool node and the grounding call that follow a draft."""
    verify_id = f"verify:{purpose}"

    by_id = {str(c["chunk_id"]): c for c in chunks}

    def verify_input(outputs: NodeOutputs) -> ToolCall:
        cites = draft_citations(schemas.AnswerOutput.model_validate(answer_get(outputs)), labels, by_id)
        return {"tool": "verify_quotes", "args": {"citations": cites, "chunks": chunks}}

    g.node(verify_id, INTERACTION_ACT_TOOL, verify_input, after=answer_done)
    ground_purpose = "ground" if purpose == "answer" else "regrade"
    deps = answer_done

    def ground_messages(outputs: NodeOutputs) -> list[dict[str, str]]:
        draft = schemas.AnswerOutput.model_validate(answer_get(outputs))
        return prompts.ground_messages(ground_purpose, question, draft_citations(draft, labels, by_id),
                                       draft.answer if draft.status == "answered" else "", chunks)

    ground_get = run.add_model_call(g, ground_purpose, ground_messages, schemas.GroundOutput, after=deps)
    return verify_id, ground_get


def draft_round(run: RunState, purpose: str, question: str, compared: list[str], chunks: list[ChunkRecord],
                 labels: Mapping[str, str],
                 selected: SelectedJson, conflicts: list[ReportConflict], failed: list[schemas.ClaimItem],
                 problems: list[str], kept: list[schemas.ClaimItem]) -> Step[tuple[schemas.AnswerOutput, Evaluation]]:
    """One draft (``answer``, or ``repair`` of the ``failed`` claims keeping ``kept``) with its quote
    verification and grounding review; returns the completed draft and its :class:`Evaluation`."""
    req = run.request
    shown_conflicts: list[ShownConflict] = [
        {"topic": c["topic"], "sides": [{"quote": s["quote"]} for s in c["sides"]]} for c in conflicts
    ]
    if purpose == "answer":
        messages = prompts.answer_messages(question, chunks, selected["missing"], req.cross_check, shown_conflicts,
                                           compared)
    else:
        messages = prompts.repair_messages(question, chunks, failed, problems, req.cross_check, kept, compared)
    schema: type[schemas.AnswerOutput] | type[schemas.CompareOutput] = (
        schemas.AnswerOutput if conflicts else schemas.CompareOutput if len(compared) == 2 else schemas.PlainAnswerOutput)
    g = graph("report" if purpose == "answer" else "repair")
    answer_get = run.add_model_call(g, purpose, messages, schema)
    answer_done = run.model_node(purpose)
    verify_id, ground_get = verify_and_ground(run, g, purpose, answer_get, answer_done, labels, chunks, question)
    outputs = yield from run_step(g)
    draft = complete_draft(schemas.AnswerOutput.model_validate(answer_get(outputs)), labels,
                           {str(c["chunk_id"]): c for c in chunks})
    cites = draft_citations(draft, labels)
    review = schemas.GroundOutput.model_validate(ground_get(outputs))
    result = evaluate_draft(draft, cites, outputs[verify_id], review.verdicts, conflicts=conflicts,
                            cross_check=req.cross_check)
    result.fits = review.fits
    return draft, result


__all__ = ["draft_round", "verify_and_ground"]
