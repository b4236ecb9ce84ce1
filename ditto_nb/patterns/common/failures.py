"""Failed runs, recorded in the task's Memory so they stay visible after the process is gone.

A run that ends with a typed error (``DittoError``: a crashed model server, an ungrounded answer,
every search failing, ...) writes one row ``failure/<time>-<n>`` in the task's namespace::

    {"stage": "selected", "error_type": "ModelServerCrashed", "message": "...", "help": "...",
     "retryable": false, "at": "2026-12-01T05:10:00+00:00"}

plus ``content`` (the model's whole reply, at most :data:`MESSAGE_CHARACTERS`) for a
``ModelOutputInvalid``, whose message quotes only an excerpt.

``stage`` is the graph (stage) that was running when the error was raised (``start-up`` when the
app could not be opened, e.g. the local model server failed its start-up probe). Rows are never
overwritten: a later successful resume keeps the history. ``ditto-nb show``, the notebook frames
(``failures_frame``) read them through :class:`ditto_nb.patterns.common.view.TaskView` (``failures``,
``last_failure``). The partial-failure rule of searches and reads is :mod:`ditto_nb.patterns.common.partial`.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Awaitable, Callable, Generator
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, TypeVar

from ditto_nb.errors import DittoError, ToolFailed
from ditto_nb.runtime.capabilities import MEMORY_WRITE
from ditto_nb.runtime.graph import GraphStep, NodeOutputs, graph, graph_step
from ditto_nb.runtime.loop import GraphRecord, OnGraph
from ditto_nb.runtime.runtime import Runtime
from ditto_nb.patterns.common.records import FailureRow
from ditto_nb.patterns.common.view import FAILURE_PREFIX, MEMORY_FILE
from ditto_nb.runtime.config import MemoryConfig
from ditto_nb.workers.task_memory import open_task_memory

START_UP_STAGE: Final = "start-up"
"""``stage`` of a failure raised while opening the task's app (model server, Memory, lock)."""

MESSAGE_CHARACTERS: Final = 4000
"""Longest message kept in a failure row (characters)."""

_sequence = itertools.count()
T = TypeVar("T")


def failure_row(stage: str, error: BaseException) -> tuple[str, FailureRow]:
    """The Memory key and row for a failed run.

    Args:
        stage: the stage (graph name) that was running.
        error: the error the run ended with (a ``ToolFailed`` is reported as its typed cause).

    Returns:
        ``(key, row)`` with ``row`` as in the module docstring.
    """
    if isinstance(error, ToolFailed) and isinstance(error.cause, DittoError):
        error = error.cause
    now = datetime.now(UTC)
    at = now.isoformat(timespec="seconds")
    key = f"{FAILURE_PREFIX}{now.strftime('%Y%m%dT%H%M%S.%f')}-{os.getpid()}-{next(_sequence)}"
    row: FailureRow = {
        "stage": stage,
        "error_type": type(error).__name__,
        "message": str(error)[:MESSAGE_CHARACTERS],
        "help": getattr(error, "help", ""),
        "retryable": bool(getattr(error, "retryable", False)),
        "at": at,
    }
    content = getattr(error, "content", None)
    if isinstance(content, str):  # ModelOutputInvalid: the model's whole reply, to read later
        row["content"] = content[:MESSAGE_CHARACTERS]
    return key, row


class StageTracker:
    """An ``on_graph`` callback that remembers which graph was running, then forwards the record.

    Args:
        inner: the caller's own ``on_graph`` callback, or None.

    Attributes:
        stage: the name of the last graph that ran (failed, cancelled or not), else ``"start"``.
    """

    def __init__(self, inner: OnGraph | None = None) -> None:
        self.inner = inner
        self.stage = "start"

    def __call__(self, record: GraphRecord) -> None:
        self.stage = record.name
        if self.inner is not None:
            self.inner(record)


def _write_plan(namespace: str, key: str, row: FailureRow) -> Generator[GraphStep, NodeOutputs, None]:
    g = graph("failure:record")
    g.node("failure", MEMORY_WRITE, {"namespace": namespace, "key": key, "value": row})
    yield graph_step(g)


async def record_failure(runtime: Runtime, namespace: str, stage: str, error: BaseException) -> None:
    """Write a failure row through the Runtime's Memory Worker (best effort: a failing write
    adds a note to ``error`` instead of hiding it).

    Args:
        runtime: the task's Runtime (still open).
        namespace: the task's Memory namespace.
        stage: the stage that was running.
        error: the run's error.
    """
    key, row = failure_row(stage, error)
    try:
        await runtime.loop(_write_plan, [namespace, key, row])
    except Exception as exc:  # noqa: BLE001 - the run's own error must surface, not this one
        error.add_note(f"the failure could not be recorded in Memory: {type(exc).__name__}: {exc}")


async def record_failure_in(
    directory: str | os.PathLike[str],
    namespace: str,
    stage: str,
    error: BaseException,
    memory: MemoryConfig | None = None,
) -> None:
    """Write a failure row straight into a task directory's Memory (no Runtime: the app could not
    be opened). Best effort, like :func:`record_failure`.

    Args:
        directory: the task directory.
        namespace: the task's Memory namespace.
        stage: usually :data:`START_UP_STAGE`.
        error: the error.
        memory: the task's Memory backend (``config.memory``); None → SQLite in the directory.
    """
    key, row = failure_row(stage, error)
    try:
        lock, store = open_task_memory(directory, memory)
        lock.acquire()
        try:
            try:
                await store.setup()
                await store.put(namespace, key, row)
            finally:
                await store.close()
        finally:
            lock.release()
    except Exception as exc:  # noqa: BLE001
        error.add_note(f"the failure could not be recorded in Memory: {type(exc).__name__}: {exc}")


async def run_recorded(
    runtime: Runtime, namespace: str, on_graph: OnGraph | None, run: Callable[[OnGraph], Awaitable[T]]
) -> T:
    """Run ``run(tracker)`` and record a ``DittoError`` it raises before re-raising it.

    Args:
        runtime: the task's Runtime.
        namespace: the task's Memory namespace.
        on_graph: the caller's trace callback (still called for every graph).
        run: starts the Loop with the given ``on_graph``.

    Returns:
        What ``run`` returns.

    Raises:
        DittoError: the run's error, unchanged, after it was recorded.
    """
    tracker = StageTracker(on_graph)
    try:
        return await run(tracker)
    except DittoError as exc:
        await record_failure(runtime, namespace, tracker.stage, exc)
        raise


async def open_recorded(
    directory: str | os.PathLike[str],
    namespace: str,
    opening: Awaitable[T],
    memory: MemoryConfig | None = None,
) -> T:
    """Await an app opening; a ``DittoError`` it raises (other than ``TaskLocked``, whose
    directory belongs to another process) is recorded as a :data:`START_UP_STAGE` failure.

    Args:
        directory: the task directory.
        namespace: the task's Memory namespace.
        opening: e.g. ``open_task_app(...)``.
        memory: the task's Memory backend (``config.memory``); None → SQLite in the directory.

    Returns:
        The opened app.

    Raises:
        DittoError: the opening's error, unchanged, after it was recorded.
    """
    from ditto_nb.errors import TaskLocked

    try:
        return await opening
    except TaskLocked:
        raise
    except DittoError as exc:
        shared = memory is not None and memory.backend != "sqlite"
        if shared or (Path(directory) / MEMORY_FILE).is_file():
            await record_failure_in(directory, namespace, START_UP_STAGE, exc, memory)
        raise


__all__ = [
    "FAILURE_PREFIX",
    "START_UP_STAGE",
    "StageTracker",
    "failure_row",
    "open_recorded",
    "record_failure",
    "record_failure_in",
    "run_recorded",
]
