"""The research plan: one generator that a single ``runtime.loop`` drives through every stage.

Stages (one flat Graph each): ``resume``, ``plan``, then per round ``search:rN``, ``read:rN``,
``assess:rN``, then ``report``, ``review``, ``repair``, ``review-2`` and ``publish``. The plan
performs no I/O: time comes from the ``clock`` tool node of each graph, state from Memory.
Everything a stage computes is a pure function of the ledger, so a resumed run rebuilds the same
evidence (same ids) without re-dispatching anything that is ``done``.

Decisions taken by code, not the model (so small local models get through; verification, the
independent review and the budgets are unchanged): a plan with sub-questions but no
clarification question is researched even if the model said ``clear=false``; a round that added
no new evidence spends no assessment call (``no-progress``); findings are atomic (one statement,
one quote), so unverifiable ones are dropped and disclosed when another verifies, and only a
draft with no verifiable finding (or a failed review) gets the single repair.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TypeVar, cast

from pydantic import BaseModel
from typing_extensions import NotRequired, TypedDict

from ditto_nb.errors import ReadFailed, SearchFailed
from ditto_nb.patterns.common import run_step
from ditto_nb.patterns.common.partial import check_partial
from ditto_nb.patterns.common.retrieval import clarification_needed
from ditto_nb.patterns.common.records import (
    EvidenceItem,
    FailureItem,
    OmittedItem,
    PageRecord,
    PublishedFiles,
    SearchArgs,
    SearchResult,
)
from ditto_nb.patterns.common.report_records import CoverageItem, RoundItem
from ditto_nb.patterns.deep_research import prompts, schemas
from ditto_nb.patterns.deep_research.coverage import (
    next_queries,
    normalize_coverage,
    research_blocker,
    stop_after_round,
)
from ditto_nb.patterns.deep_research.evidence import accumulate, prompt_view, rank
from ditto_nb.patterns.deep_research.prompts import Message
from ditto_nb.patterns.deep_research.schemas import PlanDump
from ditto_nb.patterns.deep_research.queries import Spec, bridge_specs, first_round, reformulate, specs, with_bridges
from ditto_nb.patterns.deep_research.report import ResearchReport, render_markdown
from ditto_nb.patterns.deep_research.request import SYNTHESIS_RESERVE, ResearchRequest, parse_request
from ditto_nb.patterns.deep_research.run_state import (
    Plan,
    ResearchState,
    after_pending,
    model_call,
    run_graph,
    tool_calls,
)
from ditto_nb.patterns.deep_research.stage_models import round_row, stage_row
from ditto_nb.patterns.deep_research.stages import REPORT_KEY, resume_graph
from ditto_nb.patterns.deep_research.synthesis import synthesize
from ditto_nb.patterns.deep_research.tools import TOOL_PUBLISH, TOOL_READ, TOOL_SEARCH, TOOL_SNAPSHOTS
from ditto_nb.runtime.capabilities import INTERACTION_ACT_TOOL
from ditto_nb.runtime.graph import graph
from ditto_nb.web.policy import origin_of


M = TypeVar("M", bound=BaseModel)


class LoopInput(TypedDict):
    """The research loop's input: the request, the model choice ``{"provider", "model"}`` and
    where to stop (None, ``plan``, ``round`` or ``report``)."""

    request: ResearchRequest | Mapping[str, object]
    model: dict[str, str]
    stop_after: NotRequired[str | None]


class LoopResult(TypedDict, total=False):
    """``{"status": "checkpoint", "stage", "round", "budgets"}`` or ``{"status": "done",
    "report", "published"}``."""

    status: str
    stage: str
    round: int
    budgets: dict[str, dict[str, int]]
    report: Mapping[str, object]
    published: PublishedFiles


def _normalize_plan(request: ResearchRequest, raw: PlanDump) -> PlanDump:
    """Checked plan. The topic is unclear only when the model says so AND the topic names nothing
    to search for (:func:`clarification_needed`) AND the model asks something or gave no plan;
    ``clear=false`` with sub-questions or queries but no clarification question is researched
    (missing evidence is never disguised as an unclear request, SPEC §4)."""
    subs = [s.strip() for s in raw.get("sub_questions", []) if s.strip()][: request.max_queries]
    queries = [q.strip() for q in raw.get("queries", []) if q.strip()]
    questions = [q.strip() for q in raw.get("clarification_questions", []) if q.strip()]
    unclear = clarification_needed(request.question, not bool(raw.get("clear", True)))
    clear = not unclear or (not questions and bool(subs or queries))
    if clear and not subs:
        subs = [request.question]
    queries = list(dict.fromkeys(queries + subs))[: request.max_queries]
    if not clear and not questions:
        questions = ["Which aspect, place and period of the topic should the research cover?"]
    return {"clear": clear, "goal": raw.get("goal", "") or request.question,
            "sub_questions": subs, "queries": queries, "clarification_questions": [] if clear else questions}


def _read_key(round_number: int, url: str) -> str:
    return f"read:r{round_number}:{hashlib.sha256(url.encode('utf-8')).hexdigest()[:12]}"


def _search_round(st: ResearchState, r: int, queries: list[Spec],
                  failures: list[FailureItem]) -> Plan[dict[str, list[SearchResult]]]:
    """Run the round's searches (specs ``{"text", "fallbacks", "entity"}``: the ``web_search``
    tool tries the relaxation ladder on zero hits, and title search for the entity); returns
    ``{"results": [...]}`` in query order."""
    request = st.request
    calls: list[tuple[str, str, SearchArgs]] = []
    for i, spec in enumerate(queries, start=1):
        args: SearchArgs = {"query": spec["text"], "limit": request.max_pages}
        if spec.get("fallbacks"):
            args["fallbacks"] = list(spec["fallbacks"])
        if spec.get("entity"):
            args["title"] = spec["entity"]
        calls.append((f"search:r{r}:q{i}", spec["text"], args))
    ran: list[SearchResult] = yield from tool_calls(st, "search", r, TOOL_SEARCH, calls)
    errors = check_partial(ran, request.allow_partial, SearchFailed, f"round {r} searches",
                           lambda res: f"{res.get('query')!r}: {res.get('error')}")
    failures += [{"source": res["query"], "kind": "search", "error": res["error"]} for res in errors]
    return {"results": ran}


def _read_round(st: ResearchState, r: int, urls: list[str], failures: list[FailureItem],
                omitted_urls: list[OmittedItem]) -> Plan[dict[str, list[PageRecord]]]:
    """Read the round's frozen URL list; returns ``{"pages": [...]}`` in URL order."""
    request = st.request
    calls = [(_read_key(r, url), url, {"url": url}) for url in urls]
    read: list[PageRecord] = yield from tool_calls(
        st, "read", r, TOOL_READ, calls,
        over_budget=lambda url: omitted_urls.append({"url": url, "round": r, "reason": "page-budget"}))
    failed = check_partial(read, request.allow_partial, ReadFailed, f"round {r} page reads",
                           lambda p: f"{p.get('url')}: {p.get('failure')}")
    failures += [{"source": p.get("url"), "kind": "read", "error": p.get("error") or p.get("failure")} for p in failed]
    return {"pages": read}


def _candidates(st: ResearchState, r: int, results: list[SearchResult], seen_urls: set[str],
                omitted_urls: list[OmittedItem]) -> list[str]:
    request = st.request
    allowed = set(request.allowed_origins)
    urls: list[str] = list(request.reference_urls) if r == 1 else []
    for res in results:
        for hit in res.get("hits", []):
            url = str(hit.get("url", ""))
            if url and url not in urls and url not in seen_urls and origin_of(url) in allowed:
                urls.append(url)
    urls = [u for u in urls if u not in seen_urls]
    omitted_urls += [{"url": u, "round": r, "reason": "max-pages"} for u in urls[request.max_pages:]]
    return urls[: request.max_pages]


def run_research_loop(inp: LoopInput) -> Plan[LoopResult]:
    """The research plan (a generator for ``runtime.loop``).

    Args:
        inp: ``{"request": ResearchRequest | dict, "model": {"provider", "model"},
            "stop_after": None | "plan" | "round" | "report"}``.

    Returns:
        ``{"status": "checkpoint", "stage", "round"?}`` or ``{"status": "done", "report": dict,
        "published": dict}``.

    Raises:
        RequestChanged, PermissionRevoked, SnapshotCorrupted (from ``resume``), SearchFailed,
        ReadFailed, BudgetExceeded, and Worker errors unchanged.
    """
    request = parse_request(inp["request"])
    model: dict[str, str] = dict(inp["model"])
    stop_after = inp.get("stop_after")
    st = ResearchState(request, (yield from run_step(resume_graph(request))))

    if isinstance(st.rows.get("report"), dict):
        return (yield from _publish(st, st.rows["report"]))

    raw_plan = yield from model_call(st, "model:plan", "research-plan", prompts.plan_messages(request),
                                 schemas.PlanOutput, model)
    plan = _normalize_plan(request, cast(PlanDump, raw_plan.model_dump()))
    st.pending.append(("stage/plan", stage_row("plan", plan)))
    if stop_after == "plan":
        return (yield from _checkpoint(st, "plan", 0))

    evidence: list[EvidenceItem] = []
    omitted: list[OmittedItem] = []
    omitted_urls: list[OmittedItem] = []
    failures: list[FailureItem] = []
    rounds: list[RoundItem] = []
    asked: list[str] = []
    seen_urls: set[str] = set()
    coverage: list[CoverageItem] = [
        {"index": i, "question": q, "status": "gap", "evidence_ids": [], "gap": "not researched yet", "next_queries": []}
        for i, q in enumerate(plan["sub_questions"], start=1)
    ]
    stop_reason: str | None = None if plan["clear"] else "clarification"
    subs = list(plan["sub_questions"])
    queries = first_round(request.question, subs, plan["queries"], request.max_queries)
    tried: list[str] = []
    empty = 0  # consecutive rounds without new evidence
    r = 0
    while stop_reason is None:
        r += 1
        frozen = st.rows.get(f"round/{r}/plan")
        if frozen is None:
            stop_reason = research_blocker(request, st.used, st.elapsed())
            if stop_reason is not None:
                break
            frozen = {"queries": [q["text"] for q in queries], "search": queries}
            st.pending.append((f"round/{r}/plan", frozen))
        st.worked = False
        queries = list(frozen.get("search") or specs(frozen["queries"], request.question, subs))
        asked += list(frozen["queries"])
        searched = yield from _search_round(st, r, queries, failures)
        tried += [*asked, *(form for res in searched["results"] for form in res.get("tried", []))]
        reads = st.rows.get(f"round/{r}/reads")
        if reads is None:
            reads = {"urls": _candidates(st, r, searched["results"], seen_urls, omitted_urls)}
            st.pending.append((f"round/{r}/reads", reads))
        seen_urls.update(reads["urls"])
        pages = (yield from _read_round(st, r, list(reads["urls"]), failures, omitted_urls))["pages"]
        seen_urls.update(str(p.get("final_url", "")) for p in pages)
        evidence, left_out, added = accumulate(evidence, pages, r)
        omitted += left_out
        empty = 0 if added else empty + 1
        key = f"model:assess:r{r}"
        if added == 0 and st.done(key, "model", "assess") is None:
            # Nothing new to assess (no model call spent): reformulate by code; stop only after two
            # consecutive empty rounds or when no new query can be formed.
            queries = (with_bridges(bridge_specs(request.question, coverage, rank(evidence, [request.question, *subs]),
                                                 tried), reformulate(request.question, subs, tried, request.max_queries),
                                    request.max_queries) if empty < 2 else [])
            stop_reason = "no-progress" if not queries else ("round-budget" if r >= request.max_rounds else None)
            record = round_row({"round": r, "queries": list(frozen["queries"]), "reads": reads["urls"],
                                "new_evidence": 0, "coverage": coverage, "assessed": False,
                                "next_queries": [q["text"] for q in queries], "stop_reason": stop_reason})
            rounds.append(record)
            st.pending.append((f"stage/round/{r}", record))
            if stop_reason is None and stop_after == "round" and st.worked:
                return (yield from _checkpoint(st, "round", r))
            continue
        if st.done(key, "model", "assess") is None and st.used["model"] + 1 + SYNTHESIS_RESERVE > request.max_model_calls:
            stop_reason = "model-budget"
            rounds.append(round_row({
                "round": r, "queries": list(frozen["queries"]), "reads": reads["urls"], "new_evidence": added,
                "coverage": coverage, "assessed": False, "stop_reason": stop_reason}))
            break
        shown = prompt_view(rank(evidence, [request.question, *subs, *frozen["queries"]]))
        raw = yield from model_call(st, key, "assess", prompts.assess_messages(request, subs, shown, asked),
                                schemas.AssessOutput, model, r)
        coverage = normalize_coverage(raw.model_dump()["items"], subs, evidence, request.cross_check)
        proposed = next_queries(coverage, asked, request.max_queries)
        queries = with_bridges(bridge_specs(request.question, coverage, rank(evidence, [request.question, *subs]), tried),
                               specs(proposed, request.question, subs) if proposed
                               else reformulate(request.question, subs, tried, request.max_queries),
                               request.max_queries)
        # The stop decision is recorded with the round and replayed as recorded: re-deciding it on
        # resume would read the counters and clock of a later round (issue 14, item 2).
        recorded = st.rows.get(f"stage/round/{r}")
        if isinstance(recorded, dict) and "stop_reason" in recorded:
            stop_reason = recorded["stop_reason"]
        else:
            stop_reason = stop_after_round(request, r, coverage, empty, [q["text"] for q in queries], st.used,
                                           st.elapsed())
        record = round_row({"round": r, "queries": list(frozen["queries"]), "reads": reads["urls"],
                            "new_evidence": added, "coverage": coverage, "assessed": True,
                            "next_queries": [q["text"] for q in queries], "stop_reason": stop_reason})
        rounds.append(record)
        st.pending.append((f"stage/round/{r}", record))
        if stop_after == "round" and st.worked:
            return (yield from _checkpoint(st, "round", r))

    st.pending.append(("stage/evidence", stage_row("evidence", {"items": evidence, "omitted": omitted})))

    def ask(key: str, purpose: str, messages: list[Message], schema: type[M]) -> Plan[M]:
        return (yield from model_call(st, key, purpose, messages, schema, model))

    report = (yield from synthesize(ask, request, plan, evidence, coverage, rounds, omitted, omitted_urls,
                                    failures, stop_reason or "no-progress", st.budgets, lambda: st.now)
              ).model_dump(mode="json")
    st.pending.append((REPORT_KEY, report))
    if stop_after == "report":
        return (yield from _checkpoint(st, "report", len(rounds)))
    return (yield from _publish(st, report))


def _checkpoint(st: ResearchState, stage: str, round_number: int) -> Plan[LoopResult]:
    if st.pending:
        yield from run_graph(st, graph(f"checkpoint:{stage}"), stage, round_number)
    return {"status": "checkpoint", "stage": stage, "round": round_number, "budgets": st.budgets()}


def _publish(st: ResearchState, report: Mapping[str, object]) -> Plan[LoopResult]:
    """Check the cited snapshots, then publish ``report.json`` and ``report.md``.

    ``report`` is the :class:`ResearchReport` JSON as stored in Memory (``stage/report``); it is
    published as stored, so a report written by earlier code republishes byte-identically, and
    read back with ``ResearchReport.model_validate`` for the Markdown. Returns ``{"status":
    "done", "report", "published"}``.
    """
    model = ResearchReport.model_validate(report)
    g = graph("publish")
    cited = sorted({c["sha256"] for c in model.cited_chunks})
    g.node("verify", INTERACTION_ACT_TOOL, {"tool": TOOL_SNAPSHOTS, "args": {"sha256s": cited}}, after=after_pending(st))
    g.node("publish", INTERACTION_ACT_TOOL,
           {"tool": TOOL_PUBLISH, "args": {"report": report, "markdown": render_markdown(model)}}, after=("verify",))
    out = yield from run_graph(st, g, "publish")
    return {"status": "done", "report": report, "published": out["publish"]}


__all__ = ["LoopInput", "LoopResult", "run_research_loop"]
