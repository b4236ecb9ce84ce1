"""The Web QA stage graphs (``plan``, ``searched``, ``read``, ``selected``) as plan sub-generators.

Each function yields exactly one stage graph (via :func:`run_step`) and returns the committed stage
output. Completed dispatches in the ledger are reused, never re-dispatched. No I/O happens here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ditto_nb.errors import BudgetExceeded, ReadFailed, SearchFailed
from ditto_nb.evidence import Chunk, bm25_rank, chunks_from_page, dedupe_mirrors, verify_conflict
from ditto_nb.patterns.common import Ledger, TaskScope, add_ledgered_call, add_stage_commit, run_step
from ditto_nb.patterns.common.partial import check_partial
from ditto_nb.patterns.common.retrieval import build_queries, comparison_entities, question_entities, rank_hits
from ditto_nb.patterns.web_qa import prompts
from ditto_nb.patterns.web_qa.request import WebQaRequest
from ditto_nb.patterns.web_qa.stage_models import PlanStage, ReadStage, SearchedStage, SelectedStage
from ditto_nb.runtime.capabilities import INFER_REASONING_SAMPLE, INTERACTION_ACT_TOOL
from ditto_nb.runtime.graph import Graph, graph
from ditto_nb.text import normalize_text
from ditto_nb.web.policy import origin_of

MAX_CANDIDATES = 8
"""Chunks shown to the selection call (BM25-ranked against the question and queries)."""
MAX_ANSWER_CHUNKS = 5
"""Selected chunks shown to the answer and repair calls (best-ranked first)."""

Step = Generator[Any, Any, Any]


@dataclass
class RunState:
    """What one run of the plan knows (pure data).

    Attributes:
        request: the request.
        task: namespace/scope.
        model: ``{"provider", "model"}``.
        ledger: the ledger and counters read at resume (failed searches/reads are retried).
        max_model_calls: cap on model dispatches in this run (6 per SPEC §3).
        results_per_query: search hits asked per query.
        model_calls: model dispatches made by this run.
    """

    request: WebQaRequest
    task: TaskScope
    model: Mapping[str, str]
    ledger: Ledger
    max_model_calls: int = 6
    results_per_query: int = 5
    model_calls: int = 0
    stages: dict[str, Any] = field(default_factory=dict)

    def add_model_call(
        self,
        g: Graph,
        purpose: str,
        messages: list[dict[str, str]] | Callable[[dict[str, Any]], list[dict[str, str]]],
        schema: type[Any],
        after: tuple[str, ...] = (),
    ) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
        """Add (or reuse) one model call; return a getter of its validated output.

        ``messages`` may be a callable of the outputs of ``after`` (e.g. a draft to review).

        Raises:
            BudgetExceeded: this run would exceed ``max_model_calls``.
        """
        key = f"model:{purpose}"
        reused = self.ledger.reuse(key, "model", purpose)
        if reused is not None:
            stored = dict(reused["output"])
            return lambda _outputs: stored
        if self.model_calls + 1 > self.max_model_calls:
            raise BudgetExceeded(
                f"model call {purpose!r} would be call {self.model_calls + 1} of at most {self.max_model_calls} in one run"
            )
        self.model_calls += 1
        base = {
            "provider": self.model["provider"],
            "model": self.model["model"],
            "max_tokens": prompts.MAX_TOKENS.get(purpose, 400),
            "output_schema": schema,
            "purpose": purpose,
        }
        payload: Any
        if callable(messages):
            build = messages

            def payload(deps: dict[str, Any]) -> dict[str, Any]:
                return {**base, "messages": build(deps)}
        else:
            payload = {**base, "messages": messages}
        add_ledgered_call(
            g, self.task, key=key, kind="model", name=purpose, capability=INFER_REASONING_SAMPLE, input=payload, after=after
        )
        return lambda outputs: dict(outputs[key]["output"])

    def model_node(self, purpose: str) -> tuple[str, ...]:
        """Node ids (dispatch, done) of a model call added to the current graph; () when reused."""
        if self.ledger.reuse(f"model:{purpose}", "model", purpose) is not None:
            return ()
        return (f"model:{purpose}", f"model:{purpose}:done")


def _const(value: dict[str, Any]) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    return lambda _outputs: value


def _output(key: str) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    return lambda outputs: dict(outputs[key])


def _clean_queries(values: list[str], fallback: str, limit: int) -> list[str]:
    out: list[str] = []
    for value in values:
        text = normalize_text(str(value))[:200]
        if text and text.lower() not in {q.lower() for q in out}:
            out.append(text)
    return out[:limit] or [fallback[:200]]


def first_hop_queries(request: WebQaRequest) -> int:
    """Queries of the first hop: all of ``max_queries`` for a comparison (one per entity), else one
    fewer, kept for the second hop (the bridge entity named by the selection)."""
    if comparison_entities(request.question) or request.max_queries == 1:
        return request.max_queries
    return request.max_queries - 1


def first_hop_pages(request: WebQaRequest) -> int:
    """Pages of the first hop, reference URLs included: all of ``max_pages`` for a comparison,
    else about half of the pages left after the references are kept for the second hop (at
    least one page each)."""
    refs = len(set(request.reference_urls))
    searchable = request.max_pages - refs
    if comparison_entities(request.question) or searchable <= 1:
        return request.max_pages
    return refs + searchable - min(2, searchable // 2)


def plan_stage(run: RunState) -> Step:
    """Stage ``plan``: understand the question and produce up to ``max_queries`` queries."""
    req = run.request
    g = graph("plan")
    get = run.add_model_call(g, "plan", prompts.plan_messages(req.question, req.max_queries), prompts.PlanOutput)
    done = run.model_node("plan")

    def value(outputs: dict[str, Any]) -> dict[str, Any]:
        out = prompts.PlanOutput.model_validate(get(outputs))
        unclear = bool(out.needs_clarification)
        planned = [] if unclear else _clean_queries(out.queries, req.question, req.max_queries)
        every = [] if unclear else [
            {"text": q.text, "fallbacks": list(q.fallbacks), "entity": q.entity}
            for q in build_queries(req.question, planned, req.max_queries + 2)
        ]
        search = every[: first_hop_queries(req)]
        return {
            "normalized_question": normalize_text(out.normalized_question) or req.question,
            "queries": [q["text"] for q in search],
            "search": search,
            "deferred": every[len(search):],
            "needs_clarification": unclear,
            "clarification": normalize_text(out.clarification),
        }

    commit = add_stage_commit(g, run.task, stage="plan", output=PlanStage, value=value, after=done,
                              context=lambda v: {"queries": v["queries"]})
    yield from run_step(g)
    return commit.value


def searched_stage(run: RunState, plan: Mapping[str, Any], stage: str = "searched", prefix: str = "search") -> Step:
    """Stage ``searched`` (or the second hop's ``hop-searched``): run every query through the
    ``web_search`` tool, each with its relaxation ladder and entity title.

    Args:
        run: the run state.
        plan: ``{"queries": [text]}`` and optionally ``{"search": [{"text", "fallbacks", "entity"}]}``.
        stage: the stage name committed.
        prefix: ledger key prefix of the searches.

    Raises:
        SearchFailed: every search failed, or one failed and ``allow_partial`` is false.
    """
    g = graph(stage)
    getters: list[Callable[[Mapping[str, Any]], dict[str, Any]]] = []
    after: list[str] = []
    specs = list(plan.get("search") or [{"text": q, "fallbacks": [], "entity": ""} for q in plan["queries"]])
    for i, spec in enumerate(specs):
        query = spec["text"]
        key = f"{prefix}:{i}"
        reused = run.ledger.reuse(key, "search", query)
        if reused is not None:
            getters.append(_const(dict(reused)))
            continue
        args: dict[str, Any] = {"query": query, "limit": run.results_per_query}
        if spec.get("fallbacks"):
            args["fallbacks"] = list(spec["fallbacks"])
        if spec.get("entity"):
            args["title"] = spec["entity"]
        tool_input = {"tool": "web_search", "args": args}
        after += [key, add_ledgered_call(g, run.task, key=key, kind="search", name=query,
                                         capability=INTERACTION_ACT_TOOL, input=tool_input)]
        getters.append(_output(key))

    def value(outputs: dict[str, Any]) -> dict[str, Any]:
        results = [get(outputs) for get in getters]
        check_partial(results, run.request.allow_partial, SearchFailed, "searches",
                      lambda r: f"{r.get('query')!r}: {r.get('error') or r.get('failure')}")
        return {"results": results}

    dones = list(after)
    commit = add_stage_commit(g, run.task, stage=stage, output=SearchedStage, value=value, after=dones,
                              context=lambda v: {"hits": sum(len(r.get("hits") or []) for r in v["results"])})
    yield from run_step(g)
    return commit.value


def _url_key(url: str) -> str:
    return "read:" + hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]


def candidate_urls(request: WebQaRequest, searched: Mapping[str, Any], *, budget: int | None = None,
                   skip: frozenset[str] = frozenset(), names: tuple[str, ...] = ()) -> tuple[list[str], list[dict[str, str]]]:
    """URLs to read (references first, then hits ranked by relevance to the question) and omitted URLs.

    Hits are ordered by :func:`ditto_nb.patterns.common.retrieval.rank_hits` (each query's best
    hit first, then BM25 of title and snippet against the question and its entities).

    Args:
        request: the request (``reference_urls``, ``allowed_origins``, ``max_pages``).
        searched: the ``searched`` stage output.
        budget: pages to read (default ``max_pages``).
        skip: URLs already read (not read again, not counted).
        names: extra entity names (a second hop's bridge) for ranking.

    Returns:
        ``(to_read, omitted)``; omitted entries are ``{"url", "reason"}`` with reason
        ``page-budget`` or ``origin-not-allowed``.
    """
    ordered: list[str] = []
    omitted: list[dict[str, str]] = []
    seen: set[str] = set()

    def add(url: str) -> None:
        url = url.split("#", 1)[0]
        if url in seen:
            return
        seen.add(url)
        try:
            allowed = origin_of(url) in request.allowed_origins
        except Exception:
            allowed = False
        if not allowed:
            omitted.append({"url": url, "reason": "origin-not-allowed"})
        else:
            ordered.append(url)

    seen.update(skip)
    if not skip:
        for url in request.reference_urls:
            add(url)
    hit_lists = [list(r.get("hits") or []) for r in searched.get("results", [])]
    entities = [*question_entities(request.question), *names]
    for url in rank_hits(request.question, hit_lists, entities):
        add(url)
    limit = request.max_pages if budget is None else budget
    to_read = ordered[:limit]
    omitted += [{"url": url, "reason": "page-budget"} for url in ordered[limit:]]
    return to_read, omitted


def read_stage(run: RunState, searched: Mapping[str, Any], stage: str = "read",
               urls: tuple[list[str], list[dict[str, str]]] | None = None) -> Step:
    """Stage ``read`` (or the second hop's ``hop-read``): read every candidate page (snapshots
    stored by the ``page_read`` tool).

    Args:
        run: the run state.
        searched: the search stage output.
        stage: the stage name committed.
        urls: ``(to_read, omitted)`` (default: :func:`candidate_urls` within the first hop's pages).

    Raises:
        ReadFailed: every read failed, or one failed and ``allow_partial`` is false.
    """
    to_read, omitted = urls or candidate_urls(run.request, searched, budget=first_hop_pages(run.request))
    g = graph(stage)
    getters: list[Callable[[Mapping[str, Any]], dict[str, Any]]] = []
    dones: list[str] = []
    for url in to_read:
        key = _url_key(url)
        reused = run.ledger.reuse(key, "read", url)
        if reused is not None:
            getters.append(_const(dict(reused)))
            continue
        dones += [key, add_ledgered_call(g, run.task, key=key, kind="read", name=url, capability=INTERACTION_ACT_TOOL,
                                         input={"tool": "page_read", "args": {"url": url}})]
        getters.append(_output(key))
    search_failures = [
        {"stage": "searched", "source": r.get("query", ""), "failure": r.get("failure") or "error", "error": r.get("error") or ""}
        for r in searched.get("results", []) if not r.get("ok")
    ]

    def value(outputs: dict[str, Any]) -> dict[str, Any]:
        results = [get(outputs) for get in getters]
        failed = check_partial(results, run.request.allow_partial, ReadFailed, "page reads",
                               lambda r: f"{r.get('url')}: {r.get('failure')}")
        failures = search_failures + [
            {"stage": "read", "source": r.get("url", ""), "failure": r.get("failure") or "error", "error": r.get("error") or ""}
            for r in failed
        ]
        return {"pages": [r for r in results if r.get("ok")], "failures": failures, "omitted": omitted}

    commit = add_stage_commit(g, run.task, stage=stage, output=ReadStage, value=value, after=dones,
                              context=lambda v: {"pages": [p["final_url"] for p in v["pages"]]})
    yield from run_step(g)
    return commit.value


def rank_candidates(
    question: str, queries: list[str], pages: list[Mapping[str, Any]], limit: int = MAX_CANDIDATES
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """Rank all chunks of the read pages with BM25 against the question and queries.

    Mirrored paragraphs (same normalized text on several pages) are kept once, as they count once
    as evidence anyway (SPEC §3).

    Args:
        question: the normalized question.
        queries: the query plan.
        pages: successful ``page_read`` outputs.
        limit: the most chunks kept (the selection call's budget).

    Returns:
        ``(candidates, omitted)``: at most ``limit`` chunk dicts (``Chunk.model_dump()``), best
        first (ties keep page/paragraph order; chunks matching no query word only when nothing
        matches); omitted entries are ``{"chunk_id", "reason", "score"}`` with reason ``mirror``,
        ``no-match`` or ``rank-budget``.
    """
    every: list[Chunk] = []
    for page in pages:
        every.extend(chunks_from_page(page))
    unique = dedupe_mirrors(list({c.chunk_id: c for c in every}.values()))
    kept_ids = {c.chunk_id for c in unique}
    omitted: list[dict[str, str]] = [
        {"chunk_id": c.chunk_id, "reason": "mirror", "score": "0"} for c in every if c.chunk_id not in kept_ids
    ]
    ranked = bm25_rank(" ".join([question, *queries]), [c.text for c in unique])
    matching = [r for r in ranked if r.score > 0] or ranked
    chosen = matching[:limit]
    chosen_ids = {r.index for r in chosen}
    for r in ranked:
        if r.index not in chosen_ids:
            reason = "no-match" if r.score <= 0 else "rank-budget"
            omitted.append({"chunk_id": unique[r.index].chunk_id, "reason": reason, "score": f"{r.score:.2f}"})
    return [unique[r.index].model_dump() for r in chosen], omitted


def candidate_chunks(question: str, queries: list[str], pages: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The candidates of :func:`rank_candidates` (without the omission record)."""
    return rank_candidates(question, queries, pages)[0]


def selected_stage(run: RunState, plan: Mapping[str, Any], read: Mapping[str, Any]) -> Step:
    """Stage ``selected``: filter evidence, find missing facets and conflicts (one model call).

    The select (and answer) prompts show the question as asked, not the plan's restatement: a small
    model's restatement can drop a hop ("Which river runs through London?" for a question about
    Big Ben's city). Ranking uses both.
    """
    candidates, omitted = ([], []) if plan["needs_clarification"] else rank_candidates(
        f'{run.request.question} {plan["normalized_question"]}', plan["queries"], read["pages"]
    )
    labels = {prompts.label(i): c["chunk_id"] for i, c in enumerate(candidates)}
    g = graph("selected")
    get = None
    done: tuple[str, ...] = ()
    if candidates:
        get = run.add_model_call(g, "select", prompts.select_messages(run.request.question, candidates),
                                 prompts.SelectOutput)
        done = run.model_node("select")

    def value(outputs: dict[str, Any]) -> dict[str, Any]:
        if get is None:
            return {"candidates": [], "labels": {}, "selected": [], "lookup": [], "missing": [], "conflicts": [], "fallback": False,
                    "omitted": omitted}

        out = prompts.SelectOutput.model_validate(get(outputs))
        index = {c["chunk_id"]: Chunk.model_validate(c) for c in candidates}
        chosen = []
        for ref in out.selected:
            chunk_id = prompts.resolve_label(str(ref), labels)
            if chunk_id in index and chunk_id not in chosen:
                chosen.append(chunk_id)
        fallback = not chosen
        conflicts: list[dict[str, Any]] = []
        for item in out.conflicts:
            conflict = verify_conflict(
                item.topic,
                (prompts.resolve_label(item.chunk_a, labels), item.quote_a),
                (prompts.resolve_label(item.chunk_b, labels), item.quote_b),
                index,
            )
            if conflict is None:
                continue
            sides = [
                {"chunk_id": s.chunk_id, "quote": s.quote} for s in conflict.sides
            ]
            conflicts.append({"topic": normalize_text(conflict.topic), "sides": list(sides)})
            for side in sides:
                if side["chunk_id"] not in chosen:
                    chosen.append(side["chunk_id"])
        if fallback:
            chosen = [c["chunk_id"] for c in candidates]
        rank = {c["chunk_id"]: i for i, c in enumerate(candidates)}
        conflict_ids = {str(side["chunk_id"]) for conflict in conflicts for side in conflict["sides"]}
        # conflict sides first (both must be shown), then by rank; the rest is over the answer budget
        chosen.sort(key=lambda cid: (cid not in conflict_ids, rank[cid]))
        over = chosen[MAX_ANSWER_CHUNKS:]
        chosen = chosen[:MAX_ANSWER_CHUNKS]
        skipped = [
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
    return commit.value


__all__ = [
    "MAX_ANSWER_CHUNKS",
    "MAX_CANDIDATES",
    "RunState",
    "candidate_chunks",
    "rank_candidates",
    "candidate_urls",
    "first_hop_pages",
    "first_hop_queries",
    "plan_stage",
    "read_stage",
    "searched_stage",
    "selected_stage",
]
