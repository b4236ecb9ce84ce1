"""Coverage per sub-question and the stop decision (pure functions).

The model proposes a status per sub-question; the code keeps it honest: a ``gap`` that names
known evidence ids, no missing fact and no next query is ``covered``; ``covered`` needs at
least one known evidence id (two origins with different text under ``cross_check``), ``conflict``
needs evidence from two origins, everything else is a ``gap``. A ``covered`` whose cited
evidence does not address the sub-question (:func:`addresses`: its names and one of its other
content words) is a ``gap`` too: a 1.5B assessor called biology pages "covered" for a question
about a film named *Evolution*. The next round's queries come from the gaps' ``next_queries``,
minus queries already run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ditto_nb.evidence.rank import terms
from ditto_nb.patterns.common.records import EvidenceItem
from ditto_nb.patterns.common.report_records import CoverageItem
from ditto_nb.patterns.common.retrieval import names_entity, question_entities
from ditto_nb.patterns.deep_research.request import SYNTHESIS_RESERVE, ResearchRequest

def addresses(sub_question: str, texts: Sequence[str]) -> bool:
    """Whether evidence ``texts`` (paragraphs with their page titles) can answer ``sub_question``.

    The texts must name every entity the sub-question names (:func:`question_entities`,
    :func:`names_entity`) and contain at least one of its other content words (by five-letter
    prefix of :func:`~ditto_nb.evidence.rank.terms`: ``directed`` meets ``director``, ``play``
    meets ``played``). A sub-question with no other content word needs only its names.

    Args:
        sub_question: one planned sub-question.
        texts: the cited evidence texts.

    Returns:
        True when the evidence addresses the sub-question.
    """
    joined = " ".join(texts)
    entities = question_entities(sub_question)
    if not all(names_entity(joined, entity) for entity in entities):
        return False
    named = {w for entity in entities for w in terms(entity)}
    wanted = {w[:5] for w in terms(sub_question) if w not in named}
    have = set(terms(joined))
    return not wanted or any(t.startswith(w) for w in wanted for t in have)


def normalize_coverage(
    raw_items: Sequence[CoverageItem],
    sub_questions: Sequence[str],
    evidence: Sequence[EvidenceItem],
    cross_check: bool,
) -> list[CoverageItem]:
    """Turn the model's assessment into one checked coverage row per sub-question.

    Args:
        raw_items: ``AssessOutput.items`` dumps (coverage rows without ``question``).
        sub_questions: the planned sub-questions.
        evidence: the accumulated evidence (``id``, ``origin``, ``text``).
        cross_check: covered rows need two origins with different text.

    Returns:
        Rows ``{"index", "question", "status", "evidence_ids", "gap", "next_queries", "reason"}``
        (``reason``: why the row has its status, for the coverage frame).
    """
    by_id = {str(item["id"]): item for item in evidence}
    by_index: dict[int, CoverageItem] = {}
    for item in raw_items:
        try:
            by_index.setdefault(int(item.get("index", 0)), item)
        except (TypeError, ValueError):
            continue
    rows: list[CoverageItem] = []
    for index, question in enumerate(sub_questions, start=1):
        item = by_index.get(index, {})
        ids = list(dict.fromkeys(str(e) for e in item.get("evidence_ids", []) if str(e) in by_id))
        status = str(item.get("status", "gap"))
        gap = str(item.get("gap", "") or "")
        origins = {by_id[e]["origin"] for e in ids}
        texts = {by_id[e]["text"] for e in ids}
        if status not in ("covered", "gap", "conflict"):
            status = "gap"
        queries = [str(q).strip() for q in item.get("next_queries", []) if str(q).strip()]
        if status == "gap" and ids and not gap.strip() and not queries:
            # The model named supporting evidence and nothing missing: the evidence decides.
            status = "covered"
        if status == "conflict" and (len(origins) < 2 or len(texts) < 2):
            status = "covered" if ids else "gap"
        if status == "covered" and not ids:
            status, gap = "gap", gap or "no evidence supports this sub-question yet"
        if status == "covered" and not addresses(
                question, [f"{by_id[e].get('title', '')} {by_id[e]['text']}" for e in ids]):
            status, gap = "gap", "the cited evidence does not address this sub-question"
        if status == "covered" and cross_check and (len(origins) < 2 or len(texts) < 2):
            status, gap = "gap", gap or "cross-check needs a second origin with different text"
        reason = (f"the assessment cites {', '.join(ids)}" if status == "covered"
                  else "the assessment found two origins that disagree" if status == "conflict"
                  else gap or "the assessment found no evidence for it")
        rows.append({"index": index, "question": question, "status": status, "evidence_ids": ids,
                     "gap": "" if status == "covered" else gap, "next_queries": queries if status == "gap" else [],
                     "reason": reason})
    return rows


def next_queries(coverage: Sequence[CoverageItem], asked: Sequence[str], limit: int) -> list[str]:
    """Queries for the next round: gaps' proposals, new ones only, at most ``limit``.

    Args:
        coverage: rows of :func:`normalize_coverage`.
        asked: every query already run in this task.
        limit: ``max_queries``.

    Returns:
        Distinct queries (case-insensitive), round-robin over the gaps.
    """
    seen = {q.strip().lower() for q in asked}
    lists = [list(row.get("next_queries", [])) for row in coverage if row.get("status") == "gap"]
    out: list[str] = []
    depth = max((len(x) for x in lists), default=0)
    for level in range(depth):
        for queries in lists:
            if level < len(queries) and queries[level].strip().lower() not in seen and len(out) < limit:
                seen.add(queries[level].strip().lower())
                out.append(queries[level].strip())
    return out


def research_blocker(request: ResearchRequest, used: Mapping[str, int], elapsed_seconds: float) -> str | None:
    """Why no new research round may start now, or None.

    Args:
        request: the request (budgets).
        used: budget counters ``search``, ``read``, ``model`` (charged so far).
        elapsed_seconds: seconds since the persisted start time.

    Returns:
        ``deadline``, ``model-budget``, ``search-budget``, ``page-budget`` or None.
    """
    if elapsed_seconds >= request.research_seconds:
        return "deadline"
    if used.get("model", 0) + 1 + SYNTHESIS_RESERVE > request.max_model_calls:
        return "model-budget"
    if used.get("search", 0) >= request.max_searches:
        return "search-budget"
    if used.get("read", 0) >= request.max_read_pages:
        return "page-budget"
    return None


def stop_after_round(
    request: ResearchRequest,
    round_number: int,
    coverage: Sequence[CoverageItem],
    empty_rounds: int,
    queries: Sequence[str],
    used: Mapping[str, int],
    elapsed_seconds: float,
    unread_side: bool = False,
) -> str | None:
    """The stop reason after a round's assessment, or None to run another round.

    Order: coverage-complete (not while a compared side's page is unread: the sub-questions may
    all be covered by one side), round-budget, deadline / model / search / page budgets,
    no-progress (two consecutive rounds without new evidence, or no new query to run).

    Args:
        request: the request.
        round_number: the 1-based round just assessed.
        coverage: its coverage rows.
        empty_rounds: consecutive rounds (this one included) that added no new evidence.
        queries: the next round's queries.
        used: budget counters.
        elapsed_seconds: seconds since the persisted start time.
        unread_side: a side the topic compares has no page read and is searched next
            (:func:`~ditto_nb.patterns.deep_research.queries.side_specs`).

    Returns:
        A stop reason, or None.
    """
    if coverage and all(row["status"] != "gap" for row in coverage) and not unread_side:
        return "coverage-complete"
    if round_number >= request.max_rounds:
        return "round-budget"
    blocker = research_blocker(request, used, elapsed_seconds)
    if blocker is not None:
        return blocker
    if empty_rounds >= 2 or not queries:
        return "no-progress"
    return None


__all__ = ["addresses", "next_queries", "normalize_coverage", "research_blocker", "stop_after_round"]
