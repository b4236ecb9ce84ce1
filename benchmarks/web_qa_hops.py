"""Web QA retrieval benchmark on the sandbox with AND search: ditto vs naive vs oracle, same model.

Questions: the first ``--questions N`` of a HotpotQA file (default ``../shared/data/hotpotqa/
dev-150.jsonl``, bridge questions) plus ``--comparisons FILE`` (default
``benchmarks/data/comparison-12.jsonl``: comparison questions written over dev-150's pages,
``--comparison-count`` of them). The sandbox corpus is every page of both files; its search ANDs
the words of a query like MediaWiki's.

Per question and per system: correct (SQuAD v1.1 normalized exact match, and gold contained in
the answer), wrong-but-answered (ditto only: status ``answered`` and gold not contained),
insufficient, failed; both supporting pages read (ditto: both gold titles among the pages whose
chunks were ranked; found by title); model calls, prompt and completion tokens, seconds.

- naive: one search with the question (AND: often empty), its top 3 pages, one answer call.
- oracle: the gold paragraphs given to the model, one answer call.

Usage::

    python benchmarks/web_qa_hops.py [--questions 25] [--comparison-count 10] [--model local] \
        [--systems ditto,naive,oracle] [--out results.csv]

Needs Redis (``$DITTO_WORKER_CONTEXT_REDIS_URL`` or ``redis://127.0.0.1:6379/0``) and the local
model (llama-cpp-python). Everything runs on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pandas as pd
import trustme

sys.path.insert(0, str(Path(__file__).resolve().parent))
from web_qa import NaiveAnswer, exact_match, make_request, normalize_answer, run_one  # noqa: E402

from ditto_nb.errors import DittoError  # noqa: E402
from ditto_nb.patterns.common import SearchSetup  # noqa: E402
from ditto_nb.patterns.web_qa import WebQaReport  # noqa: E402
from ditto_nb.runtime import INFER_REASONING_SAMPLE, ModelSelection, load_runtime_config  # noqa: E402
from ditto_nb.sandbox import SandboxWeb, import_hotpotqa  # noqa: E402
from ditto_nb.web import read_page  # noqa: E402
from ditto_nb.workers import create_infer_worker  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "data" / "hotpotqa" / "dev-150.jsonl"
COMPARISONS = ROOT / "benchmarks" / "data" / "comparison-12.jsonl"


def load(path: Path, count: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[:count]


def _read_titles(web: SandboxWeb, before: int) -> set[str]:
    """Titles of the wiki pages fetched since request number ``before`` (search API calls excluded)."""
    paths = [path for _host, path in web.requests[before:] if path.startswith("/wiki/")]
    return {unquote(path.split("?", 1)[0][len("/wiki/"):]).replace("_", " ") for path in paths}


def contained(answer: str, gold: str) -> bool:
    return bool(answer) and normalize_answer(gold) in normalize_answer(answer)


async def one_call(infer: Any, config: Any, purpose: str, system: str, user: str) -> tuple[str, int, int]:
    out = await infer.execute(INFER_REASONING_SAMPLE, {
        "provider": config.model.provider, "model": config.model.model, "output_schema": NaiveAnswer,
        "purpose": purpose, "messages": [{"role": "system", "content": f"Task: {purpose}\n{system}"},
                                         {"role": "user", "content": user}]})
    return str(out["output"]["answer"]), int(out["prompt_tokens"]), int(out["completion_tokens"])


async def run(args: argparse.Namespace, root: Path) -> pd.DataFrame:
    from ditto_nb.local_model import ensure_local_provider

    base = load_runtime_config(os.environ)
    provider = base.providers[args.model]
    config = base.model_copy(update={
        "model": ModelSelection(provider=args.model, model=provider.model or args.model),
        "context": base.context.model_copy(update={"redis_url": args.redis_url}),
    })
    base_url = ensure_local_provider(config, args.model)
    questions = [*load(args.hotpotqa, args.questions), *load(args.comparisons, args.comparison_count)]
    pages = {p.url: p for p in [*import_hotpotqa(args.hotpotqa), *import_hotpotqa(args.comparisons)]}
    web = SandboxWeb(list(pages.values()), root / "web", ca=trustme.CA()).start()
    infer = create_infer_worker(config, os.environ, {args.model: base_url})
    systems = set(args.systems.split(","))
    rows = []
    try:
        search = SearchSetup.from_sandbox(web)
        for n, q in enumerate(questions):
            gold = str(q["answer"])
            titles = {t for t, _ in q["supporting_facts"]}
            kind = str(q.get("type") or "bridge")
            row: dict[str, Any] = {"id": q["_id"][:10], "type": kind, "gold": gold[:30]}
            if "ditto" in systems:
                t0 = time.perf_counter()
                before = len(web.requests)
                try:
                    result, records, seconds, calls = await run_one(
                        root / f"q{n}", make_request(web, f"hops-{os.getpid()}-{n}", q["question"]), config, search)
                    assert isinstance(result, WebQaReport)
                    status, text = result.answer.status, result.answer.text
                    row["ditto both pages"] = titles <= _read_titles(web, before)
                    row["ditto calls"] = calls
                    row["ditto stages"] = " ".join(f"{r.name}:{r.seconds:.0f}" for r in records if r.seconds >= 1)
                except DittoError as exc:
                    status, text, seconds = f"failed:{type(exc).__name__}", "", time.perf_counter() - t0
                    row["ditto both pages"] = titles <= _read_titles(web, before)
                answered = status == "answered"
                row |= {"ditto status": status, "ditto answer": text[:40], "ditto s": round(seconds, 1),
                        "ditto EM": exact_match(text, gold) if answered else 0.0,
                        "ditto contained": answered and contained(text, gold),
                        "ditto wrong": answered and not contained(text, gold)}
                print(f"{n} {row['id']} {kind}: {status} {text[:50]!r} gold={gold!r} both={row['ditto both pages']} "
                      f"{seconds:.0f}s {row.get('ditto stages', '')}", flush=True)
            if "naive" in systems:
                t0 = time.perf_counter()
                hits = await search.build_provider().search(q["question"], 3)
                texts = []
                for hit in hits[:3]:
                    page = await read_page(hit.url, policy=search.page_policy(web.allowed_origins))
                    texts.append(f"{page.title}: " + " ".join(page.paragraphs)[:1500])
                answer, _, _ = await one_call(infer, config, "naive-answer", "Answer the question in a few words using the pages.",
                                              f"Question: {q['question']}\nPages:\n" + "\n".join(texts))
                row |= {"naive answer": answer[:30], "naive EM": exact_match(answer, gold),
                        "naive contained": contained(answer, gold), "naive s": round(time.perf_counter() - t0, 1)}
            if "oracle" in systems:
                t0 = time.perf_counter()
                gold_text = "\n".join(f"{t}: {' '.join(s)}" for t, s in q["context"] if t in titles)
                answer, _, _ = await one_call(infer, config, "oracle-answer", "Answer the question in a few words using the pages.",
                                              f"Question: {q['question']}\nPages:\n{gold_text}")
                row |= {"oracle answer": answer[:30], "oracle EM": exact_match(answer, gold),
                        "oracle contained": contained(answer, gold), "oracle s": round(time.perf_counter() - t0, 1)}
            rows.append(row)
    finally:
        close = getattr(infer, "close", None)
        if close is not None:
            await close()
        web.close()
    return pd.DataFrame(rows)


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    out = []
    for kind, part in [("all", frame), *frame.groupby("type")]:
        row: dict[str, Any] = {"questions": kind, "n": len(part)}
        if "ditto status" in part:
            row |= {"ditto contained": int(part["ditto contained"].sum()), "ditto EM": int(part["ditto EM"].sum()),
                    "ditto wrong-answered": int(part["ditto wrong"].sum()),
                    "ditto insufficient": int((part["ditto status"] == "insufficient-evidence").sum()),
                    "ditto failed": int(part["ditto status"].str.startswith("failed").sum()),
                    "both pages read": int(part["ditto both pages"].sum()),
                    "ditto s/q": round(part["ditto s"].mean(), 1),
                    "ditto calls/q": round(pd.to_numeric(part.get("ditto calls")).mean(), 2)}
        for name in ("naive", "oracle"):
            if f"{name} answer" in part:
                row |= {f"{name} contained": int(part[f"{name} contained"].sum()), f"{name} EM": int(part[f"{name} EM"].sum())}
        out.append(row)
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hotpotqa", type=Path, default=DEV)
    parser.add_argument("--questions", type=int, default=25)
    parser.add_argument("--comparisons", type=Path, default=COMPARISONS)
    parser.add_argument("--comparison-count", type=int, default=10)
    parser.add_argument("--model", choices=("local", "local-small"), default="local")
    parser.add_argument("--systems", default="ditto,naive,oracle")
    parser.add_argument("--out", type=Path, default=None, help="also write the per-question table (CSV)")
    parser.add_argument("--redis-url", default=os.environ.get("DITTO_WORKER_CONTEXT_REDIS_URL") or "redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 40)
    with tempfile.TemporaryDirectory(prefix="ditto-hops-") as tmp:
        frame = asyncio.run(run(args, Path(tmp)))
    if args.out:
        frame.to_csv(args.out, index=False)
    print(frame.to_string())
    print(summary(frame).to_string())


if __name__ == "__main__":
    main()
