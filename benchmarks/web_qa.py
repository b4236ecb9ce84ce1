"""Benchmark Web QA offline: the kit's own overhead, latency hiding, replay, and answer quality.

One run prints four tables (pandas):

(a) ``overhead``: the scripted model at zero latency over the sandbox web (demo corpus): seconds
    per complete run (open the task, run every stage, publish, close) and per stage Graph.
(b) ``latency``: the scripted model answering each call after 0.2 s and every sandbox page after
    0.3 s (``SandboxPage.delay_seconds``): actual wall time beside the critical-path ideal computed
    from the stage structure — model calls are sequential (each needs the previous stage's output)
    and the pages of the ``read`` stage are fetched in parallel, so
    ``ideal = model_calls × 0.2 s + (1 if any page was read) × 0.3 s``.
(c) ``replay``: re-running a completed task in the same directory (no model call, no page fetch).
(d) ``quality`` (skipped by ``--skip-local``): the local llama.cpp model (``--model local`` 1.5B or
    ``local-small`` 0.5B) on ``--questions N`` questions of ``ditto_nb/data/demo_questions.jsonl``
    (or a real HotpotQA file with ``--hotpotqa FILE``, whose paragraphs become the sandbox corpus):
    answered / correct / insufficient / failed, exact match and token F1 against the gold answer,
    model calls and seconds per question, beside a naive baseline on the same model and sandbox
    (one search with the question, the top pages, one answer call, no checks).

EM and F1 follow the official SQuAD v1.1 evaluation script (Rajpurkar et al., 2016,
``evaluate-v1.1.py``; also used by HotpotQA): lower-case, drop punctuation, drop the articles
a/an/the, collapse whitespace; F1 over the multiset of tokens.

(w) ``--mediawiki`` / ``--sandbox-and`` (instead of a-d): ditto (through ``run_batch``), a naive
    baseline and an oracle on one wiki holding the pages of 250 HotpotQA questions (dev-150's 150
    bridge and comparison-100's 100 comparison questions), the tuning and check halves of the fixed
    split side by side, per question kind, plus a per-rule table. See ``wiki_qa.py``.

Usage::

    python benchmarks/web_qa.py [--runs 5] [--skip-local] [--model local|local-small]
                                [--questions 3] [--hotpotqa FILE] [--redis-url URL]
    python benchmarks/web_qa.py --mediawiki [--model local|local-small|scripted] [--half tuning|check|both]
                                [--questions N per kind and half] [--systems ditto,naive,oracle]
                                [--rules-off NAME,NAME] [--workers 1] [--out FILE] [--batch-dir DIR]

Needs Redis (``--redis-url``, default ``$DITTO_WORKER_CONTEXT_REDIS_URL`` or
``redis://127.0.0.1:6379/0``). Everything else runs on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd
import trustme
from pydantic import BaseModel, Field

from ditto_nb.errors import DittoError
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.tasks import create_task
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest, open_web_qa, run_web_qa
from ditto_nb.patterns.web_qa.prompts import evidence_lines, purpose_of
from ditto_nb.runtime import INFER_REASONING_SAMPLE, GraphRecord, ModelSelection, RuntimeConfig, load_runtime_config
from ditto_nb.sandbox import (
    HotpotQuestion,
    SandboxPage,
    SandboxWeb,
    demo_corpus_path,
    demo_questions_path,
    import_hotpotqa,
    load_corpus,
    load_hotpotqa_questions,
)
from ditto_nb.testing import ScriptedModel, scripted_runtime_config
from ditto_nb.web import read_page
from ditto_nb.workers import create_infer_worker
from hotpot_eval import exact_match, normalize_answer, token_f1
from wiki_qa import add_arguments, wiki_benchmark

MODEL_LATENCY_SECONDS = 0.2
PAGE_DELAY_SECONDS = 0.3
_SENTENCE = re.compile(r"[^.]*\.")


# --- the scripted stand-in model (pipeline benchmarks a–c) ---------------------------------------
class ScriptedAnswers:
    """Rule-based replies: queries are the question's supporting titles; the answer quotes the
    sentences naming the gold answer. It measures the pipeline, not a model."""

    def __init__(self, question: HotpotQuestion) -> None:
        self.question = question

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        purpose = purpose_of(request["messages"])
        user = request["messages"][-1]["content"]
        chunks = [(line.label, line.text) for line in evidence_lines(user)]
        if purpose == "plan":
            return {"normalized_question": self.question.question, "queries": list(self.question.supporting_titles[:2]),
                    "needs_clarification": False, "clarification": ""}
        if purpose == "select":
            return {"selected": [label for label, _ in chunks], "missing": [], "conflicts": []}
        if purpose in ("answer", "repair"):
            claims = []
            for label, text in chunks:
                quote = next((s.strip() for s in _SENTENCE.findall(text) if self.question.answer in s), None)
                if quote:
                    claims.append({"claim": f"The answer is {self.question.answer}.", "chunk_id": label, "quote": quote})
            return {"status": "answered" if claims else "insufficient-evidence", "answer": self.question.answer,
                    "claims": claims[:2]}
        count = len(re.findall(r"^\d+\. Claim:", user, re.M))
        return {"verdicts": [{"n": n, "supported": True, "reason": "quoted"} for n in range(1, count + 1)]}


# --- one task ------------------------------------------------------------------------------------
def make_request(web: SandboxWeb, task_id: str, question: str) -> WebQaRequest:
    """A request over every origin of the sandbox (2 queries, 4 pages, no cross-check)."""
    return WebQaRequest.parse({
        "id": task_id, "tenant": "bench", "principal": "bench", "question": question,
        "allowed_origins": list(web.allowed_origins), "max_queries": 2, "max_pages": 4,
        "cross_check": False, "allow_partial": True,
    })


async def run_one(
    directory: Path, request: WebQaRequest, config: RuntimeConfig, search: SearchSetup
) -> tuple[Any, list[GraphRecord], float, int]:
    """Create/open the task, run it to the end, close. Returns (result, trace, seconds, model calls)."""
    records: list[GraphRecord] = []
    started = time.perf_counter()
    await create_task(directory, request, search)
    app = await open_web_qa(directory, request, config, search)
    try:
        model = {"provider": config.model.provider, "model": config.model.model}
        result = await run_web_qa(app.runtime, {"request": request, "model": model}, on_graph=records.append)
        calls = len(app.infer.calls)
    finally:
        await app.close()
    return result, records, time.perf_counter() - started, calls


def _start_sandbox(pages: list[SandboxPage], workdir: Path, ca: trustme.CA, delay: float = 0.0) -> SandboxWeb:
    if delay:
        pages = [page.model_copy(update={"delay_seconds": delay}) for page in pages]
    return SandboxWeb(pages, workdir, ca=ca).start()


# --- (a) (b) (c) ---------------------------------------------------------------------------------
async def pipeline_tables(runs: int, redis_url: str | None, root: Path) -> dict[str, pd.DataFrame]:
    """Run benchmarks (a), (b) and (c) with the scripted model; return their tables."""
    question = load_hotpotqa_questions(demo_questions_path())[0]
    pages = load_corpus(demo_corpus_path())
    ca = trustme.CA()
    tables: dict[str, pd.DataFrame] = {}
    with ScriptedModel() as model:
        model.responder = ScriptedAnswers(question)
        config = scripted_runtime_config(model, redis_url=redis_url)
        web = _start_sandbox(pages, root / "web-a", ca)
        try:
            search = SearchSetup.from_sandbox(web)
            totals, stage_rows = [], []
            first: WebQaReport | None = None
            for n in range(runs):
                request = make_request(web, f"bench-a-{os.getpid()}-{n}", question.question)
                result, records, seconds, _ = await run_one(root / f"a{n}", request, config, search)
                assert isinstance(result, WebQaReport) and result.answer.status == "answered", result
                first = first or result
                totals.append(seconds)
                stage_rows += [{"stage": r.name, "seconds": r.seconds} for r in records]
            frame = pd.DataFrame(stage_rows).groupby("stage", sort=False)["seconds"].agg(["mean", "median", "max"])
            frame.loc["complete run (open → publish → close)"] = [
                sum(totals) / len(totals), sorted(totals)[len(totals) // 2], max(totals)]
            tables["(a) kit overhead, scripted model at zero latency (seconds)"] = frame.round(4)

            before = web.request_count
            calls_before = model.call_count
            started = time.perf_counter()
            replayed, _, _, _ = await run_one(root / "a0", make_request(web, f"bench-a-{os.getpid()}-0", question.question),
                                              config, search)
            replay_seconds = time.perf_counter() - started
            tables["(c) replay of a completed task"] = pd.DataFrame([{
                "replay seconds": round(replay_seconds, 4),
                "model calls": model.call_count - calls_before,
                "page/search requests": web.request_count - before,
                "same report": first is not None and replayed == first,
            }])
        finally:
            web.close()

        model.latency_seconds = MODEL_LATENCY_SECONDS
        web = _start_sandbox(pages, root / "web-b", ca, delay=PAGE_DELAY_SECONDS)
        try:
            search = SearchSetup.from_sandbox(web)
            rows = []
            for n in range(max(1, min(runs, 3))):
                request = make_request(web, f"bench-b-{os.getpid()}-{n}", question.question)
                requests_before = len(web.requests)
                result, records, seconds, calls = await run_one(root / f"b{n}", request, config, search)
                stages = {r.name: r.seconds for r in records}
                fetched = [path for _host, path in web.requests[requests_before:] if "api.php" not in path]
                page_reads = bool(fetched)
                ideal = calls * MODEL_LATENCY_SECONDS + (PAGE_DELAY_SECONDS if page_reads else 0.0)
                loop_seconds = sum(r.seconds for r in records)
                rows.append({"run": n, "model calls": calls, "page fetches": len(fetched),
                             "read stage s": round(stages.get("read", 0.0), 3), "loop wall s": round(loop_seconds, 3),
                             "complete run s": round(seconds, 3), "critical-path ideal s": round(ideal, 3),
                             "loop / ideal": round(loop_seconds / ideal, 3)})
            tables[f"(b) injected latency: model call {MODEL_LATENCY_SECONDS} s, page {PAGE_DELAY_SECONDS} s"] = pd.DataFrame(rows)
        finally:
            web.close()
    return tables


# --- (d) the local model -------------------------------------------------------------------------
class NaiveAnswer(BaseModel):
    """Output of the naive baseline's single call."""

    answer: str = Field(description="The answer in a few words.")


async def naive_baseline(question: str, web: SandboxWeb, config: RuntimeConfig, infer: Any, pages: int = 3) -> dict[str, Any]:
    """One search with the question, the top ``pages`` pages, one answer call, no checks."""
    started = time.perf_counter()
    search = SearchSetup.from_sandbox(web)
    hits = await search.build_provider().search(question, pages)
    texts = []
    for hit in hits[:pages]:
        page = await read_page(hit.url, policy=search.page_policy(web.allowed_origins))
        texts.append(f"{page.title}: " + " ".join(page.paragraphs)[:1500])
    messages = [
        {"role": "system", "content": "Task: naive-answer\nAnswer the question in a few words using the pages. "
                                      'Reply with JSON: {"answer": str}'},
        {"role": "user", "content": f"Question: {question}\nPages:\n" + "\n".join(texts)},
    ]
    output = await infer.execute(INFER_REASONING_SAMPLE, {
        "provider": config.model.provider, "model": config.model.model, "messages": messages,
        "output_schema": NaiveAnswer, "purpose": "naive-answer"})
    return {"answer": output["output"]["answer"], "seconds": time.perf_counter() - started, "calls": 1}


async def quality_tables(
    model_profile: str, count: int, hotpotqa: Path | None, redis_url: str | None, root: Path
) -> dict[str, pd.DataFrame]:
    """Run benchmark (d) with the local model; return the per-question and summary tables."""
    from ditto_nb.local_model import ensure_local_provider

    base = load_runtime_config(os.environ)
    provider = base.providers[model_profile]
    config = base.model_copy(update={
        "model": ModelSelection(provider=model_profile, model=provider.model or model_profile),
        "context": base.context.model_copy(update={"redis_url": redis_url}),
    })
    started = time.perf_counter()
    base_url = ensure_local_provider(config, model_profile)
    server_seconds = time.perf_counter() - started
    if hotpotqa is not None:
        pages, questions = import_hotpotqa(hotpotqa), load_hotpotqa_questions(hotpotqa)
    else:
        pages, questions = load_corpus(demo_corpus_path()), load_hotpotqa_questions(demo_questions_path())
    questions = questions[:count]
    rows = []
    web = _start_sandbox(pages, root / "web-d", trustme.CA())
    infer = create_infer_worker(config, os.environ, {model_profile: base_url})
    try:
        search = SearchSetup.from_sandbox(web)
        for n, q in enumerate(questions):
            request = make_request(web, f"bench-d-{os.getpid()}-{n}", q.question)
            row: dict[str, Any] = {"id": q.id, "gold": q.answer}
            t0 = time.perf_counter()
            try:
                result, _, seconds, calls = await run_one(root / f"d{n}", request, config, search)
                assert isinstance(result, WebQaReport)
                row |= {"kit status": result.answer.status, "kit answer": result.answer.text[:80],
                        "kit calls": calls, "kit s": round(seconds, 1)}
                text = result.answer.text if result.answer.status == "answered" else ""
            except DittoError as exc:
                row |= {"kit status": f"failed: {type(exc).__name__}", "kit answer": "", "kit calls": None,
                        "kit s": round(time.perf_counter() - t0, 1)}
                text = ""
            row |= {"kit EM": exact_match(text, q.answer), "kit F1": round(token_f1(text, q.answer), 3),
                    "kit gold in answer": normalize_answer(q.answer) in normalize_answer(text) if text else False}
            try:
                naive = await naive_baseline(q.question, web, config, infer)
                row |= {"naive answer": naive["answer"][:60], "naive EM": exact_match(naive["answer"], q.answer),
                        "naive F1": round(token_f1(naive["answer"], q.answer), 3), "naive calls": 1,
                        "naive s": round(naive["seconds"], 1)}
            except DittoError as exc:
                row |= {"naive answer": f"failed: {type(exc).__name__}", "naive EM": 0.0, "naive F1": 0.0,
                        "naive calls": 1, "naive s": None}
            rows.append(row)
            print(f"  {q.id}: {row['kit status']} ({row['kit s']} s)", flush=True)
    finally:
        close = getattr(infer, "close", None)
        if close is not None:
            await close()
        web.close()
    frame = pd.DataFrame(rows)
    statuses = frame["kit status"]
    summary = pd.DataFrame([
        {"system": f"ditto web_qa ({model_profile})", "questions": len(frame),
         "answered": int((statuses == "answered").sum()),
         "correct (EM)": int(frame["kit EM"].sum()), "mean F1": round(frame["kit F1"].mean(), 3),
         "gold in answer": int(frame["kit gold in answer"].sum()),
         "insufficient": int((statuses == "insufficient-evidence").sum()),
         "failed": int(statuses.str.startswith("failed").sum()),
         "calls / q": round(pd.to_numeric(frame["kit calls"]).mean(), 2),
         "s / q": round(frame["kit s"].mean(), 1)},
        {"system": f"naive baseline ({model_profile})", "questions": len(frame),
         "answered": int((~frame["naive answer"].str.startswith("failed")).sum()),
         "correct (EM)": int(frame["naive EM"].sum()), "mean F1": round(frame["naive F1"].mean(), 3),
         "gold in answer": int(sum(normalize_answer(g) in normalize_answer(a) for g, a in zip(frame["gold"], frame["naive answer"], strict=True))),
         "insufficient": 0, "failed": int(frame["naive answer"].str.startswith("failed").sum()),
         "calls / q": 1.0, "s / q": round(pd.to_numeric(frame["naive s"]).mean(), 1)},
    ])
    return {
        f"(d) per question, local model {model_profile} (server ready in {server_seconds:.1f} s)": frame,
        "(d) summary (EM/F1: SQuAD v1.1 normalization; 'gold in answer' is a lenient containment check)": summary,
    }


def main() -> None:
    """Parse arguments, run the benchmarks and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="complete runs for (a) (default 5)")
    parser.add_argument("--skip-local", action="store_true", help="run only (a)-(c)")
    parser.add_argument("--model", choices=("local", "local-small", "scripted"), default=None,
                        help="local profile for (d) and (w) (default local); scripted: (w) harness check only")
    parser.add_argument("--questions", type=int, default=None, help="questions for (d) (default 3); (w): the first N of each kind in each half (default all)")
    parser.add_argument("--hotpotqa", type=Path, default=None, help="a HotpotQA dev file (JSON/JSONL) for (d)")
    parser.add_argument("--redis-url", default=os.environ.get("DITTO_WORKER_CONTEXT_REDIS_URL") or "redis://127.0.0.1:6379/0")
    add_arguments(parser)
    args = parser.parse_args()
    pd.set_option("display.width", 250)
    pd.set_option("display.max_colwidth", 80)
    pd.set_option("display.max_columns", 40)
    with tempfile.TemporaryDirectory(prefix="ditto-bench-") as tmp:
        root = Path(tmp)
        if args.mediawiki or args.sandbox_and or args.report_only:
            tables = wiki_benchmark(args)
        else:
            if args.model == "scripted":
                parser.error("--model scripted applies to --mediawiki / --sandbox-and")
            tables = asyncio.run(pipeline_tables(args.runs, args.redis_url, root))
            if not args.skip_local:
                tables |= asyncio.run(quality_tables(args.model or "local", args.questions or 3, args.hotpotqa,
                                                     args.redis_url, root))
    for title, frame in sorted(tables.items()):
        print(f"\n{title}\n{frame.to_string()}")


if __name__ == "__main__":
    main()
