"""DataFrames of a task's Memory: query plan, search hits, pages, evidence, claims, budgets, failures.

Every function takes a task directory (or a :class:`~ditto_nb.notebook.memory_view.TaskView`
already read with :func:`~ditto_nb.notebook.memory_view.load_task`), reads Memory read-only, and
returns a plain :class:`pandas.DataFrame` whose columns are the module constants below (stable; a
stage not reached yet gives an empty frame with the same columns). Works for Web QA and deep
research task directories; research-only frames are in :mod:`ditto_nb.notebook.research_frames`, the evidence frame in
:mod:`ditto_nb.notebook.evidence_frames` (re-exported here).
Dispatch-level frames (hits, pages, failures) come from the call ledger, so they show work as soon
as it is done, before its stage commits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ditto_nb.errors import SnapshotCorrupted
from ditto_nb.notebook.evidence_frames import EVIDENCE_COLUMNS, evidence_frame
from ditto_nb.notebook.memory_view import TaskRef, as_view
from ditto_nb.notebook.quotes import page_chunk_id
from ditto_nb.notebook.table import frame
from ditto_nb.notebook.table import ledger_outputs as _outputs
from ditto_nb.web.snapshots import SnapshotStore

QUERY_PLAN_COLUMNS = ["round", "index", "query", "source"]
SEARCH_HITS_COLUMNS = ["query", "rank", "title", "url", "origin", "snippet", "discovery_only"]
PAGES_COLUMNS = ["url", "final_url", "status", "failure", "title", "fetched_at", "sha256", "paragraphs", "bytes"]
CLAIMS_COLUMNS = ["claim", "status", "quotes", "origins", "titles", "links", "chunks", "quotes_verified", "grounded",
                  "grounding", "cross_check", "answer_rule"]
BUDGET_COLUMNS = ["budget", "used", "limit", "scope"]
FAILURES_COLUMNS = ["kind", "source", "failure", "error"]
OMITTED_COLUMNS = ["url", "reason", "round"]

SHA_PREFIX = 12
"""Characters of the SHA-256 shown in :func:`pages_frame`."""

WEB_QA_MODEL_CALLS_PER_RUN = 6
"""Model calls allowed in one uninterrupted Web QA run (SPEC §3)."""


def query_plan_frame(task: TaskRef) -> pd.DataFrame:
    """The query plan: every query the task decided to search.

    Args:
        task: the task directory (or view).

    Returns:
        Columns ``round`` (1 for Web QA; research round number), ``index`` (1-based within the
        round), ``query`` and ``source`` (``plan`` for the planning call, ``assessment`` for a
        research round planned from the previous round's coverage). Empty before ``plan``.
    """
    view = as_view(task)
    rows: list[dict[str, Any]] = []
    if view.pattern == "web_qa":
        plan = view.stage("plan") or {}
        rows = [{"round": 1, "index": i, "query": q, "source": "plan"} for i, q in enumerate(plan.get("queries", []), 1)]
    else:
        rounds = sorted((int(k.split("/")[0]), v) for k, v in view.prefixed("round/") if k.endswith("/plan"))
        for number, plan in rounds:
            source = "plan" if number == 1 else "assessment"
            rows += [{"round": number, "index": i, "query": q, "source": source}
                     for i, q in enumerate(plan.get("queries", []), 1)]
        if not rounds and isinstance(view.stage("plan"), dict):
            rows = [{"round": 1, "index": i, "query": q, "source": "plan"}
                    for i, q in enumerate(view.stage("plan").get("queries", []), 1)]
    return frame(rows, QUERY_PLAN_COLUMNS, ints=("round", "index"))


def search_hits_frame(task: TaskRef) -> pd.DataFrame:
    """Search hits of every completed search (discovery metadata only, never evidence).

    Args:
        task: the task directory (or view).

    Returns:
        Columns ``query``, ``rank`` (provider rank, 1-based as recorded), ``title``, ``url``,
        ``origin``, ``snippet`` and ``discovery_only`` (always True). One row per hit, in ledger
        order. Empty before any search completed.
    """
    view = as_view(task)
    rows: list[dict[str, Any]] = []
    for _key, out in _outputs(view, "search"):
        for hit in out.get("hits") or []:
            rows.append({**hit, "query": hit.get("query") or out.get("query")})
    return frame(rows, SEARCH_HITS_COLUMNS, ints=("rank",))


def _body_bytes(store: SnapshotStore, sha256: str) -> int | None:
    try:
        return len(store.load(sha256).body)
    except SnapshotCorrupted:
        return None


def pages_frame(task: TaskRef) -> pd.DataFrame:
    """Pages the task tried to read, successful or not.

    Args:
        task: the task directory (or view).

    Returns:
        Columns ``url`` (requested), ``final_url`` (after redirects), ``status`` (HTTP status, None
        when failed), ``failure`` (None, or e.g. ``http-403``, ``timeout``, ``PolicyViolation``),
        ``title``, ``fetched_at`` (UTC ISO-8601 retrieval time), ``sha256`` (first 12 hex characters
        of the raw body's SHA-256), ``paragraphs`` (extracted paragraphs, count) and ``bytes`` (raw
        body size in bytes from the snapshot; None when the snapshot fails its re-hash). Empty
        before any read completed.
    """
    view = as_view(task)
    store = SnapshotStore(view.directory)
    rows: list[dict[str, Any]] = []
    for _key, out in _outputs(view, "read"):
        ok = bool(out.get("ok")) and bool(out.get("sha256"))
        sha = str(out.get("sha256") or "")
        rows.append({
            "url": out.get("url"),
            "final_url": out.get("final_url"),
            "status": out.get("status") if ok else None,
            "failure": None if ok else (out.get("failure") or "error"),
            "title": out.get("title"),
            "fetched_at": out.get("fetched_at"),
            "sha256": sha[:SHA_PREFIX] if sha else None,
            "paragraphs": len(out.get("paragraphs") or []) if ok else 0,
            "bytes": _body_bytes(store, sha) if ok else None,
        })
    return frame(rows, PAGES_COLUMNS, ints=("status", "paragraphs", "bytes"))


def claims_frame(task: TaskRef) -> pd.DataFrame:
    """Claims of the final answer and their verification.

    Args:
        task: the task directory (or view).

    Returns:
        Columns ``claim``, ``status`` (Web QA: the answer status; research: the coverage status of
        the claim's sub-question), ``quotes`` (list of exact quotes), ``origins`` (list of distinct
        origins quoted), ``titles`` / ``links`` (distinct page titles / final URLs cited),
        ``chunks`` (page chunk ids cited, one per quote; pass one to
        :func:`~ditto_nb.notebook.quotes.show_quote`), ``quotes_verified`` (bool), ``grounded`` (the grounding/review verdict),
        ``grounding`` (the reviewer's reason or problems), ``cross_check`` (True/False, None
        when not requested) and ``answer_rule`` (Web QA: the answer rule that rewrote the answer,
        ``name: 'before' -> 'after'``, or ""). Web QA claims that verification withheld (never published) follow
        with ``status`` ``rejected``, ``grounding`` saying why (quote not found in the chunk, or
        the grounding verdict's reason); they are listed also when the run failed with
        ``UngroundedAnswer``. Otherwise empty before the report.
    """
    view = as_view(task)
    report = view.report
    rows: list[dict[str, Any]] = []
    if report is None:
        return frame([withheld_row(item) for item in view.withheld], CLAIMS_COLUMNS)
    if view.pattern == "web_qa":
        answer = report.get("answer") or {}
        rule = "; ".join(f"{r['rule']}: {r['before']!r} -> {r['after']!r}" if r.get("changed") else str(r["rule"])
                         for r in answer.get("rules") or [] if r.get("phase") == "rewrite")
        for claim in answer.get("claims", []):
            check = claim.get("verification") or {}
            cites = claim.get("citations", [])
            rows.append({
                "claim": claim.get("claim"), "status": answer.get("status"),
                "quotes": [c["quote"] for c in cites],
                "origins": list(dict.fromkeys(c["origin"] for c in cites)),
                "titles": list(dict.fromkeys(c.get("title") or "" for c in cites)),
                "links": list(dict.fromkeys(c["final_url"] for c in cites)),
                "chunks": [page_chunk_id(c["chunk_id"], c["final_url"]) for c in cites],
                "quotes_verified": check.get("quotes_verified"), "grounded": check.get("grounded"),
                "grounding": check.get("grounding_reason", ""), "cross_check": check.get("cross_check_passed"),
                "answer_rule": rule,
            })
    if view.pattern == "web_qa":
        rows += [withheld_row(item) for item in view.withheld]
    else:
        status = {int(c["index"]): c.get("status") for c in report.get("coverage", [])}
        review = report.get("review") or {}
        for c in report.get("conclusions", []):
            rows.append({
                "claim": c.get("statement"), "status": status.get(int(c.get("index", 0))),
                "quotes": [c["quote"]], "origins": [c["origin"]], "titles": [c.get("title") or ""],
                "links": [c["final_url"]], "chunks": [page_chunk_id(c["chunk_id"], c["final_url"])],
                "quotes_verified": True,
                "grounded": bool(review.get("ok")), "grounding": "; ".join(review.get("problems", [])),
                "cross_check": None,
            })
    return frame(rows, CLAIMS_COLUMNS)


def withheld_row(item: Mapping[str, Any]) -> dict[str, Any]:
    """A ``claims_frame`` row for a withheld claim (``status`` ``rejected``)."""
    return {
        "claim": item.get("claim"), "status": "rejected", "quotes": [item.get("quote")], "origins": [],
        "quotes_verified": bool(item.get("quote_found")), "grounded": bool(item.get("grounded")),
        "grounding": item.get("reason", ""), "cross_check": None,
    }


def budget_frame(task: TaskRef) -> pd.DataFrame:
    """Budgets: used (as charged in Memory, before each dispatch) against their limits.

    Counters are never reset by a resume, and a crash may over-count (SPEC §4).

    Args:
        task: the task directory (or view).

    Returns:
        Columns ``budget`` (both patterns: ``model``, ``search``, ``read``; research also
        ``rounds``), ``used``, ``limit`` and ``scope`` (``task``, or
        ``run`` for Web QA's six model calls per uninterrupted run).
    """
    view = as_view(task)
    req = view.request
    used = {k: int(v or 0) for k, v in view.prefixed("budget/")}
    if view.pattern == "web_qa":
        limits = [("model", WEB_QA_MODEL_CALLS_PER_RUN, "run"), ("search", req.get("max_queries"), "task"),
                  ("read", req.get("max_pages"), "task")]
        rows = [{"budget": n, "used": used.get(n, 0), "limit": lim, "scope": s} for n, lim, s in limits]
    else:
        totals = [("model", req.get("max_model_calls")), ("search", req.get("max_searches")),
                  ("read", req.get("max_read_pages"))]
        rows = [{"budget": n, "used": used.get(n, 0), "limit": lim, "scope": "task"} for n, lim in totals]
        rounds = sum(1 for k, _v in view.prefixed("stage/round/"))
        rows.append({"budget": "rounds", "used": rounds, "limit": req.get("max_rounds"), "scope": "task"})
    return frame(rows, BUDGET_COLUMNS, ints=("used", "limit"))


def failures_frame(task: TaskRef) -> pd.DataFrame:
    """Failed sources and dispatches that did not complete.

    Args:
        task: the task directory (or view).

    Returns:
        Columns ``kind`` (``search``, ``read``, ``model``, or ``run`` for a run that failed),
        ``source`` (query, URL, ledger key, or the stage a run failed in), ``failure`` (e.g.
        ``http-404``, ``search-provider``, ``not-completed`` for a dispatch started but never
        recorded done, as after a crash; a run's error type such as ``ModelServerCrashed``) and
        ``error`` (message; a run's ends with its time).
    """
    view = as_view(task)
    rows: list[dict[str, Any]] = []
    for key, row in view.ledger():
        kind = str(row.get("kind"))
        out = row.get("output")
        if row.get("status") != "done":
            rows.append({"kind": kind, "source": row.get("name") or key, "failure": "not-completed",
                         "error": f"ledger row {key} is {row.get('status')}"})
        elif isinstance(out, dict) and kind in ("search", "read") and not out.get("ok", True):
            source = out.get("query") if kind == "search" else out.get("url")
            rows.append({"kind": kind, "source": source or key, "failure": out.get("failure") or "error",
                         "error": out.get("error") or ""})
    for failed in view.failures:
        rows.append({"kind": "run", "source": failed.get("stage"), "failure": failed.get("error_type"),
                     "error": f"{failed.get('message', '')} (at {failed.get('at')})"})
    return frame(rows, FAILURES_COLUMNS)


def omitted_frame(task: TaskRef) -> pd.DataFrame:
    """Discovered URLs that were not read (page budget, origin, per-round page cap).

    Args:
        task: the task directory (or view).

    Returns:
        Columns ``url``, ``reason`` (``page-budget``, ``origin-not-allowed``, ``max-pages``) and
        ``round`` (research round; None for Web QA).
    """
    view = as_view(task)
    if view.pattern == "web_qa":
        rows = list((view.stage("read") or {}).get("omitted", []))
    else:
        rows = list((view.report or {}).get("omitted_urls", []))
    return frame(rows, OMITTED_COLUMNS, ints=("round",))


__all__ = [
    "BUDGET_COLUMNS",
    "CLAIMS_COLUMNS",
    "EVIDENCE_COLUMNS",
    "FAILURES_COLUMNS",
    "OMITTED_COLUMNS",
    "PAGES_COLUMNS",
    "QUERY_PLAN_COLUMNS",
    "SEARCH_HITS_COLUMNS",
    "TaskRef",
    "as_view",
    "budget_frame",
    "claims_frame",
    "evidence_frame",
    "failures_frame",
    "frame",
    "omitted_frame",
    "pages_frame",
    "query_plan_frame",
    "search_hits_frame",
    "withheld_row",
]
