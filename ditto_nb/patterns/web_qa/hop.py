"""The second hop of Web QA: search and read what the selection said to look up next.

A bridge question names entity A and asks about B, which only A's page names. After the first
pages are read, the selection call returns ``lookup`` (the bridge names it found in the chunks)
and ``missing`` (facets no chunk answers). Lookup names whose page was already read are dropped
(a small model often names a page it has just seen). Unless the plan's later queries name
something the question does not (the plan's guess at the bridge, which then comes first, with
code's names as its alternates), code
adds the two names the selected chunks best describe that the question does not name
(:func:`~ditto_nb.patterns.common.relevance.bridge_candidates`, one-word names admitted) after the
selection's names. The second hop's queries are, in order: each bridge name alone, the plan's
queries the first hop had no budget for (the plan's guess at the second step), and the entities
of the missing facets. Bridge names left without a query of their own, then the queries the
budget cut, become the first query's ``alternates`` (at most :data:`MAX_ALTERNATES`): tried,
within the same search, when it finds no page that was not read already ("Katherine Applegate"
found only the page just read). That first query also looks up, by page title, up to
:data:`MAX_NAMES` names (``names``): the selection's names, code's two, the names every chunk
shown to the selection best describes, the question's own names whose page was not read, then
one-word names with no question word before them; the pages they title come first
among its hits, as a link from the first page would lead to them (``benchmarks/hop_names.py``, offline:
the second page among the first two candidates for 26 of the tuning half's 57 bridge questions
whose first page names it without the lookup, 40 with it; on the real wiki, both pages read for
11 → 14 of 20 tuning and 12 → 14 of 24 check questions, README "Measured"). When there is one
and the request's budgets
have room, the declared stages ``hop-searched`` and ``hop-read`` (between ``selected`` and
``report``) search and read, with no extra model call (without a hop they commit nothing); the best chunks of the new pages (BM25 against the question and the bridge names) join the
selected chunks shown to the answer call (:func:`merge_hop`).

Budgets: the first hop keeps back one query and about half the pages for this hop
(:func:`~ditto_nb.patterns.web_qa.stages.first_hop_queries`,
:func:`~ditto_nb.patterns.web_qa.stages.first_hop_pages`); what the first hop did not use is
available too.
"""

from __future__ import annotations

from collections.abc import Generator

from ditto_nb.patterns.common.relevance import bridge_candidates
from ditto_nb.patterns.common.retrieval import comparison_entities, question_entities, title_key
from ditto_nb.patterns.common.search_queries import hop_queries
from ditto_nb.patterns.common.records import SearchSpec
from ditto_nb.patterns.common.tools import MAX_NAMES
from ditto_nb.patterns.web_qa.stage_models import (
    HopPlan,
    PlanJson,
    ReadJson,
    SearchedJson,
    SelectedJson,
    WebQaStages,
)
from ditto_nb.patterns.web_qa.stages import RunState, candidate_urls, rank_candidates, read_stage, searched_stage
from ditto_nb.runtime.graph import GraphStep, NodeOutputs

MAX_ALTERNATES = 3
"""Most other names (or cut queries) a second hop's first query tries when it finds nothing new."""
HOP_CHUNKS = 3
"""Most chunks of second-hop pages added to the answer call's evidence."""
MAX_EVIDENCE = 6
"""Most chunks shown to the answer call after a hop (first-hop selection first)."""


def plan_hop(run: RunState, plan: PlanJson, searched: SearchedJson, read: ReadJson,
             selected: SelectedJson) -> HopPlan | None:
    """The second hop's queries and page budget, or None when no hop is needed or possible.

    Args:
        run: the run state (request budgets).
        plan: the ``plan`` stage output.
        searched: the first hop's ``searched`` output.
        read: the first hop's ``read`` output.
        selected: the ``selected`` stage output (``lookup``, ``missing``).

    Returns:
        ``{"queries": [text], "search": [{"text", "fallbacks", "entity"}], "pages": n, "names": [...]}``
        or None.
    """
    req = run.request
    if plan.get("needs_clarification") or comparison_entities(req.question):
        return None
    lookup = list(selected.get("lookup") or [])
    deferred = [q.copy() for q in plan.get("deferred") or []]
    asked = {w for e in question_entities(req.question) for w in e.lower().split()}
    # the plan's later queries that name something the question does not (its guess at the bridge)
    guesses = [q for q in deferred if any(w not in asked for e in question_entities(str(q["text"]))
                                          for w in e.lower().split())]
    known = [str(p.get("title") or "") for p in read.get("pages") or []]
    read_keys = {title_key(t) for t in known}
    # a lookup name whose page was already read brings nothing new
    lookup = [name for name in lookup if title_key(name) not in read_keys]
    # the names the selected chunks best describe that the question does not name: after the
    # selection's own names (a small model's lookup is often a name already read or wrong), or,
    # when the plan made a guess, only as alternates of the first query
    chosen = set(selected.get("selected") or [])
    texts = [str(c["text"]) for c in selected.get("candidates") or [] if c["chunk_id"] in chosen]
    ranked = bridge_candidates(req.question, texts, known, limit=2, one_word=True)
    code = [name for name in ranked if title_key(name) not in {title_key(n) for n in lookup}]
    # names looked up by page title: the selection's, the best-described ones of every chunk shown
    # to the selection (the selected first), the question's own names whose page was not read
    # ("… represented Virginia Commonwealth University, which was founded in what year?"), then
    # one-word names no question word stands before ("rebought by its rival, Carrefour")
    shown = texts + [str(c["text"]) for c in selected.get("candidates") or [] if c["chunk_id"] not in chosen]
    every = bridge_candidates(req.question, shown, known, limit=3 * MAX_NAMES, one_word=True, loose=True)
    unread = [e for e in question_entities(req.question) if title_key(e) not in read_keys]
    probe = list(dict.fromkeys([*lookup, *code, *every[:MAX_NAMES // 2], *unread, *every]))[:MAX_NAMES]
    if not guesses:
        lookup, code = lookup + code, []
    missing = list(selected.get("missing") or [])
    done = [str(r.get("query", "")) for r in searched.get("results", [])]
    done += [str(r.get("used", "")) for r in searched.get("results", []) if r.get("used")]
    budget = req.max_queries - len(plan.get("queries") or [])
    search: list[SearchSpec] = [{"text": q.text, "fallbacks": list(q.fallbacks), "entity": q.entity}
                                     for q in hop_queries(lookup, [], done, budget)]
    sent = {d.lower() for d in done} | {str(q["text"]).lower() for q in search}
    # then the plan's own later queries (its guesses first), then missing facets
    for query in [*guesses, *deferred]:
        if str(query["text"]).lower() not in sent:
            sent.add(str(query["text"]).lower())
            search.append(query)
    sent |= {str(q["text"]).lower() for q in search}
    search += [{"text": q.text, "fallbacks": list(q.fallbacks), "entity": q.entity}
               for q in hop_queries([], missing, sorted(sent), budget)]
    search, cut = search[: max(0, budget)], search[max(0, budget):]
    # bridge names left without a query of their own, then the queries the budget cut, are tried
    # when the first query finds no page that was not read already
    sent = {str(q["text"]).lower() for q in search}
    left = [name for name in [*lookup, *code, *(str(q["text"]) for q in cut)] if name.lower() not in sent]
    if search and left:
        search[0] = {**search[0], "alternates": list(dict.fromkeys(left))[:MAX_ALTERNATES]}
    if search and probe:
        search[0] = {**search[0], "names": probe}
    attempted = len(read.get("pages") or []) + sum(1 for f in read.get("failures") or [] if f.get("stage") == "read")
    pages = req.max_pages - attempted
    if not search or pages < 1:
        return None
    return {"queries": [q["text"] for q in search], "search": search, "pages": pages,
            "names": list(dict.fromkeys([*lookup, *code, *probe]))}


def _already(read: ReadJson) -> frozenset[str]:
    """The first hop's page URLs (asked and final)."""
    pages = read.get("pages") or []
    return frozenset(str(p.get("url")) for p in pages) | frozenset(str(p.get("final_url")) for p in pages)


def first_hop_plan(run: RunState, s: WebQaStages) -> HopPlan | None:
    """:func:`plan_hop` on the first hop's committed stages (pure)."""
    return plan_hop(run, s["plan"], s["searched"], s["read"], s["selected"])


def hop_searched_stage(run: RunState, s: WebQaStages) -> Generator[GraphStep, NodeOutputs, SearchedJson]:
    """Stage ``hop-searched``: the second hop's searches, or no search (nothing committed) when
    :func:`plan_hop` plans no hop.

    Raises:
        SearchFailed: as the first hop's ``searched`` stage (``allow_partial`` rules).
    """
    hop = first_hop_plan(run, s)
    if hop is None:
        return {"results": []}
    return (yield from searched_stage(run, hop, stage="hop-searched", prefix="hop-search",
                                      seen=sorted(_already(s["read"]))))


def hop_read_stage(run: RunState, s: WebQaStages) -> Generator[GraphStep, NodeOutputs, ReadJson]:
    """Stage ``hop-read``: the pages the second hop's searches found (at most the hop's page
    budget; the bridge names' pages first), or no read (nothing committed) without a hop.

    Raises:
        ReadFailed: as the first hop's ``read`` stage (``allow_partial`` rules).
    """
    hop = first_hop_plan(run, s)
    if hop is None:
        return {"pages": [], "failures": [], "omitted": []}
    urls = candidate_urls(run.request, s["hop-searched"], budget=int(hop["pages"]), skip=_already(s["read"]),
                          names=tuple(hop.get("names") or ()))
    return (yield from read_stage(run, s["hop-searched"], stage="hop-read", urls=urls))


def merge_hop(question: str, selected: SelectedJson, hop: HopPlan | None,
              hop_read: ReadJson | None) -> SelectedJson:
    """The selection extended with the best chunks of the second hop's pages (pure).

    Args:
        question: the question as asked.
        selected: the ``selected`` stage output.
        hop: :func:`plan_hop`'s output (None: no hop).
        hop_read: the ``hop-read`` stage output.

    Returns:
        A copy of ``selected`` whose ``candidates`` and ``selected`` also hold up to
        :data:`HOP_CHUNKS` hop chunks (first-hop selection first, at most :data:`MAX_EVIDENCE`).
    """
    if not hop or not hop_read or not hop_read.get("pages"):
        return selected.copy()
    names = list(hop.get("names") or []) + list(hop.get("queries") or [])
    ranked, _ = rank_candidates(question, names, list(hop_read["pages"]), limit=HOP_CHUNKS)
    known = {c["chunk_id"] for c in selected.get("candidates") or []}
    extra = [c for c in ranked if c["chunk_id"] not in known]
    keep = max(MAX_EVIDENCE - len(extra), 2)
    chosen = list(selected.get("selected") or [])[:keep] + [c["chunk_id"] for c in extra]
    return {**selected, "candidates": [*(selected.get("candidates") or []), *extra],
            "selected": chosen[:MAX_EVIDENCE]}


__all__ = ["HOP_CHUNKS", "MAX_ALTERNATES", "MAX_NAMES", "MAX_EVIDENCE", "first_hop_plan", "hop_read_stage",
           "hop_searched_stage", "merge_hop", "plan_hop"]
