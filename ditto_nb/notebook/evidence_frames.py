"""The evidence frame: every paragraph of the pages read, whether it was selected or cited, and why not.

Web QA reads ``stage/selected`` (candidates and the model's selection); deep research reads the
stored evidence (``stage/evidence``, see :func:`research_evidence`; nothing is recomputed) and the
report's cited chunks. Quotes and their offsets come from the report's citations.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ditto_nb.notebook.memory_view import TaskRef, TaskView, as_view
from ditto_nb.notebook.quotes import citations, page_chunk_id, page_paragraphs
from ditto_nb.notebook.table import frame, ledger_outputs

EVIDENCE_COLUMNS = ["chunk_id", "page_chunk_id", "origin", "title", "final_url", "mirror_of", "paragraph_index",
                    "start", "end", "text", "quote", "selected", "reason"]


def research_evidence(view: TaskView) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The research evidence as the pattern stored it, and what the 48,000-character cap left out.

    Reads ``stage/evidence`` once written (at synthesis). Before that, nothing is recomputed: the
    rows are the paragraphs of the pages each round read (``round/<n>/reads`` and the stored
    page reads, :func:`~ditto_nb.notebook.quotes.page_paragraphs`), with their round and no
    ``E<n>`` id; the cap is applied and recorded at synthesis.

    Args:
        view: a research task view.

    Returns:
        ``(items, omitted)``: evidence items (chunk fields + ``round``, + ``id`` once stored) and
        omitted chunks (empty before synthesis).
    """
    stored = view.stage("evidence")
    if isinstance(stored, dict):
        return list(stored.get("items", [])), list(stored.get("omitted", []))
    round_of_url: dict[str, int] = {}
    for number, plan in sorted(((int(k.split("/")[0]), v) for k, v in view.prefixed("round/") if k.endswith("/reads")),
                            key=lambda pair: pair[0]):
        for url in (plan or {}).get("urls", []):
            round_of_url.setdefault(str(url), number)
    round_of_page: dict[str, int] = {}
    for _key, out in ledger_outputs(view, "read"):
        found = round_of_url.get(str(out.get("url")))
        if found is not None and out.get("final_url"):
            round_of_page.setdefault(str(out["final_url"]), found)
    items = [{**para.model_dump(exclude={"url"}), "round": round_of_page[para.final_url]}
             for para in page_paragraphs(view) if para.final_url in round_of_page]
    return items, []


def _cited(view: TaskView) -> dict[str, dict[str, Any]]:
    """First citation per page chunk id in the report: ``{"<chunk_id>@<final_url>": citation}``."""
    cited: dict[str, dict[str, Any]] = {}
    for c in citations(view):
        cited.setdefault(page_chunk_id(str(c["chunk_id"]), str(c["final_url"])), c)
    return cited


def _web_qa_evidence(view: TaskView) -> list[dict[str, Any]]:
    selected_stage = view.stage("selected")
    candidates = {c["chunk_id"] for c in (selected_stage or {}).get("candidates", [])}
    chosen = set((selected_stage or {}).get("selected", []))
    rows: list[dict[str, Any]] = []
    for para in page_paragraphs(view):
        if selected_stage is None:
            selected, reason = None, "selection not run yet"
        elif para.chunk_id in chosen:
            selected, reason = True, ""
        elif para.chunk_id in candidates:
            selected, reason = False, "not selected by the model"
        else:
            selected, reason = False, "not a candidate (low overlap with question and queries)"
        rows.append({**para.model_dump(exclude={"url"}), "selected": selected, "reason": reason})
    return rows


def _research_evidence(view: TaskView) -> list[dict[str, Any]]:
    items, omitted = research_evidence(view)
    report = view.report
    cited_ids = {str(c.get("chunk_id")) for c in (report or {}).get("cited_chunks", [])}
    left_out = {str(o.get("chunk_id")): str(o.get("reason")) for o in [*omitted, *((report or {}).get("omitted", []))]}
    rows: list[dict[str, Any]] = []
    for item in items:
        cid = str(item["chunk_id"])
        if report is None:
            selected, reason = None, "report not written yet"
        elif cid in cited_ids:
            selected, reason = True, ""
        else:
            selected, reason = False, left_out.get(cid, "not cited by the report")
        rows.append({**item, "selected": selected, "reason": reason})
    rows += [{"chunk_id": o.get("chunk_id"), "origin": None, "paragraph_index": None, "text": None,
              "selected": False, "reason": o.get("reason")} for o in omitted]
    return rows


def evidence_frame(task: TaskRef) -> pd.DataFrame:
    """Evidence chunks (one per extracted paragraph of the pages read), selected or why omitted.

    Args:
        task: the task directory (or view).

    Returns:
        One row per paragraph *of each page* (mirror pages keep their own rows and attribution).
        Columns ``chunk_id`` (``<sha256[:12]>:<paragraph index>``, content-addressed, shared by
        mirrors), ``page_chunk_id`` (``<chunk_id>@<final_url>``, see
        :func:`~ditto_nb.notebook.quotes.page_chunk_id`), ``origin``, ``title``, ``final_url``,
        ``mirror_of`` (final URL of the first page with the same content, else None: mirrors
        count once), ``paragraph_index``
        (0-based), ``start``/``end`` (character offsets ``[start, end)`` of the cited quote in the
        paragraph, None when not cited), ``text`` (normalized paragraph), ``quote`` (the cited
        quote or None), ``selected`` (True/False; None before the selection/report) and
        ``reason`` ("" when selected; else why omitted, e.g. ``not selected by the model``,
        ``evidence-cap``, ``chunk-cap``). Empty before any page was read.
    """
    view = as_view(task)
    rows = _web_qa_evidence(view) if view.pattern == "web_qa" else _research_evidence(view)
    cited = _cited(view)
    for row in rows:
        if row.get("final_url") and not row.get("page_chunk_id"):
            row["page_chunk_id"] = page_chunk_id(str(row["chunk_id"]), str(row["final_url"]))
        c = cited.get(str(row.get("page_chunk_id")))
        row.update(quote=c.get("quote") if c else None, start=c.get("start") if c else None,
                   end=c.get("end") if c else None)
    return frame(rows, EVIDENCE_COLUMNS, ints=("paragraph_index", "start", "end"))


__all__ = ["EVIDENCE_COLUMNS", "evidence_frame", "research_evidence"]
