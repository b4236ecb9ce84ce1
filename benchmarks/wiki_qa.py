"""Web QA on a wiki of 250 HotpotQA questions' pages: ditto, a naive baseline and an oracle (``web_qa.py --mediawiki``).

Questions: the 150 bridge questions of ``dev-150.jsonl`` and the 100 comparison questions of
``comparison-100.jsonl`` (``../shared/data/hotpotqa``), split once into a tuning and a check half
(``benchmarks/data/split.json``, ``wiki_split.py``). Every context paragraph of all 250 questions is
one page of the same wiki, so each question searches among the others' pages.

Systems: ``ditto`` (the kit's Web QA through ``ditto_nb.batch.run_batch``: ``wiki_ditto.py``),
``naive`` and ``oracle`` (``wiki_systems.py``). Rows are appended to ``--out`` (JSONL) as they
complete; a run with the same ``--out`` (and ``--batch-dir``) skips the (target, system, question)
rows already there and resumes ditto's unfinished tasks from their Memory. The tables
(``wiki_tables.py``) are computed from every row of ``--out`` for the selected questions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from ditto_nb.runtime import ModelSelection, RuntimeConfig, load_runtime_config
from ditto_nb.testing import ScriptedModel, scripted_runtime_config
from ditto_nb.workers import create_infer_worker
from wiki_ditto import RULES_OFF_ENV, run_ditto_batch
from wiki_rows import append_rows, done_ids, read_rows
from wiki_split import HALVES, KINDS
from wiki_systems import run_baseline, scripted_dispatch
from wiki_tables import by_purpose, cost_table, halves_table, rules_table
from wiki_targets import (COMPARISON_100, DEV_150, Question, WikiTarget, load_benchmark, open_mediawiki, open_sandbox_and,
                          wiki_pages)

SYSTEMS = ("ditto", "naive", "oracle")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--mediawiki`` options of ``web_qa.py``."""
    wiki = parser.add_argument_group("(w) wiki benchmark: 250 HotpotQA questions, ditto vs naive vs oracle")
    wiki.add_argument("--mediawiki", action="store_true", help="run (w) on the real MediaWiki")
    wiki.add_argument("--sandbox-and", action="store_true", help="run (w) on the sandbox web (AND search if offered)")
    wiki.add_argument("--half", choices=(*HALVES, "both"), default="both", help="which half of the split (default both)")
    wiki.add_argument("--only-kind", choices=KINDS, default=None, help="one question kind only")
    wiki.add_argument("--ids", default=None, help="comma-separated question ids (within --half / --only-kind)")
    wiki.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated systems (default ditto,naive,oracle)")
    wiki.add_argument("--rules-off", default="", help=f"answer rules to switch off (NAME,NAME; sets ${RULES_OFF_ENV})")
    wiki.add_argument("--workers", type=int, default=1, help="Dask worker processes for ditto (default 1)")
    wiki.add_argument("--out", type=Path, default=None, help="JSONL rows; an existing file is resumed")
    wiki.add_argument("--batch-dir", type=Path, default=None, help="ditto's batch directory (default: --out + .batch)")
    wiki.add_argument("--also", type=Path, action="append", default=None,
                      help="another rows file whose rows (any system) join the tables, e.g. the baselines")
    wiki.add_argument("--report-only", action="store_true", help="print the tables of --out, run nothing")
    wiki.add_argument("--wiki-folder", type=Path, default=Path(tempfile.gettempdir()) / "ditto-nb-bench-wiki-250",
                      help="the MediaWiki's folder (built once, reused; a wiki running there is used as is)")
    wiki.add_argument("--scripted-latency", type=float, default=0.0,
                      help="--model scripted: seconds per model call (to test an interrupted run's resume)")
    wiki.add_argument("--max-queries", type=int, default=None, help="Web QA request max_queries (default: the request's)")
    wiki.add_argument("--max-pages", type=int, default=None, help="Web QA request max_pages (default: the request's)")


def select_questions(args: argparse.Namespace) -> list[Question]:
    """The questions of ``--half`` / ``--only-kind`` / ``--ids``; with ``--questions N`` the first N
    of each kind in each half. In stratified order (:func:`stratified`), so the rows of a run cut
    off early hold every kind and half in about the proportions of the whole."""
    questions = [q for q in load_benchmark() if args.half in ("both", q.half) and args.only_kind in (None, q.kind)]
    if args.ids:
        wanted = set(args.ids.split(","))
        questions = [q for q in questions if q.id in wanted]
    if args.questions:
        seen: dict[tuple[str, str], int] = {}
        kept = []
        for q in questions:
            seen[(q.half, q.kind)] = seen.get((q.half, q.kind), 0) + 1
            if seen[(q.half, q.kind)] <= args.questions:
                kept.append(q)
        questions = kept
    return stratified(questions)


def stratified(questions: list[Question]) -> list[Question]:
    """Questions ordered by their position within their (half, kind) group relative to its size
    (ties: the group's first-seen order): any prefix is close to a stratified sample."""
    groups: dict[tuple[str, str], list[Question]] = {}
    for q in questions:
        groups.setdefault((q.half, q.kind), []).append(q)
    order = list(groups)
    keyed = [((n + 0.5) / len(members), order.index(key), q)
             for key, members in groups.items() for n, q in enumerate(members)]
    return [q for _, _, q in sorted(keyed, key=lambda item: (item[0], item[1]))]


def _local_config(profile: str, redis_url: str | None) -> tuple[RuntimeConfig, str]:
    from ditto_nb.local_model import ensure_local_provider

    base = load_runtime_config(os.environ)
    config = base.model_copy(update={
        "model": ModelSelection(provider=profile, model=base.providers[profile].model or profile),
        "context": base.context.model_copy(update={"redis_url": redis_url}),
    })
    return config, ensure_local_provider(config, profile)


def wiki_benchmark(args: argparse.Namespace) -> dict[str, pd.DataFrame]:
    """Run the selected systems on the selected questions (resuming ``--out``); return the tables.

    Ditto's batch runs in this (main) thread, so Ctrl-C stops it (and its Dask cluster) at once;
    the baselines run in an event loop afterwards."""
    if args.report_only and args.out is None:
        raise SystemExit("--report-only needs --out (the rows to tabulate)")
    questions = select_questions(args)
    profile = args.model or "local"
    out = args.out or Path(tempfile.gettempdir()) / f"ditto-web-qa-wiki-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    systems = tuple(s.strip() for s in args.systems.split(",") if s.strip())
    budgets = {key: value for key, value in (("max_queries", args.max_queries), ("max_pages", args.max_pages)) if value}
    names = [name for name, wanted in (("mediawiki", args.mediawiki), ("sandbox-and", args.sandbox_and)) if wanted]
    notes: list[str] = []
    print(f"(w) {len(questions)} questions ({args.half}) x {names} x {systems}, model {profile}, rules off "
          f"{args.rules_off or '-'}; rows -> {out}", flush=True)
    if not args.report_only:
        pages = wiki_pages([DEV_150, COMPARISON_100])
        with contextlib.ExitStack() as stack:
            for name in names:
                target = open_mediawiki(args.wiki_folder, pages) if name == "mediawiki" else \
                    open_sandbox_and(pages, Path(tempfile.mkdtemp(prefix="ditto-bench-sandbox-")))
                stack.callback(target.close)
                notes.append(f"{target.name}: {target.note}")
                _run_target(args, target, questions, systems, profile, budgets, out, notes, stack)
    selected = {q.id for q in questions}
    rows = [r for r in read_rows(out) if r.get("id") in selected and r.get("system") in systems
            and (not names or r.get("target") in names)]
    for extra in args.also or []:  # e.g. the naive / oracle baselines of the same half, run once
        have = {(r.get("target"), r.get("system"), r.get("id")) for r in rows}
        rows += [r for r in read_rows(extra) if r.get("id") in selected and (not names or r.get("target") in names)
                 and (r.get("target"), r.get("system"), r.get("id")) not in have]
    models = sorted({str(r["model"]) for r in rows if r.get("model")}) or [profile]
    offs = sorted({str(r.get("rules_off") or "-") for r in rows if r.get("system") == "ditto"}) or [args.rules_off or "-"]
    title = f"model {', '.join(models)}, rules off {'; '.join(offs)}; rows in {out}"
    return {
        f"(w1) per kind, halves side by side ({title})": halves_table(rows),
        "(w2) cost per half and system": cost_table(rows),
        "(w3) answer rules (report answer.rules): fired / changed / made right / made wrong": rules_table(rows),
        "(w4) ditto's model calls per purpose (calls made in this run of each task)": by_purpose(rows),
        "(w5) notes": pd.DataFrame({"note": notes}),
    }


def _run_target(args: argparse.Namespace, target: WikiTarget, questions: list[Question], systems: tuple[str, ...],
                profile: str, budgets: dict[str, int], out: Path, notes: list[str], stack: contextlib.ExitStack) -> None:
    if profile == "scripted":
        scripted = stack.enter_context(ScriptedModel())
        scripted.responder = scripted_dispatch(questions)
        scripted.latency_seconds = args.scripted_latency
        config, base_urls = scripted_runtime_config(scripted, redis_url=args.redis_url), {}
    else:
        config, base_url = _local_config(profile, args.redis_url)
        base_urls = {profile: base_url}
    existing = read_rows(out)
    if "ditto" in systems:
        todo = [q for q in questions if q.id not in done_ids(existing, target.name, "ditto")]
        batch_dir = args.batch_dir or out.with_suffix(".batch")
        model = {"provider": config.model.provider, "model": config.model.model}
        print(f"ditto: {len(todo)} of {len(questions)} questions to run (batch {batch_dir})", flush=True)
        _, note = run_ditto_batch(todo, target, config, model, batch_dir, budgets, args.workers, args.rules_off, out)
        notes.append(f"ditto: {note}; {RULES_OFF_ENV}={args.rules_off or '(unset)'}")
    baselines = [s for s in systems if s != "ditto"]  # question by question, so a cut-off run covers
    pending = [(q, s) for q in questions for s in baselines  # the same questions for each
               if q.id not in done_ids(existing, target.name, s)]
    if baselines:
        print(f"{'/'.join(baselines)}: {len(pending)} of {len(questions) * len(baselines)} rows to run", flush=True)
        asyncio.run(_run_baselines(pending, target, config, base_urls, out))


async def _run_baselines(pending: list[tuple[Question, str]], target: WikiTarget, config: RuntimeConfig,
                         base_urls: dict[str, str], out: Path) -> None:
    infer = create_infer_worker(config, os.environ, base_urls)
    try:
        for n, (q, system) in enumerate(pending, start=1):
            row = await run_baseline(system, q, target, config, infer)
            append_rows(out, [row])
            print(f"[{target.name} {system} {n}/{len(pending)}] {q.half:6} {q.kind:17} {row['status']} "
                  f"{'OK' if row['contained'] else '--'} {row['seconds']}s", flush=True)
    finally:
        close = getattr(infer, "close", None)
        if close is not None:
            await close()


__all__ = ["SYSTEMS", "add_arguments", "select_questions", "wiki_benchmark"]
