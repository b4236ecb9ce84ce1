"""The research ``round`` stage: one round is one instance (search → read → assess).

:func:`round_stage` is the builder of the repeated stage ``round`` (``plan.RESEARCH``): it runs
round ``n`` on the :class:`~ditto_nb.patterns.deep_research.run_state.Progress` of the rounds
before it and returns the committed :class:`~ditto_nb.patterns.deep_research.stage_models.RoundRecord`
JSON (``stage/round/<n>``). On resume the runner rebuilds every round in order: its searches,
reads and assessment come back from the ledger (no dispatch, no graph), its URL list from the
frozen ``round/<n>/reads`` row and its stop decision as recorded.

Decisions taken by code, not the model: a round that added no new evidence spends no assessment
call (queries are reformulated by code; ``no-progress`` after two such rounds unless a lead
remains — a comparison's unread side or the second hop's name — or when no new query can be
formed); a round whose assessment would leave no room for the report's calls stops
with ``model-budget`` before it.
"""

from __future__ import annotations

import hashlib

from ditto_nb.errors import ReadFailed, SearchFailed
from ditto_nb.patterns.common.partial import check_partial
from ditto_nb.patterns.common.records import OmittedItem, PageRecord, SearchArgs, SearchResult
from ditto_nb.patterns.common.relevance import rank_hits
from ditto_nb.patterns.common.report_records import RoundItem
from ditto_nb.patterns.common.retrieval import question_entities
from ditto_nb.patterns.deep_research import prompts, schemas
from ditto_nb.patterns.deep_research.coverage import next_queries, normalize_coverage, research_blocker, stop_after_round
from ditto_nb.patterns.deep_research.evidence import accumulate, prompt_view, rank
from ditto_nb.patterns.deep_research.queries import Spec, leads, reformulate, side_specs, specs, with_bridges
from ditto_nb.patterns.deep_research.request import SYNTHESIS_RESERVE
from ditto_nb.patterns.deep_research.run_state import Plan, ResearchState, model_call, tool_calls
from ditto_nb.patterns.deep_research.stage_models import round_row
from ditto_nb.patterns.deep_research.tools import TOOL_READ, TOOL_SEARCH
from ditto_nb.web.policy import origin_of


def _read_key(round_number: int, url: str) -> str:
    return f"read:r{round_number}:{hashlib.sha256(url.encode('utf-8')).hexdigest()[:12]}"


def _search_round(st: ResearchState, r: int, queries: list[Spec]) -> Plan[list[SearchResult]]:
    """Run the round's searches (specs ``{"text", "fallbacks", "entity"}``: the ``web_search``
    tool tries the relaxation ladder on zero hits, and title search for the entity); returns the
    results in query order."""
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
    st.progress.failures += [{"source": res["query"], "kind": "search", "error": res["error"]} for res in errors]
    return ran


def _read_round(st: ResearchState, r: int, urls: list[str]) -> Plan[list[PageRecord]]:
    """Read the round's frozen URL list; returns the page records in URL order."""
    request, progress = st.request, st.progress
    calls = [(_read_key(r, url), url, {"url": url}) for url in urls]
    read: list[PageRecord] = yield from tool_calls(
        st, "read", r, TOOL_READ, calls,
        over_budget=lambda url: progress.omitted_urls.append({"url": url, "round": r, "reason": "page-budget"}))
    failed = check_partial(read, request.allow_partial, ReadFailed, f"round {r} page reads",
                           lambda p: f"{p.get('url')}: {p.get('failure')}")
    progress.failures += [{"source": p.get("url"), "kind": "read", "error": p.get("error") or p.get("failure")}
                          for p in failed]
    return read


def _candidates(st: ResearchState, r: int, results: list[SearchResult], queries: list[Spec]) -> list[str]:
    """The round's URL list: reference URLs (round one), then unseen allowed hits ranked as Web QA
    ranks them (:func:`~ditto_nb.patterns.common.relevance.rank_hits`: each query's best hit first,
    so every queried entity keeps a page; measured, query order gave the first query's four hits
    the round's four reads and the comparison's second side none)."""
    request, progress = st.request, st.progress
    allowed = set(request.allowed_origins)
    urls: list[str] = list(request.reference_urls) if r == 1 else []
    entities = [*question_entities(request.question), *(q["entity"] for q in queries if q.get("entity"))]

    def unseen(url: str) -> bool:
        return bool(url) and url.split("#", 1)[0] not in progress.seen_urls and origin_of(url) in allowed

    hit_lists = [[hit for hit in res.get("hits", []) if unseen(str(hit.get("url", "")))] for res in results]
    urls = [u for u in urls if u not in progress.seen_urls]
    urls += [url for url in rank_hits(request.question, hit_lists, entities) if url not in urls]
    omitted: list[OmittedItem] = [{"url": u, "round": r, "reason": "max-pages"} for u in urls[request.max_pages:]]
    progress.omitted_urls += omitted
    return urls[: request.max_pages]


def more_rounds(st: ResearchState) -> bool:
    """Another round may run: no stop reason yet."""
    return st.progress.stop_reason is None


def stops_here(st: ResearchState, record: RoundItem | None) -> bool:
    """``stop_after="round"`` stops after a committed round that did new work (an unassessed
    round only when another round follows)."""
    return (record is not None and st.worked
            and (bool(record.get("assessed")) or record.get("stop_reason") is None))


def round_stage(st: ResearchState, _stages: object) -> Plan[RoundItem | None]:
    """Build the next round (see the module docstring).

    Returns:
        The committed round record, or None when the round did not run (a budget or the clock
        stopped the rounds first) or stopped on ``model-budget`` before its assessment (kept in
        :attr:`Progress.rounds`, not committed).

    Raises:
        SearchFailed, ReadFailed: total (or, without ``allow_partial``, any) failure;
        BudgetExceeded and Worker errors unchanged.
    """
    request, p = st.request, st.progress
    p.round += 1
    r = p.round
    frozen = st.rows.get(f"round/{r}/plan")
    if frozen is None:
        p.stop_reason = research_blocker(request, st.used, st.elapsed())
        if p.stop_reason is not None:
            return None
        frozen = {"queries": [q["text"] for q in p.queries], "search": p.queries}
        st.pending.append((f"round/{r}/plan", frozen))
    st.worked = False
    queries = list(frozen.get("search") or specs(frozen["queries"], request.question, p.subs))
    p.asked += list(frozen["queries"])
    searched = yield from _search_round(st, r, queries)
    p.tried += [*p.asked, *(form for res in searched for form in res.get("tried", []))]
    reads = st.rows.get(f"round/{r}/reads")
    if reads is None:
        reads = {"urls": _candidates(st, r, searched, queries)}
        st.pending.append((f"round/{r}/reads", reads))
    p.seen_urls.update(reads["urls"])
    pages = yield from _read_round(st, r, list(reads["urls"]))
    p.seen_urls.update(str(page.get("final_url", "")) for page in pages)
    p.evidence, left_out, added = accumulate(p.evidence, pages, r)
    p.omitted += left_out
    p.empty = 0 if added else p.empty + 1
    key = f"model:assess:r{r}"
    ranked = rank(p.evidence, [request.question, *p.subs])
    if added == 0 and st.done(key, "model", "assess") is None:
        # Nothing new to assess (no model call spent): reformulate by code; stop only after two
        # consecutive empty rounds or when no new query can be formed.
        # After two empty rounds only a lead (an unread side, the second hop) keeps the rounds going.
        p.queries = with_bridges(leads(request.question, p.coverage, ranked, p.tried),
                                 reformulate(request.question, p.subs, p.tried, request.max_queries)
                                 if p.empty < 2 else [], request.max_queries)
        p.stop_reason = "no-progress" if not p.queries else ("round-budget" if r >= request.max_rounds else None)
        return _record(st, {"round": r, "queries": list(frozen["queries"]), "reads": reads["urls"],
                            "new_evidence": 0, "coverage": p.coverage, "assessed": False,
                            "next_queries": [q["text"] for q in p.queries], "stop_reason": p.stop_reason})
    if st.done(key, "model", "assess") is None and st.used["model"] + 1 + SYNTHESIS_RESERVE > request.max_model_calls:
        p.stop_reason = "model-budget"
        p.rounds.append(round_row({
            "round": r, "queries": list(frozen["queries"]), "reads": reads["urls"], "new_evidence": added,
            "coverage": p.coverage, "assessed": False, "stop_reason": p.stop_reason}))
        return None
    shown = prompt_view(rank(p.evidence, [request.question, *p.subs, *frozen["queries"]]))
    raw = yield from model_call(st, key, "assess", prompts.assess_messages(request, p.subs, shown, p.asked),
                                schemas.AssessOutput, st.model, r)
    p.coverage = normalize_coverage(raw.model_dump()["items"], p.subs, p.evidence, request.cross_check)
    proposed = next_queries(p.coverage, p.asked, request.max_queries)
    p.queries = with_bridges(leads(request.question, p.coverage, ranked, p.tried),
                             specs(proposed, request.question, p.subs) if proposed
                             else reformulate(request.question, p.subs, p.tried, request.max_queries),
                             request.max_queries)
    # The stop decision is recorded with the round and replayed as recorded: re-deciding it on
    # resume would read the counters and clock of a later round (issue 14, item 2).
    recorded = st.rows.get(f"stage/round/{r}")
    if isinstance(recorded, dict) and "stop_reason" in recorded:
        p.stop_reason = recorded["stop_reason"]
    else:
        unread = {s["text"] for s in side_specs(request.question, p.evidence, p.tried)}
        p.stop_reason = stop_after_round(request, r, p.coverage, p.empty, [q["text"] for q in p.queries], st.used,
                                         st.elapsed(), unread_side=any(q["text"] in unread for q in p.queries))
    return _record(st, {"round": r, "queries": list(frozen["queries"]), "reads": reads["urls"],
                        "new_evidence": added, "coverage": p.coverage, "assessed": True,
                        "next_queries": [q["text"] for q in p.queries], "stop_reason": p.stop_reason})


def _record(st: ResearchState, value: RoundItem) -> RoundItem:
    """Validate the round record, keep it in the progress and queue its commit."""
    record = round_row(value)
    st.progress.rounds.append(record)
    st.commit(f"round/{record['round']}", record)
    return record


__all__ = ["more_rounds", "round_stage", "stops_here"]
