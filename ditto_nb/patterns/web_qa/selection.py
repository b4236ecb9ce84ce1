"""Stage ``selected`` of Web QA: the one select call that filters the candidate chunks, names the
second hop's lookup and the missing facets, and reports conflicts (verified by code); comparison
sides and conflict sides are kept within the answer's chunk budget."""

from __future__ import annotations

from ditto_nb.evidence import Chunk, verify_conflict
from ditto_nb.patterns.common import add_stage_commit, run_step
from ditto_nb.patterns.common.records import ChunkRecord, OmittedItem
from ditto_nb.patterns.web_qa import prompts, schemas
from ditto_nb.patterns.web_qa.candidates import compared_sides, rank_candidates
from ditto_nb.patterns.web_qa.stage_models import (
    ConflictQuote,
    PlanJson,
    ReadJson,
    SelectedConflict,
    SelectedJson,
    SelectedStage,
)
from ditto_nb.patterns.web_qa.stages import RunState, Step
from ditto_nb.runtime.graph import NodeOutputs, graph
from ditto_nb.text import normalize_text

MAX_ANSWER_CHUNKS = 5
"""Selected chunks shown to the answer and repair calls (best-ranked first)."""


def selected_stage(run: RunState, plan: PlanJson, read: ReadJson) -> Step[SelectedJson]:
    """Stage ``selected``: filter evidence, find missing facets and conflicts (one model call).

    The select (and answer) prompts show the question as asked, not the plan's restatement: a small
    model's restatement can drop a hop ("Which river runs through London?" for a question about
    Big Ben's city). Ranking uses both.
    """
    candidates: list[ChunkRecord]
    omitted: list[OmittedItem]
    candidates, omitted = ([], []) if plan["needs_clarification"] else rank_candidates(
        f'{run.request.question} {plan["normalized_question"]}', plan["queries"], read["pages"]
    )
    labels = {prompts.label(i): c["chunk_id"] for i, c in enumerate(candidates)}
    g = graph("selected")
    get = None
    done: tuple[str, ...] = ()
    if candidates:
        get = run.add_model_call(g, "select", prompts.select_messages(run.request.question, candidates),
                                 schemas.SelectOutput)
        done = run.model_node("select")

    def value(outputs: NodeOutputs) -> SelectedJson:
        if get is None:
            return {"candidates": [], "labels": {}, "selected": [], "lookup": [], "missing": [], "conflicts": [], "fallback": False,
                    "omitted": omitted}

        out = schemas.SelectOutput.model_validate(get(outputs))
        index = {c["chunk_id"]: Chunk.model_validate(c) for c in candidates}
        chosen: list[str] = []
        for ref in out.selected:
            chunk_id = prompts.resolve_label(str(ref), labels)
            if chunk_id in index and chunk_id not in chosen:
                chosen.append(chunk_id)
        fallback = not chosen
        conflicts: list[SelectedConflict] = []
        for item in out.conflicts:
            conflict = verify_conflict(
                item.topic,
                (prompts.resolve_label(item.chunk_a, labels), item.quote_a),
                (prompts.resolve_label(item.chunk_b, labels), item.quote_b),
                index,
            )
            if conflict is None:
                continue
            sides: list[ConflictQuote] = [
                {"chunk_id": s.chunk_id, "quote": s.quote} for s in conflict.sides
            ]
            conflicts.append({"topic": normalize_text(conflict.topic), "sides": list(sides)})
            for side in sides:
                if side["chunk_id"] not in chosen:
                    chosen.append(side["chunk_id"])
        if fallback:
            chosen = [c["chunk_id"] for c in candidates]
        sides_ids = compared_sides(run.request.question, candidates, chosen)
        chosen += sides_ids
        rank = {c["chunk_id"]: i for i, c in enumerate(candidates)}
        conflict_ids = {str(side["chunk_id"]) for conflict in conflicts for side in conflict["sides"]}
        # conflict sides and compared sides first (each must be shown), then by rank; the rest is
        # over the answer budget
        chosen.sort(key=lambda cid: (cid not in conflict_ids and cid not in sides_ids, rank[cid]))
        over = chosen[MAX_ANSWER_CHUNKS:]
        chosen = chosen[:MAX_ANSWER_CHUNKS]
        skipped: list[OmittedItem] = [
            {"chunk_id": cid, "reason": "answer-budget" if cid in over else "not-selected", "score": ""}
            for cid in rank if cid not in chosen
        ]
        return {
            "candidates": candidates,
            "labels": labels,
            "selected": chosen,
            "lookup": [normalize_text(n) for n in out.lookup if normalize_text(n)][:3],
            "missing": [normalize_text(m) for m in out.missing if normalize_text(m)],
            "conflicts": conflicts,
            "fallback": fallback,
            "omitted": omitted + skipped,
        }

    commit = add_stage_commit(g, run.task, stage="selected", output=SelectedStage, value=value, after=done,
                              context=lambda v: {"selected": v["selected"]})
    yield from run_step(g)
    committed: SelectedJson = commit.value
    return committed


__all__ = ["MAX_ANSWER_CHUNKS", "selected_stage"]
