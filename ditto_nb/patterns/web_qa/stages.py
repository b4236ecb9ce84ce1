"""The Web QA stage graphs (``plan``, ``searched``, ``read``, ``selected``) as plan sub-generators.

Each function yields exactly one stage graph (via :func:`run_step`) and returns the committed stage
output. Completed dispatches in the ledger are reused, never re-dispatched. No I/O happens here.
Which pages to read and which chunks to show the model are decided in
:mod:`ditto_nb.patterns.web_qa.candidates` (re-exported here).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from ditto_nb.errors import BudgetExceeded, ReadFailed, SearchFailed
from ditto_nb.patterns.common import Ledger, TaskScope, add_ledgered_call, add_stage_commit, run_step
from ditto_nb.patterns.common.ledger import Plan as Step
from ditto_nb.patterns.common.partial import check_partial
from ditto_nb.patterns.common.records import (
    OmittedItem,
    PageRecord,
    SearchArgs,
    SearchResult,
    SearchSpec,
    ToolCall,
)
from ditto_nb.patterns.common.retrieval import clarification_needed, comparison_entities
from ditto_nb.patterns.common.search_queries import build_queries
from ditto_nb.patterns.web_qa import prompts, schemas
from ditto_nb.patterns.web_qa.candidates import MAX_CANDIDATES, candidate_chunks, candidate_urls, rank_candidates
from ditto_nb.patterns.web_qa.request import WebQaRequest
from ditto_nb.patterns.web_qa.stage_models import (
    HopPlan,
    PlanJson,
    PlanStage,
    ReadFailure,
    ReadJson,
    ReadStage,
    SearchedJson,
    SearchedStage,
    WebQaStages,
)
from ditto_nb.runtime.capabilities import INFER_REASONING_SAMPLE, INTERACTION_ACT_TOOL
from ditto_nb.runtime.graph import Graph, NodeOutputs, graph
from ditto_nb.text import normalize_text

T = TypeVar("T")


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
        rules_off: answer rules switched off by name (:mod:`ditto_nb.patterns.web_qa.rules`).
        model_calls: model dispatches made by this run.
    """

    request: WebQaRequest
    task: TaskScope
    model: Mapping[str, str]
    ledger: Ledger
    max_model_calls: int = 6
    results_per_query: int = 5
    rules_off: frozenset[str] = frozenset()
    model_calls: int = 0
    stages: WebQaStages = field(default_factory=lambda: WebQaStages())

    def add_model_call(
        self,
        g: Graph,
        purpose: str,
        messages: list[dict[str, str]] | Callable[[NodeOutputs], list[dict[str, str]]],
        schema: type[Any],
        after: tuple[str, ...] = (),
    ) -> Callable[[NodeOutputs], Mapping[str, object]]:
        """Add (or reuse) one model call; return a getter of its output (the model's JSON, validated
        by the caller's schema).

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

            def payload(deps: NodeOutputs) -> dict[str, object]:
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


def _const(value: T) -> Callable[[NodeOutputs], T]:
    return lambda _outputs: value


def _output(key: str) -> Callable[[NodeOutputs], Any]:
    """A getter of node ``key``'s output (a copy of the Worker's JSON)."""
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


def plan_stage(run: RunState) -> Step[PlanJson]:
    """Stage ``plan``: understand the question and produce up to ``max_queries`` queries."""
    req = run.request
    g = graph("plan")
    get = run.add_model_call(g, "plan", prompts.plan_messages(req.question, req.max_queries), schemas.PlanOutput)
    done = run.model_node("plan")

    def value(outputs: NodeOutputs) -> PlanJson:
        out = schemas.PlanOutput.model_validate(get(outputs))
        unclear = clarification_needed(req.question, out.needs_clarification)
        planned = [] if unclear else _clean_queries(out.queries, req.question, req.max_queries)
        every: list[SearchSpec] = [] if unclear else [
            {"text": q.text, "fallbacks": list(q.fallbacks), "entity": q.entity}
            for q in build_queries(req.question, planned, req.max_queries + 2)
        ]
        search = every[: first_hop_queries(req)]
        return {
            "normalized_question": normalize_text(req.question),
            "queries": [q["text"] for q in search],
            "search": search,
            "deferred": every[len(search):],
            "needs_clarification": unclear,
            "clarification": normalize_text(out.clarification),
        }

    commit = add_stage_commit(g, run.task, stage="plan", output=PlanStage, value=value, after=done,
                              context=lambda v: {"queries": v["queries"]})
    yield from run_step(g)
    committed: PlanJson = commit.value
    return committed


def searched_stage(run: RunState, plan: PlanJson | HopPlan, stage: str = "searched",
                   prefix: str = "search", seen: Sequence[str] = ()) -> Step[SearchedJson]:
    """Stage ``searched`` (or the second hop's ``hop-searched``): run every query through the
    ``web_search`` tool, each with its relaxation ladder and entity title.

    Args:
        run: the run state.
        plan: ``{"queries": [text]}`` and optionally ``{"search": [{"text", "fallbacks", "entity"}]}``.
        stage: the stage name committed.
        prefix: ledger key prefix of the searches.
        seen: URLs already read (the second hop): when every hit of a query is among them, its
            ``alternates`` are tried.

    Raises:
        SearchFailed: every search failed, or one failed and ``allow_partial`` is false.
    """
    g = graph(stage)
    getters: list[Callable[[NodeOutputs], SearchResult]] = []
    after: list[str] = []
    specs: list[SearchSpec] = list(plan.get("search")
                                   or [{"text": q, "fallbacks": [], "entity": ""} for q in plan["queries"]])
    for i, spec in enumerate(specs):
        query = spec["text"]
        key = f"{prefix}:{i}"
        reused = run.ledger.reuse(key, "search", query)
        if reused is not None:
            getters.append(_const(cast(SearchResult, dict(reused))))
            continue
        args: SearchArgs = {"query": query, "limit": run.results_per_query}
        if spec.get("fallbacks"):
            args["fallbacks"] = list(spec["fallbacks"])
        if spec.get("entity"):
            args["title"] = spec["entity"]
        if seen and spec.get("alternates"):
            args["seen"] = sorted(seen)
            args["alternates"] = list(spec.get("alternates") or [])
        if spec.get("names"):
            args["seen"] = sorted(seen)
            args["names"] = list(spec.get("names") or [])
        tool_input: ToolCall = {"tool": "web_search", "args": args}
        after += [key, add_ledgered_call(g, run.task, key=key, kind="search", name=query,
                                         capability=INTERACTION_ACT_TOOL, input=tool_input)]
        getters.append(_output(key))

    def value(outputs: NodeOutputs) -> SearchedJson:
        results = [get(outputs) for get in getters]
        check_partial(results, run.request.allow_partial, SearchFailed, "searches",
                      lambda r: f"{r.get('query')!r}: {r.get('error') or r.get('failure')}")
        return {"results": results}

    dones = list(after)
    commit = add_stage_commit(g, run.task, stage=stage, output=SearchedStage, value=value, after=dones,
                              context=lambda v: {"hits": sum(len(r.get("hits") or []) for r in v["results"])})
    yield from run_step(g)
    committed: SearchedJson = commit.value
    return committed


def _url_key(url: str) -> str:
    return "read:" + hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]


def read_stage(run: RunState, searched: SearchedJson, stage: str = "read",
               urls: tuple[list[str], list[OmittedItem]] | None = None) -> Step[ReadJson]:
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
    getters: list[Callable[[NodeOutputs], PageRecord]] = []
    dones: list[str] = []
    for url in to_read:
        key = _url_key(url)
        reused = run.ledger.reuse(key, "read", url)
        if reused is not None:
            getters.append(_const(cast(PageRecord, dict(reused))))
            continue
        dones += [key, add_ledgered_call(g, run.task, key=key, kind="read", name=url, capability=INTERACTION_ACT_TOOL,
                                         input={"tool": "page_read", "args": {"url": url}})]
        getters.append(_output(key))
    search_failures: list[ReadFailure] = [
        {"stage": "searched", "source": r.get("query", ""), "failure": r.get("failure") or "error", "error": r.get("error") or ""}
        for r in searched.get("results", []) if not r.get("ok")
    ]

    def value(outputs: NodeOutputs) -> ReadJson:
        results = [get(outputs) for get in getters]
        failed = check_partial(results, run.request.allow_partial, ReadFailed, "page reads",
                               lambda r: f"{r.get('url')}: {r.get('failure')}")
        failures: list[ReadFailure] = search_failures + [
            {"stage": "read", "source": r.get("url", ""), "failure": r.get("failure") or "error", "error": r.get("error") or ""}
            for r in failed
        ]
        return {"pages": [r for r in results if r.get("ok")], "failures": failures, "omitted": omitted}

    commit = add_stage_commit(g, run.task, stage=stage, output=ReadStage, value=value, after=dones,
                              context=lambda v: {"pages": [p["final_url"] for p in v["pages"]]})
    yield from run_step(g)
    committed: ReadJson = commit.value
    return committed


__all__ = [
    "MAX_CANDIDATES",
    "RunState",
    "Step",
    "candidate_chunks",
    "rank_candidates",
    "candidate_urls",
    "first_hop_pages",
    "first_hop_queries",
    "plan_stage",
    "read_stage",
    "searched_stage",
]
