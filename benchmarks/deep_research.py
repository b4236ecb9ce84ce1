"""Benchmark deep research over the demo corpus served by the sandbox web (offline).

For each topic: rounds, dispatches per budget (searches, reads, model calls), seconds,
coverage outcome counts and the stop reason, printed as a table (pandas).

Usage::

    python benchmarks/deep_research.py [--topics N] [--model scripted|local|local-small]
    python benchmarks/deep_research.py --mediawiki [--topics 10] [--model ...] [--wiki-folder DIR]
    python benchmarks/deep_research.py --mediawiki --half check [--bridge 20] [--comparison 10] [--model ...]

``--mediawiki`` runs each of the first ``--topics`` dev-150 questions as a topic over the real
MediaWiki (see ``wiki_research.py``: stop reason, rounds, calls, seconds, conclusions published /
withheld, lexical support of published conclusions, gold answer in the summary). With ``--half``,
the topics are the first ``--bridge`` bridge and ``--comparison`` comparison questions of that half
of the Web QA benchmark's split, on its 2,500-page wiki, and the issue-32 measures are added
(topic answer reached, coverage rows contradicting a conclusion, duplicate sub-questions,
``no-progress`` with budget left and an unfollowed lead).

``scripted`` uses a rule-based scripted model (word overlap between evidence and sub-question;
next queries from capitalised names in the evidence), so the numbers measure the pipeline, not a
model. ``local`` / ``local-small`` use the llama.cpp providers of the packaged ``ditto.yaml``.
Needs Redis at ``DITTO_WORKER_CONTEXT_REDIS_URL`` (default ``redis://127.0.0.1:6379/0``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd
import trustme

from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.deep_research import ResearchReport, ResearchRequest, open_research, run_research
from ditto_nb.patterns.tasks import create_task
from ditto_nb.runtime.config import load_runtime_config
from ditto_nb.testing.scripted_coverage import coverage_reply
from ditto_nb.sandbox import SandboxWeb, demo_corpus_path, load_corpus
from ditto_nb.sandbox.corpus import demo_questions_path
from ditto_nb.testing.scripted_config import scripted_runtime_config
from ditto_nb.testing.scripted_model import ScriptedModel

_LINE = re.compile(r"^\[(E\d+)\] \((\S+)\) (.*)$", re.M)
_WORD = re.compile(r"[a-z]{4,}")
_NAME = re.compile(r"\b([A-Z][a-z]+(?: [A-Z][a-z]+)*)\b")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def scripted_responder(request: dict[str, Any]) -> dict[str, Any]:
    """A rule-based stand-in model for the pipeline benchmark (see the module docstring)."""
    messages = request["messages"]
    purpose = messages[0]["content"].splitlines()[0].removeprefix("Task: ")
    user = messages[-1]["content"]
    lines = _LINE.findall(user)
    if purpose == "research-plan":
        topic = user.splitlines()[0].removeprefix("Topic: ")
        return {"clear": True, "goal": topic, "sub_questions": [topic], "queries": [topic], "clarification_questions": []}
    if purpose == "assess":
        questions = re.findall(r"^(\d+)\. (.*)$", user, re.M)
        asked = json.loads(re.search(r"Queries already run: (.*)$", user, re.M).group(1))  # type: ignore[union-attr]
        items = []
        for index, question in questions:
            ids = [eid for eid, _o, text in lines if len(_words(text) & _words(question)) >= 3]
            names = [n for _e, _o, text in lines for n in _NAME.findall(text) if n not in question and n not in asked]
            items.append({"index": int(index), "status": "covered" if len(ids) >= 2 else "gap", "evidence_ids": ids[:3],
                          "gap": "" if len(ids) >= 2 else "more evidence needed", "next_queries": names[:1]})
        return {"items": items}
    if purpose in ("report", "repair"):
        conclusions = [{"index": 1, "statement": text[:80], "chunk_id": eid, "quote": " ".join(text.split()[:8])}
                       for eid, _o, text in lines[:4]]
        return {"summary": "Findings from the evidence.", "conclusions": conclusions, "unknowns": []}
    if purpose == "coverage":
        return coverage_reply(user)
    if purpose == "compare":  # the stand-in does not compare: the comparison declines, naming no value
        return {"first": "", "second": "", "answer": "", "status": "insufficient-evidence"}
    return {"ok": True, "problems": []}


async def _one(web: SandboxWeb, config: Any, model: dict[str, str], topic: str, directory: Path) -> dict[str, Any]:
    request = {
        "id": directory.name, "tenant": "bench", "principal": "bench", "question": topic,
        "allowed_origins": list(web.allowed_origins), "max_queries": 2, "max_pages": 2, "max_rounds": 3,
        "max_searches": 6, "max_read_pages": 8, "max_model_calls": 12, "research_seconds": 600,
    }
    parsed = await create_task(directory, ResearchRequest.parse(request))
    app = await open_research(directory, parsed, config, SearchSetup.from_sandbox(web))
    started = time.perf_counter()
    try:
        report = await run_research(app.runtime, {"request": parsed, "model": model})
    finally:
        await app.close()
    assert isinstance(report, ResearchReport)
    statuses = [row["status"] for row in report.coverage]
    return {
        "topic": topic[:48], "rounds": len(report.rounds),
        "searches": report.budgets["search"]["used"], "reads": report.budgets["read"]["used"],
        "model_calls": report.budgets["model"]["used"], "seconds": round(time.perf_counter() - started, 2),
        "covered": statuses.count("covered"), "gap": statuses.count("gap"), "conflict": statuses.count("conflict"),
        "stop_reason": report.stop_reason,
    }


def _mediawiki(args: argparse.Namespace) -> None:
    """Topics from dev-150 over the real MediaWiki (see wiki_research.py)."""
    from wiki_research import research_benchmark, scripted_research
    from wiki_targets import COMPARISON_100, DEV_150, load_benchmark, load_questions, open_mediawiki, wiki_pages

    dev = args.hotpotqa or DEV_150
    if args.half:
        # the Web QA benchmark's split and 2,500-page wiki: the first --bridge bridge and --comparison
        # comparison questions of the half, in file order
        half = [q for q in load_benchmark() if q.half == args.half]
        questions = ([q for q in half if q.kind == "bridge"][: args.bridge]
                     + [q for q in half if q.kind != "bridge"][: args.comparison])
        if args.ids:  # the named topics of the half, in its order
            questions = [q for q in half if q.id in set(args.ids.split(","))]
        sources = [DEV_150, COMPARISON_100]
        folder = args.wiki_folder if args.wiki_folder != WIKI_FOLDER else Path(f"{WIKI_FOLDER}-250")
    else:
        questions = load_questions(dev, args.topics or 10, None)
        sources, folder = [dev], args.wiki_folder
    redis_url = os.environ.get("DITTO_WORKER_CONTEXT_REDIS_URL", "redis://127.0.0.1:6379/0")
    out = args.out or Path(tempfile.gettempdir()) / f"ditto-research-wiki-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    target = open_mediawiki(folder, wiki_pages(sources))
    scripted: ScriptedModel | None = None
    try:
        if args.model == "scripted":
            scripted = ScriptedModel().start()
            config = scripted_runtime_config(scripted, redis_url=redis_url)
            model = {"provider": "scripted", "model": scripted.model_name}
        else:
            from ditto_nb.local_model import ensure_local_provider

            config = load_runtime_config()
            config = config.model_copy(update={"context": config.context.model_copy(update={"redis_url": redis_url})})
            ensure_local_provider(config, args.model)
            model = {"provider": args.model, "model": config.provider(args.model).model or ""}

        def respond(q: Any) -> None:
            if scripted is not None:
                scripted.responder = scripted_research(q, scripted_responder)

        with tempfile.TemporaryDirectory() as tmp:
            tables = asyncio.run(research_benchmark(target, questions, config, model, Path(tmp), out, respond))
    finally:
        if scripted is not None:
            scripted.stop()
        target.close()
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    for title, frame in tables.items():
        print(f"\n{title}\n{frame.to_string(index=False)}")


WIKI_FOLDER = Path(tempfile.gettempdir()) / "ditto-nb-bench-wiki"
"""Default MediaWiki folder (dev-150's 1,500 pages); ``-250`` is the Web QA benchmark's."""


def main() -> None:
    """Parse arguments, run the topics, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=None, help="topics (default: 3 demo topics, 10 with --mediawiki)")
    parser.add_argument("--model", choices=["scripted", "local", "local-small"], default="scripted")
    parser.add_argument("--mediawiki", action="store_true", help="dev-150 questions as topics on the real MediaWiki")
    parser.add_argument("--hotpotqa", type=Path, default=None, help="HotpotQA JSONL (default dev-150)")
    parser.add_argument("--wiki-folder", type=Path, default=WIKI_FOLDER,
                        help="the MediaWiki's output folder (reused when a wiki runs there; with --half: "
                             "<default>-250, the Web QA benchmark's wiki)")
    parser.add_argument("--half", choices=["tuning", "check"], default=None,
                        help="topics from this half of the Web QA split (benchmarks/data/split.json), on the "
                             "2,500-page wiki of dev-150 + comparison-100")
    parser.add_argument("--bridge", type=int, default=20, help="with --half: bridge topics (first in file order)")
    parser.add_argument("--comparison", type=int, default=10, help="with --half: comparison topics")
    parser.add_argument("--ids", default=None, help="with --half: only these comma-separated question ids")
    parser.add_argument("--out", type=Path, default=None, help="JSONL file for per-topic rows")
    args = parser.parse_args()
    if args.mediawiki:
        _mediawiki(args)
        return
    topics = [json.loads(line)["question"] for line in demo_questions_path().read_text().splitlines() if line.strip()]
    redis_url = os.environ.get("DITTO_WORKER_CONTEXT_REDIS_URL", "redis://127.0.0.1:6379/0")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        web = SandboxWeb(load_corpus(demo_corpus_path()), Path(tmp) / "web", "wiki.test", ca=trustme.CA()).start()
        scripted: ScriptedModel | None = None
        try:
            if args.model == "scripted":
                scripted = ScriptedModel().start()
                scripted.responder = scripted_responder
                config = scripted_runtime_config(scripted, redis_url=redis_url)
                model = {"provider": "scripted", "model": scripted.model_name}
            else:
                config = load_runtime_config()
                provider = config.provider(args.model)
                model = {"provider": args.model, "model": provider.model or ""}
            for n, topic in enumerate(topics[: args.topics or 3]):
                rows.append(asyncio.run(_one(web, config, model, topic, Path(tmp) / f"topic-{n}")))
        finally:
            if scripted is not None:
                scripted.stop()
            web.close()
    frame = pd.DataFrame(rows)
    print(frame.to_string(index=False))
    print("\nstop reasons:", frame["stop_reason"].value_counts().to_dict())


if __name__ == "__main__":
    main()
