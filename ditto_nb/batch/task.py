"""One task of a batch, as it runs on a Dask worker: :class:`BatchTask` in, a result row out.

:func:`run_batch_task` creates (or re-opens) the task in its directory, runs it to the end and
reads back from the task's Memory what it cost. A task resumes from its Memory, so running it
again (a retry on another worker after the first was killed, or ``--resume``) reuses every
completed model call, search and page read and repeats only the call that was in flight.
A typed :class:`~ditto_nb.errors.DittoError` is an outcome (its class name is the status); the
row is returned either way, so nothing is lost.
"""

from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass
from typing import Any

from ditto_nb.errors import DittoError, TaskLocked
from ditto_nb.notebook.evaluation import contains_answer, normalize_answer, token_f1
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.tasks import create_task
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest, open_web_qa, run_web_qa
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.runtime.limits import ConcurrencyLimits, close_limit_clients, limits_scope

BATCH_NAMESPACE = "batch"
"""Memory namespace of a task's batch bookkeeping (``attempts`` counter)."""


@dataclass(frozen=True)
class BatchTask:
    """Everything a worker needs to run one task (picklable, sent to the worker).

    Attributes:
        directory: the task directory (on a filesystem every worker mounts).
        request: the Web QA request as JSON (``WebQaRequest.model_dump(mode="json")``).
        config: runtime configuration: model providers, the shared Redis, the Memory backend.
        search: the search provider and network-policy extras.
        model: ``{"provider", "model"}`` for the pattern input.
        gold: the gold answer, or None (then no EM/F1).
        limits: concurrency limits enforced through the shared Redis, or None.
        lock_wait_seconds: how long to wait for the task lock of a previous holder that has not
            been seen dead yet (seconds).
        max_model_calls: cap on model calls per run of the task (SPEC §3: 6).
        detail: also return the report JSON (``report``, as published), the answer rules that
            fired with the drafts they saw (``rules``, from Memory: the published report names
            them only), the URLs of the completed page reads in the task's ledger (``pages_read``)
            and this run's model calls (``calls``).
    """

    directory: str
    request: dict[str, Any]
    config: RuntimeConfig
    search: SearchSetup
    model: dict[str, str]
    gold: str | None = None
    limits: ConcurrencyLimits | None = None
    lock_wait_seconds: float = 60.0
    max_model_calls: int = 6
    detail: bool = False


def _worker_name() -> str:
    try:
        from distributed import get_worker

        worker = get_worker()
        return str(worker.name if worker.name is not None else worker.address)
    except ValueError:  # not running on a Dask worker (the serial loop)
        return f"local:{socket.gethostname()}"


async def _open_with_wait(task: BatchTask, request: WebQaRequest) -> Any:
    deadline = time.monotonic() + task.lock_wait_seconds
    while True:
        try:
            await create_task(task.directory, request, task.search, memory=task.config.memory)
            return await open_web_qa(task.directory, request, task.config, task.search)
        except TaskLocked:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(0.5)


async def _run(task: BatchTask) -> dict[str, Any]:
    request = WebQaRequest.parse(task.request)
    started = time.monotonic()
    row: dict[str, Any] = {"id": request.id, "question": request.question, "status": "", "answer": "",
                           "error": "", "worker": _worker_name()}
    app = None
    try:
        with limits_scope(task.limits):
            app = await _open_with_wait(task, request)
            row["attempts"] = await app.store.incr(BATCH_NAMESPACE, "attempts")
            try:
                result = await run_web_qa(app.runtime, {"request": request, "model": task.model},
                                          max_model_calls=task.max_model_calls)
            except DittoError as exc:
                row["status"], row["error"] = type(exc).__name__, str(exc)
            else:
                if isinstance(result, WebQaReport):
                    row["status"], row["answer"] = result.answer.status, result.answer.text
                    if task.detail:
                        row["report"] = result.model_dump(mode="json")
                        # the full answer-rule trace (the drafts each rule saw) is in Memory only
                        stored = await app.store.get(request.namespace, "stage/report")
                        answer = stored.get("answer") if isinstance(stored, dict) else None
                        row["rules"] = list(answer.get("rules") or []) if isinstance(answer, dict) else []
                else:
                    row["status"] = f"checkpoint:{result['stage']}"
            ledger = await app.store.items(request.namespace, "ledger/")
            row["model_calls"] = sum(1 for _, value in ledger
                                     if isinstance(value, dict) and value.get("kind") == "model"
                                     and value.get("status") == "done")
            row["model_charges"] = int(await app.store.get(request.namespace, "budget/model") or 0)
            row["new_model_calls"] = len(app.infer.calls)
            if task.detail:
                row["pages_read"] = [str(value.get("name", "")) for _, value in ledger
                                     if isinstance(value, dict) and value.get("kind") == "read"
                                     and value.get("status") == "done"]
                row["calls"] = [{"purpose": call.purpose or "", "prompt_tokens": call.prompt_tokens,
                                 "completion_tokens": call.completion_tokens, "seconds": round(call.seconds, 3)}
                                for call in app.infer.calls]
    except DittoError as exc:  # could not even open the task (locked, storage, config)
        row["status"], row["error"] = type(exc).__name__, str(exc)
    finally:
        if app is not None:
            await app.close()
        await close_limit_clients()
    row["seconds"] = round(time.monotonic() - started, 3)
    if task.gold:
        row["gold"] = task.gold
        row["em"] = float(normalize_answer(row["answer"]) == normalize_answer(task.gold))
        row["f1"] = round(token_f1(row["answer"], task.gold), 4)
        row["correct"] = contains_answer(row["answer"], task.gold)
    return row


def run_batch_task(task: BatchTask) -> dict[str, Any]:
    """Run (or resume) one task to the end and return its result row.

    Runs its own event loop (``asyncio.run``), so it is called from a Dask worker thread or
    from a plain loop.

    Returns:
        ``{"id", "question", "status", "answer", "error", "worker", "attempts", "model_calls"
        (completed model calls in the ledger), "model_charges" (the model budget counter),
        "new_model_calls" (calls made by this run), "seconds", and with a gold answer "gold",
        "em", "f1", "correct"}``. ``status`` is the answer status (``answered``, ...), a typed
        error's class name, or ``checkpoint:<stage>``. With ``task.detail``: ``report`` (the
        report JSON, when there is one), ``rules``, ``pages_read`` and ``calls`` (see :class:`BatchTask`).
    """
    return asyncio.run(_run(task))


__all__ = ["BATCH_NAMESPACE", "BatchTask", "run_batch_task"]
