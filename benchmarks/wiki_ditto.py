"""Ditto on the wiki benchmark, through the batch path: ``ditto_nb.batch.run_batch`` on Dask.

Each question is one Web QA request with a stable id (``bench-<question id>``), so its task
directory in the batch directory stays the same between runs: a run that was interrupted resumes
every unfinished task from its Memory (completed model calls, searches and reads are not repeated),
and questions that already have a row in the output file are not submitted at all.

Per task the row carries what the batch row holds with ``detail=True``: the report JSON, the pages
read (the task ledger's completed reads) and this run's model calls. From these it adds
``both_read``, ``quote_exceptions`` (published quotes not found on a fresh read of their page),
``rules`` (the report's ``answer.rules`` trace, [] while the kit writes none) and ``rules_off``.

The wiki's access log cannot tell concurrent tasks apart, so "both pages read" comes from each
task's ledger; the server's count of page requests during the batch is reported beside the
ledgers' total as a cross-check (equal when no task was resumed from a read already made and
nothing else read from the wiki meanwhile).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ditto_nb.batch import run_batch
from ditto_nb.errors import DittoError
from ditto_nb.patterns.web_qa import WebQaRequest
from ditto_nb.runtime import RuntimeConfig
from ditto_nb.sandbox.mediawiki_files import wiki_title
from ditto_nb.text import normalize_text
from ditto_nb.web import read_page
from wiki_rows import append_rows, score
from wiki_targets import Question, WikiTarget

RULES_OFF_ENV = "DITTO_RULES_OFF"
"""Environment variable the kit reads: comma-separated answer rules to switch off."""
_STATUSES = ("answered", "insufficient-evidence", "conflicting-evidence", "needs-clarification")


def request_id(q: Question) -> str:
    """The stable Web QA request id of a question (names its task directory)."""
    return f"bench-{q.id}"


def _title_of(url: str) -> str:
    path = urlsplit(url).path
    name = unquote(path[len("/wiki/"):]).replace("_", " ") if path.startswith("/wiki/") else path
    return wiki_title(name) or name


async def _quote_exceptions(report: dict[str, Any], target: WikiTarget) -> tuple[int, int]:
    """(published quotes not found on a fresh read of their page, pages read for the check)."""
    missing = reads = 0
    policy = target.search.page_policy(target.allowed_origins)
    for claim in (report.get("answer") or {}).get("claims") or []:
        for citation in claim.get("citations") or []:
            try:
                reads += 1
                page = await read_page(citation["final_url"], policy=policy)
                text = normalize_text(" ".join(page.paragraphs))
            except DittoError:
                text = ""
            missing += normalize_text(citation.get("quote", "")) not in text
    return missing, reads


def ditto_row(raw: dict[str, Any], q: Question, target: WikiTarget, rules_off: str, model: str = "") -> dict[str, Any]:
    """A scored benchmark row from a batch row (``run_batch(..., detail=True)``)."""
    report = raw.get("report") or {}
    answer = report.get("answer") or {}
    rules = raw.get("rules") or (answer.get("rules") if isinstance(answer.get("rules"), list) else [])
    status = str(raw.get("status") or "")
    calls = raw.get("calls") or []
    read = {_title_of(url) for url in raw.get("pages_read") or []}
    exceptions, checks = asyncio.run(_quote_exceptions(report, target)) if report else (0, 0)
    row = {
        "target": target.name, "system": "ditto", "model": model, "status": status if status in _STATUSES else f"failed: {status}",
        "answer": str(raw.get("answer") or ""), "error": raw.get("error", ""), "calls": int(raw.get("model_calls") or 0),
        "new_calls": int(raw.get("new_model_calls") or 0), "attempts": raw.get("attempts"),
        "prompt_tokens": sum(int(c["prompt_tokens"]) for c in calls),
        "completion_tokens": sum(int(c["completion_tokens"]) for c in calls),
        "by_purpose": [[c["purpose"] or "?", c["prompt_tokens"], c["completion_tokens"], c["seconds"]] for c in calls],
        "seconds": raw.get("seconds"), "worker": raw.get("worker", ""), "pages_read": sorted(read), "reads": len(raw.get("pages_read") or []),
        "gold_pages_read": len(set(q.gold_titles) & read), "both_read": set(q.gold_titles) <= read,
        "quote_exceptions": exceptions, "quote_check_reads": checks,
        "rules": rules, "rules_off": rules_off,
    }
    return score(row, q)


def _check_batch_dir(batch_dir: Path, settings: dict[str, Any]) -> None:
    """Refuse to resume a batch directory made with other settings (its tasks would replay them)."""
    batch_dir.mkdir(parents=True, exist_ok=True)
    marker = batch_dir / "bench-settings.json"
    if marker.is_file():
        before = json.loads(marker.read_text(encoding="utf-8"))
        if before != settings:
            raise SystemExit(f"{batch_dir} holds tasks run with {before}, not {settings}: "
                             "use another --batch-dir (and --out) for these settings")
    else:
        marker.write_text(json.dumps(settings), encoding="utf-8")


def run_ditto_batch(questions: list[Question], target: WikiTarget, config: RuntimeConfig, model: dict[str, str],
                    batch_dir: Path, budgets: dict[str, int], workers: int, rules_off: str,
                    out: Path) -> tuple[list[dict[str, Any]], str]:
    """Run (or resume) ditto on ``questions`` through ``run_batch``; append each row to ``out`` as it
    arrives. Returns the rows and a note (server page requests vs the ledgers' reads)."""
    _check_batch_dir(batch_dir, {"target": target.name, "model": model, "budgets": budgets, "rules_off": rules_off})
    if rules_off:
        os.environ[RULES_OFF_ENV] = rules_off  # the LocalCluster's worker processes inherit it
    else:
        os.environ.pop(RULES_OFF_ENV, None)
    by_id = {request_id(q): q for q in questions}
    requests = [WebQaRequest.parse({"id": request_id(q), "tenant": "bench", "principal": "bench", "question": q.question,
                                    "allowed_origins": list(target.allowed_origins), **budgets}) for q in questions]
    rows: list[dict[str, Any]] = []
    started, mark = time.perf_counter(), target.mark()

    def on_row(raw: dict[str, Any]) -> None:
        row = ditto_row(raw, by_id[raw["id"]], target, rules_off, model["model"])
        append_rows(out, [row])
        rows.append(row)
        print(f"[{target.name} ditto {len(rows)}/{len(questions)}] {row['half']:6} {row['kind']:17} {row['status']} "
              f"{'OK' if row['contained'] else '--'} {row['seconds']}s calls {row['calls']} (new {row['new_calls']}) "
              f"rules {[r.get('rule') for r in row['rules']]}", flush=True)

    if requests:
        run_batch(requests, directory=batch_dir, config=config, search=target.search, model=model,
                  n_workers=workers, progress=False, on_row=on_row, detail=True)
    served = len(target.titles_since(mark)) - sum(r["quote_check_reads"] for r in rows)
    ledger = sum(r["reads"] for r in rows)
    note = (f"{len(rows)} tasks in {time.perf_counter() - started:.0f} s on {workers} worker(s); page requests at the "
            f"server {served} (quote checks not counted), pages in the task ledgers {ledger}")
    return rows, note


__all__ = ["RULES_OFF_ENV", "ditto_row", "request_id", "run_ditto_batch"]
