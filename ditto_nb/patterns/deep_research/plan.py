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
from collections.abc import Generator
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel

from ditto_nb.errors import BudgetExceeded, ReadFailed, SearchFailed, UngroundedAnswer
from ditto_nb.patterns.deep_research import prompts
from ditto_nb.patterns.deep_research.coverage import (
    next_queries,
    normalize_coverage,
    research_blocker,
    stop_after_round,
)
from ditto_nb.patterns.deep_research.evidence import accumulate, prompt_view, rank, select_for_report
from ditto_nb.patterns.deep_research.report import (
    CitedConclusion,
    ResearchReport,
    check_draft,
    conflict_sides,
    render_markdown,
)
from ditto_nb.patterns.deep_research.request import ResearchRequest, parse_request
from ditto_nb.patterns.deep_research.stages import (
    RESUME_ROW_NODES,
    add_clock,
    add_dispatch,
    add_model_call,
    add_persist,
    context_node,
    model_payload,
    resume_graph,
)
from ditto_nb.patterns.common.retrieval import search_args
from ditto_nb.patterns.deep_research.tools import TOOL_PUBLISH, TOOL_READ, TOOL_SEARCH, TOOL_SNAPSHOTS
from ditto_nb.patterns.common import run_step
from ditto_nb.runtime.capabilities import INTERACTION_ACT_TOOL
from ditto_nb.runtime.graph import Graph, GraphStep, graph
from ditto_nb.web.policy import origin_of

Plan = Generator[GraphStep, dict[str, Any], dict[str, Any]]
BUDGET_LIMITS = {"searches": "max_searches", "reads": "max_read_pages", "model_calls": "max_model_calls"}


class _State:
    """What the plan knows: Memory rows from ``resume``, budget counters, the clock."""

    def __init__(self, request: ResearchRequest, resumed: dict[str, Any]) -> None:
        self.request = request
        self.rows: dict[str, Any] = {str(k): v for node in RESUME_ROW_NODES for k, v in resumed[node] or []}
        if resumed["report"] is not None:
            self.rows["report"] = resumed["report"]
        self.used = {name: int(self.rows.get(f"budget/{name}") or 0) for name in BUDGET_LIMITS}
        self.started_at = float(resumed["started"])
        self.now = float(resumed["clock"])
        self.pending: list[tuple[str, Any]] = []
        self.worked = False

    def done(self, key: str) -> Any | None:
        row = self.rows.get(f"ledger/{key}")
        return row.get("output") if isinstance(row, dict) and row.get("status") == "done" else None

    def limit(self, budget: str) -> int:
        return int(getattr(self.request, BUDGET_LIMITS[budget]))

    def can_charge(self, budget: str) -> bool:
        return self.used[budget] < self.limit(budget)

    def charge(self, budget: str) -> None:
        if not self.can_charge(budget):
            raise BudgetExceeded(f"{budget} budget of {self.limit(budget)} would be exceeded")
        self.used[budget] += 1

    def elapsed(self) -> float:
        return self.now - self.started_at

    def budgets(self) -> dict[str, dict[str, int]]:
        return {name: {"used": self.used[name], "limit": self.limit(name)} for name in BUDGET_LIMITS}


def _run(st: _State, g: Graph, stage: str, round_number: int = 0) -> Plan:
    """Finish ``g`` (queued writes, Context update, clock), run it, and return its outputs."""
    add_persist(g, st.request.namespace, st.pending)
    context_node(g, st.request, {"stage": stage, "round": round_number})
    add_clock(g)
    out = yield from run_step(g)
    st.pending = []
    st.now = float(out["clock"])
    st.worked = True
    return out


def _after(st: _State) -> tuple[str, ...]:
    return ("persist",) if st.pending else ()


def _model(st: _State, key: str, purpose: str, messages: list[dict[str, str]], schema: type[BaseModel],
           model: dict[str, Any], round_number: int = 0) -> Plan:
    """One budgeted model call (reused from the ledger when done); returns the validated dump."""
    output = st.done(key)
    if output is None:
        st.charge("model_calls")
        g = graph(key.removeprefix("model:"))
        add_model_call(g, st.request.namespace, key,
                       model_payload(model, purpose, messages, schema, prompts.MAX_TOKENS.get(purpose)),
                       after=_after(st))
        out = yield from _run(st, g, purpose, round_number)
        output = out[f"call:{key}"]
    return schema.model_validate(output["output"]).model_dump()


def _normalize_plan(request: ResearchRequest, raw: dict[str, Any]) -> dict[str, Any]:
    """Checked plan. The topic is unclear only when the model says so AND asks something;
    ``clear=false`` with sub-questions or queries but no clarification question is researched
    (missing evidence is never disguised as an unclear request, SPEC §4)."""
    subs = [s.strip() for s in raw.get("sub_questions", []) if s.strip()][: request.max_queries]
    queries = [q.strip() for q in raw.get("queries", []) if q.strip()]
    questions = [q.strip() for q in raw.get("clarification_questions", []) if q.strip()]
    clear = bool(raw.get("clear", True)) or (not questions and bool(subs or queries))
    if clear and not subs:
        subs = [request.question]
    queries = list(dict.fromkeys(queries + subs))[: request.max_queries]
    if not clear and not questions:
        questions = ["Which aspect, place and period of the topic should the research cover?"]
    return {"clear": clear, "goal": raw.get("goal", "") or request.question,
            "sub_questions": subs, "queries": queries, "clarification_questions": [] if clear else questions}


def _read_key(round_number: int, url: str) -> str:
    return f"read:r{round_number}:{hashlib.sha256(url.encode('utf-8')).hexdigest()[:12]}"


def _search_round(st: _State, r: int, queries: list[str], failures: list[dict[str, Any]]) -> Plan:
    """Run the round's searches; returns ``{"results": [...]}`` in query order."""
    request = st.request
    results: list[dict[str, Any] | None] = []
    g = graph(f"search:r{r}")
    after = _after(st)
    scheduled: dict[int, str] = {}
    for i, query in enumerate(queries, start=1):
        key = f"search:r{r}:q{i}"
        done = st.done(key)
        results.append(done)
        if done is None and st.can_charge("searches"):
            st.charge("searches")
            scheduled[i - 1] = add_dispatch(g, request.namespace, key, "search", "searches", INTERACTION_ACT_TOOL,
                                             {"tool": TOOL_SEARCH, "args": search_args(query, request.max_pages)},
                                             after=after)
    if scheduled:
        out = yield from _run(st, g, "search", r)
        for index, node in scheduled.items():
            results[index] = out[node]
    ran = [res for res in results if res is not None]
    errors = [res for res in ran if not res.get("ok", True) or res.get("error")]
    failures += [{"source": res["query"], "kind": "search", "error": res["error"]} for res in errors]
    if ran and len(errors) == len(ran):
        raise SearchFailed(f"round {r}: every search failed: {errors[0]['error']}")
    if errors and not request.allow_partial:
        raise SearchFailed(f"round {r}: a search failed and allow_partial is false: {errors[0]['error']}")
    return {"results": ran}


def _read_round(st: _State, r: int, urls: list[str], failures: list[dict[str, Any]],
                omitted_urls: list[dict[str, Any]]) -> Plan:
    """Read the round's frozen URL list; returns ``{"pages": [...]}`` in URL order."""
    request = st.request
    pages: list[dict[str, Any] | None] = []
    g = graph(f"read:r{r}")
    after = _after(st)
    scheduled: dict[int, str] = {}
    for i, url in enumerate(urls):
        key = _read_key(r, url)
        done = st.done(key)
        pages.append(done)
        if done is not None:
            continue
        if not st.can_charge("reads"):
            omitted_urls.append({"url": url, "round": r, "reason": "page-budget"})
            continue
        st.charge("reads")
        scheduled[i] = add_dispatch(g, request.namespace, key, "read", "reads", INTERACTION_ACT_TOOL,
                                    {"tool": TOOL_READ, "args": {"url": url}}, after=after)
    if scheduled:
        out = yield from _run(st, g, "read", r)
        for index, node in scheduled.items():
            pages[index] = out[node]
    read = [page for page in pages if page is not None]
    failed = [page for page in read if not page.get("ok")]
    failures += [{"source": p.get("url"), "kind": "read", "error": p.get("error") or p.get("failure")} for p in failed]
    if read and len(failed) == len(read):
        raise ReadFailed(f"round {r}: every page read failed: {failed[0]['failure']}")
    if failed and not request.allow_partial:
        raise ReadFailed(f"round {r}: a page read failed and allow_partial is false: {failed[0]['failure']}")
    return {"pages": read}


def _candidates(st: _State, r: int, results: list[dict[str, Any]], seen_urls: set[str],
                omitted_urls: list[dict[str, Any]]) -> list[str]:
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


def run_research_loop(inp: dict[str, Any]) -> Plan:
    """The research plan (a generator for ``runtime.loop``).

    Args:
        inp: ``{"request": ResearchRequest | dict, "model": {"provider", "model"},
            "stop_after": None | "plan" | "round" | "report"}``.

    Returns:
        ``{"status": "checkpoint", "stage", "round"?}`` or ``{"status": "done", "report": dict,
        "published": dict}``.

    Raises:
        RequestChanged, PermissionRevoked, SnapshotCorrupted (from ``resume``), SearchFailed,
        ReadFailed, BudgetExceeded, UngroundedAnswer, and Worker errors unchanged.
    """
    request = parse_request(inp["request"])
    model: dict[str, Any] = dict(inp["model"])
    stop_after = inp.get("stop_after")
    st = _State(request, (yield from run_step(resume_graph(request))))

    if isinstance(st.rows.get("report"), dict):
        return (yield from _publish(st, st.rows["report"]))

    raw_plan = yield from _model(st, "model:plan", "research-plan", prompts.plan_messages(request),
                                 prompts.PlanOutput, model)
    plan = _normalize_plan(request, raw_plan)
    st.pending.append(("stage/plan", plan))
    if stop_after == "plan":
        return (yield from _checkpoint(st, "plan", 0))

    evidence: list[dict[str, Any]] = []
    omitted: list[dict[str, Any]] = []
    omitted_urls: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    rounds: list[dict[str, Any]] = []
    asked: list[str] = []
    seen_urls: set[str] = set()
    coverage = [{"index": i, "question": q, "status": "gap", "evidence_ids": [], "gap": "not researched yet",
                 "next_queries": []} for i, q in enumerate(plan["sub_questions"], start=1)]
    stop_reason: str | None = None if plan["clear"] else "clarification"
    queries = plan["queries"]
    r = 0
    while stop_reason is None:
        r += 1
        frozen = st.rows.get(f"round/{r}/plan")
        if frozen is None:
            stop_reason = research_blocker(request, st.used, st.elapsed())
            if stop_reason is not None:
                break
            frozen = {"queries": queries}
            st.pending.append((f"round/{r}/plan", frozen))
        st.worked = False
        queries = list(frozen["queries"])
        asked += queries
        searched = yield from _search_round(st, r, queries, failures)
        reads = st.rows.get(f"round/{r}/reads")
        if reads is None:
            reads = {"urls": _candidates(st, r, searched["results"], seen_urls, omitted_urls)}
            st.pending.append((f"round/{r}/reads", reads))
        seen_urls.update(reads["urls"])
        pages = (yield from _read_round(st, r, list(reads["urls"]), failures, omitted_urls))["pages"]
        seen_urls.update(str(p.get("final_url", "")) for p in pages)
        evidence, left_out, added = accumulate(evidence, pages, r)
        omitted += left_out
        key = f"model:assess:r{r}"
        if added == 0 and st.done(key) is None:
            # Nothing new to assess: the coverage cannot change, so no model call is spent on it.
            stop_reason = "no-progress"
            record = {"round": r, "queries": list(frozen["queries"]), "reads": reads["urls"], "new_evidence": 0,
                      "coverage": coverage, "assessed": False, "next_queries": []}
            rounds.append(record)
            st.pending.append((f"stage/round/{r}", record))
            break
        if st.done(key) is None and st.used["model_calls"] + 1 + 4 > request.max_model_calls:
            stop_reason = "model-budget"
            rounds.append({"round": r, "queries": queries, "reads": reads["urls"], "new_evidence": added,
                           "coverage": coverage, "assessed": False})
            break
        shown = prompt_view(rank(evidence, [request.question, *plan["sub_questions"], *queries]))
        raw = yield from _model(st, key, "assess",
                                prompts.assess_messages(request, plan["sub_questions"], shown, asked),
                                prompts.AssessOutput, model, r)
        coverage = normalize_coverage(raw["items"], plan["sub_questions"], evidence, request.cross_check)
        queries = next_queries(coverage, asked, request.max_queries)
        record = {"round": r, "queries": list(frozen["queries"]), "reads": reads["urls"], "new_evidence": added,
                  "coverage": coverage, "assessed": True, "next_queries": queries}
        rounds.append(record)
        st.pending.append((f"stage/round/{r}", record))
        stop_reason = stop_after_round(request, r, coverage, added, queries, st.used, st.elapsed())
        if stop_after == "round" and st.worked:
            return (yield from _checkpoint(st, "round", r))

    st.pending.append(("stage/evidence", {"items": evidence, "omitted": omitted}))
    report = yield from _synthesize(st, model, plan, evidence, coverage, rounds, omitted, omitted_urls,
                                    failures, stop_reason or "no-progress")
    st.pending.append(("report", report))
    if stop_after == "report":
        return (yield from _checkpoint(st, "report", len(rounds)))
    return (yield from _publish(st, report))


def _checkpoint(st: _State, stage: str, round_number: int) -> Plan:
    if st.pending:
        yield from _run(st, graph(f"checkpoint:{stage}"), stage, round_number)
    return {"status": "checkpoint", "stage": stage, "round": round_number, "budgets": st.budgets()}


def _publish(st: _State, report: dict[str, Any]) -> Plan:
    g = graph("publish")
    cited = sorted({str(c["sha256"]) for c in report.get("cited_chunks", [])})
    g.node("verify", INTERACTION_ACT_TOOL, {"tool": TOOL_SNAPSHOTS, "args": {"sha256s": cited}}, after=_after(st))
    g.node("publish", INTERACTION_ACT_TOOL,
           {"tool": TOOL_PUBLISH, "args": {"report": report, "markdown": render_markdown(report)}}, after=("verify",))
    out = yield from _run(st, g, "publish")
    return {"status": "done", "report": report, "published": out["publish"]}


def _checked(
    draft: dict[str, Any], selected: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Quote-check a draft; findings are atomic (one statement, one quote), so when at least one
    verifies, the unverifiable ones are dropped (and disclosed) instead of failing the draft.

    Returns:
        ``(conclusions, problems, dropped)``: ``problems`` is non-empty only when the draft has
        findings and none verified.
    """
    conclusions, problems = check_draft(draft, selected)
    if conclusions:
        return conclusions, [], problems
    return conclusions, problems, []


def _reviewed(draft: dict[str, Any], conclusions: list[dict[str, Any]]) -> dict[str, Any]:
    """What the independent review sees: the summary, the verified findings, the unknowns."""
    return {"summary": draft.get("summary", ""), "unknowns": draft.get("unknowns", []),
            "conclusions": [{"statement": c["statement"], "quote": c["quote"]} for c in conclusions]}


def _synthesize(st: _State, model: dict[str, Any], plan: dict[str, Any], evidence: list[dict[str, Any]],
                coverage: list[dict[str, Any]], rounds: list[dict[str, Any]], omitted: list[dict[str, Any]],
                omitted_urls: list[dict[str, Any]], failures: list[dict[str, Any]], stop_reason: str) -> Plan:
    """Report, independent review, at most one repair; returns the report dump."""
    request = st.request
    selected, left_out = select_for_report(evidence, coverage, [request.question, *plan["sub_questions"]])
    gaps = [f"{row['question']}: {row['gap']}" for row in coverage if row["status"] == "gap"]
    view = [{"id": c["id"], "origin": c["origin"], "text": c["text"]} for c in selected]
    review: dict[str, Any] = {"ok": True, "problems": [], "repaired": False, "model_checked": False}
    conclusions: list[dict[str, Any]] = []
    if stop_reason == "clarification":
        draft: dict[str, Any] = {"summary": "The topic is too vague to research; please answer the clarification "
                                            "questions and start a new task.", "unknowns": []}
    elif not selected:
        draft = {"summary": "No usable evidence was found within the budgets; nothing is concluded.",
                 "unknowns": gaps}
    else:
        draft = yield from _model(st, "model:report", "report",
                                  prompts.report_messages(request, plan["sub_questions"], view, gaps),
                                  prompts.DraftOutput, model)
        conclusions, problems, dropped = _checked(draft, selected)
        verdict: dict[str, Any] = {"ok": False, "problems": []}
        if not problems:
            verdict = yield from _model(st, "model:review", "review",
                                        prompts.review_messages(_reviewed(draft, conclusions), coverage, gaps),
                                        prompts.ReviewOutput, model)
        if problems or not verdict["ok"]:
            draft = yield from _model(st, "model:repair", "repair",
                                      prompts.repair_messages(draft, problems + verdict["problems"], view, gaps),
                                      prompts.DraftOutput, model)
            conclusions, problems, dropped = _checked(draft, selected)
            if problems:
                raise UngroundedAnswer(f"the repaired report still has unverifiable quotes: {'; '.join(problems)}")
            verdict = yield from _model(st, "model:review-2", "review",
                                        prompts.review_messages(_reviewed(draft, conclusions), coverage, gaps),
                                        prompts.ReviewOutput, model)
            if not verdict["ok"]:
                raise UngroundedAnswer(f"the repaired report failed review: {'; '.join(verdict['problems'])}")
            review["repaired"] = True
        review.update(ok=True, problems=list(verdict["problems"]), model_checked=True, dropped=dropped)
    cited = {c["evidence_id"] for c in conclusions}
    conflicts = conflict_sides(coverage, conclusions, evidence)
    cited |= {side["evidence_id"] for conflict in conflicts for side in conflict["sides"]}
    unknowns = list(dict.fromkeys([*draft.get("unknowns", []), *gaps]))
    if stop_reason == "clarification":
        status = "needs-clarification"
    else:
        status = "complete" if coverage and all(row["status"] != "gap" for row in coverage) else "partial"
    report = ResearchReport(
        id=request.id, question=request.question, research_type=request.research_type, audience=request.audience,
        scope=request.scope, goal=plan["goal"], sub_questions=plan["sub_questions"], status=status,
        stop_reason=stop_reason, clarification_questions=plan["clarification_questions"],
        summary=str(draft.get("summary", "")), conclusions=[CitedConclusion.model_validate(c) for c in conclusions],
        conflicts=conflicts, unknowns=unknowns,
        coverage=coverage, rounds=rounds,
        cited_chunks=[{k: v for k, v in c.items()} for c in selected if c["id"] in cited],
        omitted=omitted + left_out, omitted_urls=omitted_urls, failures=failures,
        budgets={**st.budgets(), "rounds": {"used": len(rounds), "limit": request.max_rounds}},
        review=review, generated_at=datetime.fromtimestamp(st.now, timezone.utc).isoformat(),
    )
    return report.model_dump(mode="json")


__all__ = ["run_research_loop"]
