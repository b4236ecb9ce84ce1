"""Benchmark batches on Dask: throughput for 1, 2 and 4 workers beside the serial loop, and the
recovery after one worker is killed mid-batch.

Every model call of the scripted model answers after a fixed injected latency
(``--latency``, default 0.5 s; ``ScriptedModel.latency_seconds``), standing in for a model endpoint
that serves calls concurrently (a shared vLLM server). The tasks are Web QA questions of
``ditto_nb/data/demo_questions.jsonl`` (cycled, each made unique) over the sandbox web of the demo
corpus; Memory is SQLite in each task directory (``--memory postgres --dsn DSN`` for PostgreSQL).

Tables printed:

(a) ``throughput``: the serial loop (``run_batch_task`` one after another in this process) and
    ``run_batch`` on a ``LocalCluster`` of 1, 2 and 4 worker processes: wall seconds for
    ``--tasks`` tasks, tasks per second, speed-up over the serial loop, and the cluster start-up
    seconds (not included in the batch time).
(b) ``recovery``: 2 workers; when one chosen task's second model call arrives, its worker process
    is SIGKILLed. Printed: seconds from the kill to the replacement worker joining, from the kill
    to the killed task's row, the batch wall time beside the same batch without a kill, and the
    model calls repeated (must be 1: only the call in flight).

Usage::

    python benchmarks/batch.py [--tasks 16] [--latency 0.5] [--workers 1 2 4] [--redis-url URL]

Needs Redis (``--redis-url``, default ``$DITTO_WORKER_CONTEXT_REDIS_URL`` or
``redis://127.0.0.1:6379/0``). Everything runs on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import os
import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd

from ditto_nb.batch import BatchTask, local_client, run_batch, run_batch_task, task_directory
from ditto_nb.batch.demo import batch_demo_responder, prompt_question
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa import WebQaRequest
from ditto_nb.runtime.config import MemoryConfig, RuntimeConfig
from ditto_nb.sandbox import SandboxWeb, demo_corpus_path, demo_questions_path, load_corpus, load_hotpotqa_questions
from ditto_nb.testing import ScriptedModel, scripted_runtime_config

REPO_ROOT = Path(__file__).resolve().parents[1]


def make_requests(web: SandboxWeb, n: int) -> list[WebQaRequest]:
    questions = load_hotpotqa_questions(demo_questions_path())
    return [WebQaRequest(id=f"b{i}", tenant="bench", principal="analyst",
                         question=f"B{i}: {questions[i % len(questions)].question}",
                         allowed_origins=tuple(web.allowed_origins), max_queries=1, max_pages=3) for i in range(n)]


def serial(requests: list[WebQaRequest], config: RuntimeConfig, search: SearchSetup, model: dict[str, str],
           directory: Path) -> float:
    started = time.monotonic()
    for request in requests:
        task = BatchTask(directory=str(task_directory(directory, request.id)), request=request.model_dump(mode="json"),
                         config=config, search=search, model=model)
        row = run_batch_task(task)
        assert row["status"], row
    return time.monotonic() - started


def dask_run(n_workers: int, requests: list[WebQaRequest], config: RuntimeConfig, search: SearchSetup,
             model: dict[str, str], directory: Path) -> tuple[float, float]:
    started = time.monotonic()
    client = local_client(n_workers, dashboard=False)
    client.wait_for_workers(n_workers, timeout=300)
    startup = time.monotonic() - started
    try:
        started = time.monotonic()
        result = run_batch(requests, client, directory=directory, config=config, search=search, model=model,
                           progress=False)
        wall = time.monotonic() - started
        assert len(result.frame) == len(requests)
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
    return wall, startup


def recovery(requests: list[WebQaRequest], config: RuntimeConfig, search: SearchSetup, scripted: ScriptedModel,
             model: dict[str, str], directory: Path, victim: str) -> dict[str, Any]:
    client = local_client(2, dashboard=False)
    client.wait_for_workers(2, timeout=300)
    marks: dict[str, float] = {}
    tag = f"{victim.upper()}:"
    calls_per_victim = {"n": 0}

    def responder(request: dict[str, Any]) -> Any:
        if prompt_question(request).startswith(tag):
            calls_per_victim["n"] += 1
            if calls_per_victim["n"] == 2 and "kill" not in marks:
                processing = client.processing()
                address = next(a for a, keys in processing.items() if any(str(k).startswith(f"ditto-{victim}-") for k in keys))
                pid = client.run(os.getpid, workers=[address])[address]
                before.update(client.scheduler_info()["workers"])  # worker addresses
                marks["kill"] = time.monotonic()
                os.kill(pid, signal.SIGKILL)
                watcher.start()
        return batch_demo_responder(request)

    before: set[str] = set()

    def wait_rejoin() -> None:
        while time.monotonic() - marks["kill"] < 300:
            addresses = set(client.scheduler_info()["workers"])
            if len(addresses) == 2 and addresses != before:  # the Nanny's replacement registered
                marks["rejoined"] = time.monotonic()
                return
            time.sleep(0.05)

    watcher = threading.Thread(target=wait_rejoin, daemon=True)

    def on_row(row: dict[str, Any]) -> None:
        if row["id"] == victim:
            marks["victim_row"] = time.monotonic()

    scripted.responder = responder
    calls_before = scripted.call_count
    try:
        started = time.monotonic()
        result = run_batch(requests, client, directory=directory, config=config, search=search, model=model,
                           progress=False, on_row=on_row)
        wall = time.monotonic() - started
        if watcher.is_alive():
            watcher.join(timeout=300)  # the replacement may join after the batch ended
    finally:
        scripted.responder = batch_demo_responder
        cluster = client.cluster
        client.close()
        cluster.close()
    frame = result.frame
    repeated = scripted.call_count - calls_before - int(frame["model_calls"].sum())
    return {"wall_seconds": round(wall, 1),
            "kill_to_worker_rejoined_s": round(marks.get("rejoined", float("nan")) - marks["kill"], 1),
            "kill_to_killed_task_row_s": round(marks["victim_row"] - marks["kill"], 1),
            "rows": len(frame), "unique_ids": frame["id"].nunique(),
            "victim_attempts": int(frame.set_index("id").loc[victim, "attempts"]),
            "model_calls_repeated": repeated}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per scripted model call")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--redis-url", default=os.environ.get("DITTO_WORKER_CONTEXT_REDIS_URL") or "redis://127.0.0.1:6379/0")
    parser.add_argument("--memory", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--dsn", default=os.environ.get("DITTO_MEMORY_DSN"))
    parser.add_argument("--skip-recovery", action="store_true")
    parser.add_argument("--skip-throughput", action="store_true")
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p)
    memory = MemoryConfig(backend=args.memory, dsn=args.dsn)
    work = Path(tempfile.mkdtemp(prefix="ditto-bench-batch-"))
    with SandboxWeb(load_corpus(demo_corpus_path()), work / "sandbox") as web, ScriptedModel() as scripted:
        scripted.responder = batch_demo_responder
        scripted.latency_seconds = args.latency
        config = scripted_runtime_config(scripted, redis_url=args.redis_url).model_copy(update={"memory": memory})
        search = SearchSetup.from_sandbox(web)
        model = {"provider": "scripted", "model": scripted.model_name}
        requests = make_requests(web, args.tasks)
        print(f"{args.tasks} tasks, {args.latency} s per model call, memory={args.memory}, cpus={os.cpu_count()}, "
              f"load average {os.getloadavg()[0]:.1f}")
        rows: list[dict[str, Any]] = []
        if not args.skip_throughput:
            rows = throughput(args, requests, config, search, model, work)
        if not args.skip_recovery:
            two = next((r["wall_s"] for r in rows if r["workers"] == 2 and r["runner"] != "serial loop"), None)
            out = recovery(requests, config, search, scripted, model, work / "recovery", victim=f"b{args.tasks // 2}")
            out["same_batch_without_kill_s"] = two
            print("\n(b) recovery (2 workers, one SIGKILLed mid-task)")
            print(pd.Series(out).to_string())


def throughput(args: argparse.Namespace, requests: list[WebQaRequest], config: RuntimeConfig, search: SearchSetup,
           model: dict[str, str], work: Path) -> list[dict[str, Any]]:
    rows = []
    wall = serial(requests, config, search, model, work / "serial")
    rows.append({"runner": "serial loop", "workers": 1, "wall_s": round(wall, 1),
                 "tasks_per_s": round(args.tasks / wall, 3), "speedup": 1.0, "cluster_start_s": 0.0})
    base = wall
    for n in args.workers:
        wall, startup = dask_run(n, requests, config, search, model, work / f"dask-{n}")
        rows.append({"runner": "run_batch (LocalCluster)", "workers": n, "wall_s": round(wall, 1),
                     "tasks_per_s": round(args.tasks / wall, 3), "speedup": round(base / wall, 2),
                     "cluster_start_s": round(startup, 1)})
    print("\n(a) throughput")
    print(pd.DataFrame(rows).to_string(index=False))
    return rows


if __name__ == "__main__":
    main()
