"""Batches of Web QA tasks on Dask: :func:`run_batch`.

Each request becomes one Dask task (:func:`ditto_nb.batch.task.run_batch_task`) on a
``distributed`` cluster: a :class:`distributed.LocalCluster` of worker processes on this machine
by default, or any :class:`distributed.Client` given (a scheduler whose workers run on other
machines). Dask reschedules the task of a worker that dies on another worker
(``distributed.scheduler.allowed-failures`` times, default 3); the task resumes from its Memory,
so completed model calls are not repeated. The shared state is what makes this safe across
machines: the Context Redis, the Memory backend (PostgreSQL for more than one machine; its
advisory lock keeps one process per task), task directories on a filesystem every worker mounts,
and :class:`~ditto_nb.runtime.limits.ConcurrencyLimits` in the same Redis.

Layout of a batch directory: ``tasks/<request id>/`` (one task directory each) and
``results.jsonl`` (one row per task: appended as rows arrive, rewritten in request order at the
end of every run).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ditto_nb.batch.task import BatchTask, run_batch_task
from ditto_nb.errors import ConfigError, InvalidRequest
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.web_qa import WebQaRequest
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.runtime.limits import ConcurrencyLimits

RESULTS_FILE_NAME = "results.jsonl"
"""File of a batch directory holding the result rows of the last run."""

COLUMNS = ("id", "status", "answer", "em", "f1", "correct", "model_calls", "new_model_calls", "model_charges",
           "attempts", "seconds", "worker", "error", "question", "gold")
"""Result columns, in order (``em``/``f1``/``correct``/``gold`` only when gold answers are given)."""

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class BatchResult:
    """The outcome of :func:`run_batch`.

    Attributes:
        frame: one row per request, in request order (see :data:`COLUMNS`).
        directory: the batch directory.
        dashboard_link: the Dask dashboard URL of the cluster that ran the batch ("" if none).
        workers: the number of Dask workers when the batch ended.
    """

    frame: pd.DataFrame
    directory: Path
    dashboard_link: str
    workers: int

    def summary(self) -> pd.Series:
        """Counts per status and, with gold answers, mean EM / F1 / correct."""
        out: dict[str, Any] = {"tasks": len(self.frame)}
        out.update({f"status:{k}": int(v) for k, v in self.frame["status"].value_counts().sort_index().items()})
        for column in ("em", "f1", "correct"):
            if column in self.frame:
                out[column] = round(float(self.frame[column].astype(float).mean()), 4)
        out["model_calls"] = int(self.frame["model_calls"].fillna(0).sum())
        return pd.Series(out, dtype=object)


def task_directory(batch_dir: str | os.PathLike[str], request_id: str) -> Path:
    """The task directory of a request in a batch directory: ``tasks/<safe id>``."""
    return Path(batch_dir) / "tasks" / (_SAFE.sub("_", request_id) or "task")


def _frame(rows: list[dict[str, Any]], with_gold: bool) -> pd.DataFrame:
    columns = [c for c in COLUMNS if with_gold or c not in ("em", "f1", "correct", "gold")]
    return pd.DataFrame(rows, columns=columns)


def local_client(n_workers: int = 2, *, dashboard: bool = True) -> Any:
    """Start a ``distributed.LocalCluster`` on 127.0.0.1 and return its ``Client``.

    Worker processes (``n_workers``, one thread each: a task runs its own event loop) inherit
    this process's environment and are preloaded with :mod:`ditto_nb.batch.worker_setup` (the
    task's modules imported before the first task; ``kill -USR1 <pid>`` dumps a worker's stacks).
    Close with ``client.close(); client.cluster.close()``.

    Args:
        n_workers: worker processes.
        dashboard: serve the Dask dashboard on a free 127.0.0.1 port (``client.dashboard_link``).
    """
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",  # type: ignore[no-untyped-call]
                           dashboard_address="127.0.0.1:0" if dashboard else None,
                           preload=["ditto_nb.batch.worker_setup"])
    return Client(cluster)  # type: ignore[no-untyped-call]


def _on_this_machine(client: Any) -> bool:
    """True when every worker of ``client`` runs on this machine (a ``distributed.LocalCluster``),
    so an embedded Redis on 127.0.0.1 serves them all."""
    from distributed import LocalCluster

    return isinstance(getattr(client, "cluster", None), LocalCluster)


def _prepare_local_model(config: RuntimeConfig, provider: str) -> None:
    """Start a provider's local llama.cpp server here, once, so the workers reuse it."""
    settings = config.providers.get(provider)
    if settings is not None and settings.launch is not None:
        from ditto_nb.local_model import ensure_local_provider

        ensure_local_provider(config, provider)


def run_batch(
    requests: Sequence[WebQaRequest | Mapping[str, Any]],
    client: Any | None = None,
    *,
    directory: str | os.PathLike[str],
    config: RuntimeConfig,
    search: SearchSetup,
    model: Mapping[str, str] | None = None,
    gold: Mapping[str, str] | None = None,
    limits: ConcurrencyLimits | None = None,
    n_workers: int = 2,
    progress: bool = True,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    detail: bool = False,
) -> BatchResult:
    """Run (or resume) many Web QA tasks on Dask and collect one result row per task.

    Args:
        requests: the Web QA requests (ids must be unique; each id names its task directory).
        client: a ``distributed.Client``; None → a ``LocalCluster`` of ``n_workers`` worker
            processes (one thread each) on 127.0.0.1, closed at the end.
        directory: the batch directory (task directories and ``results.jsonl``); running again
            with the same directory resumes every task from its Memory.
        config: runtime configuration; ``context.redis_url`` names a Redis every worker reaches
            (unset with a ``LocalCluster`` — the default or one passed in: one embedded Redis under
            the batch directory serves its workers). ``memory`` picks the Memory backend.
        search: the search provider and policy extras (e.g. ``SearchSetup.from_sandbox(web)``).
        model: ``{"provider", "model"}``; None → ``config.model``.
        gold: request id → gold answer; adds ``em``, ``f1``, ``correct`` columns.
        limits: concurrency limits per model endpoint / per origin, held in the shared Redis.
        n_workers: workers of the default LocalCluster.
        progress: show a progress bar (tqdm; a widget in Jupyter).
        on_row: called in this process with each row as it arrives.
        detail: rows also carry the report JSON, the pages read and this run's model calls
            (:attr:`BatchTask.detail`; not among the frame's columns).

    Returns:
        The :class:`BatchResult` (``.frame`` holds the rows in request order).

    Raises:
        InvalidRequest: an invalid request or a duplicate id.
        ConfigError: a client of a cluster beyond this machine was given but no shared Redis is
            configured.
    """
    parsed = [WebQaRequest.parse(request) for request in requests]
    ids = [request.id for request in parsed]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise InvalidRequest(f"duplicate request ids in the batch: {', '.join(duplicates[:5])}")
    if not config.context.redis_url and client is not None and not _on_this_machine(client):
        raise ConfigError("context.redis_url: a batch on a Dask cluster needs a Redis every worker reaches; "
                          "set DITTO_WORKER_CONTEXT_REDIS_URL (the embedded Redis serves this machine only)")
    batch_dir = Path(directory)
    batch_dir.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        if not config.context.redis_url:  # a LocalCluster here: one embedded Redis shared by its workers
            from ditto_nb.workers import EmbeddedRedis

            embedded = EmbeddedRedis(batch_dir / "redis")
            url = embedded.start()
            stack.callback(embedded.stop)
            config = config.model_copy(update={"context": config.context.model_copy(update={"redis_url": url})})
        return _run_batch(parsed, client, batch_dir, config, search, model, gold, limits, n_workers, progress, on_row,
                          detail)


def _run_batch(
    parsed: list[WebQaRequest],
    client: Any | None,
    batch_dir: Path,
    config: RuntimeConfig,
    search: SearchSetup,
    model: Mapping[str, str] | None,
    gold: Mapping[str, str] | None,
    limits: ConcurrencyLimits | None,
    n_workers: int,
    progress: bool,
    on_row: Callable[[dict[str, Any]], None] | None,
    detail: bool = False,
) -> BatchResult:
    choice = dict(model) if model is not None else {"provider": config.model.provider, "model": config.model.model}
    tasks = [
        BatchTask(directory=str(task_directory(batch_dir, r.id).resolve()), request=r.model_dump(mode="json"),
                  config=config, search=search, model=choice, gold=(gold or {}).get(r.id) or None, limits=limits,
                  detail=detail)
        for r in parsed
    ]
    _prepare_local_model(config, choice["provider"])
    own_client = client is None
    active = local_client(n_workers) if client is None else client
    results = batch_dir / RESULTS_FILE_NAME
    try:
        with results.open("w", encoding="utf-8") as handle:  # rows as they arrive: kept if interrupted

            def record(row: dict[str, Any]) -> None:
                handle.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
                handle.flush()
                if on_row is not None:
                    on_row(row)

            rows = _gather(active, tasks, progress, record)
        link = str(getattr(active, "dashboard_link", "") or "")
        workers = len(active.scheduler_info().get("workers", {}))
    finally:
        if own_client:
            cluster = active.cluster
            active.close()
            if cluster is not None:
                cluster.close()
    by_id = {row["id"]: row for row in rows}
    ordered = [by_id[request.id] for request in parsed]
    with results.open("w", encoding="utf-8") as handle:  # rewritten in request order
        for row in ordered:
            handle.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
    return BatchResult(_frame(ordered, gold is not None), batch_dir, link, workers)


def _gather(
    client: Any, tasks: list[BatchTask], progress: bool, on_row: Callable[[dict[str, Any]], None] | None
) -> list[dict[str, Any]]:
    from distributed import as_completed
    from tqdm.auto import tqdm

    run = uuid.uuid4().hex[:8]
    futures = {
        client.submit(run_batch_task, task, key=f"ditto-{_SAFE.sub('_', task.request['id'])}-{run}", pure=False): task
        for task in tasks
    }
    rows: list[dict[str, Any]] = []
    with tqdm(total=len(futures), desc="tasks", unit="task", disable=not progress) as bar:
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            task = futures[future]
            if future.status == "finished":
                row = future.result()
            else:  # e.g. KilledWorker: the task's workers died allowed-failures times
                exc = future.exception()
                row = {"id": task.request["id"], "question": task.request["question"], "status": type(exc).__name__,
                       "answer": "", "error": str(exc), "worker": ""}
                if task.gold:
                    row.update({"gold": task.gold, "em": 0.0, "f1": 0.0, "correct": False})
            rows.append(row)
            bar.update(1)
            if on_row is not None:
                on_row(row)
            future.release()
    return rows


__all__ = ["COLUMNS", "RESULTS_FILE_NAME", "BatchResult", "local_client", "run_batch", "task_directory"]
