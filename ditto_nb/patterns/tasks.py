"""One ``create_task`` / ``open_task`` / ``run_task`` / ``resume_task`` shape for both patterns.

``create_task`` is the only way a task directory is made: it validates the request, writes
``task.json`` (:mod:`ditto_nb.patterns.common.task_file`: pattern + request) and binds the
task's Memory. The request's class chooses the pattern (:class:`~ditto_nb.patterns.web_qa.WebQaRequest` or
:class:`~ditto_nb.patterns.deep_research.ResearchRequest`); a directory's pattern and request are
read back from its Memory through :class:`~ditto_nb.patterns.common.TaskView`, and the model by
:func:`ditto_nb.runtime.model_choice.resolve_model` (explicit > recorded with the task >
``ditto.yaml``). All four are async (``ditto_nb.runtime.run_sync`` runs them from sync code)::

    request = await create_task(directory, request, search)
    app = await open_task(directory, request, resolved.config, search)
    result = await run_task(app, request, resolved.selection(), stop_after="plan")
    result = await resume_task(directory, config, search)      # later, even in a new process
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from typing_extensions import Unpack

from ditto_nb.errors import ConfigError, InvalidRequest
from ditto_nb.patterns.common import SearchSetup, TaskApp, TaskRequest, load_task
from ditto_nb.patterns.common.app import OpenOptions
from ditto_nb.patterns.common.task import bind_task
from ditto_nb.patterns.common.task_file import PatternName, TaskFile, claim_task_file, read_task_file, write_task_file
from ditto_nb.patterns.deep_research import ResearchReport, ResearchRequest, open_research, run_research
from ditto_nb.patterns.deep_research.plan import LoopResult
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest, open_web_qa, run_web_qa
from ditto_nb.patterns.web_qa.app import Checkpoint
from ditto_nb.runtime.config import MemoryConfig, RuntimeConfig
from ditto_nb.runtime.model_choice import resolve_model
from ditto_nb.web.config import SearchConfig

TaskResult = WebQaReport | ResearchReport | Checkpoint | LoopResult
"""A published report, or a checkpoint ``{"status": "checkpoint", "stage", ...}``."""

R = TypeVar("R", bound=TaskRequest)

PATTERNS: dict[PatternName, type[TaskRequest]] = {"web_qa": WebQaRequest, "deep_research": ResearchRequest}
"""The request class of each pattern name (as ``task.json`` records it)."""


def pattern_of(request: TaskRequest) -> PatternName:
    """The pattern name of a request (``web_qa`` or ``deep_research``).

    Raises:
        InvalidRequest: not a request of a known pattern.
    """
    for name, cls in PATTERNS.items():
        if isinstance(request, cls):
            return name
    raise InvalidRequest(f"not a Web QA or research request: {type(request).__name__}")


async def create_task(
    directory: str | os.PathLike[str], request: R, search: SearchSetup | SearchConfig | None = None, *,
    memory: MemoryConfig | None = None,
) -> R:
    """Create (or re-open) a task directory: ``task.json`` (pattern + request) and its Memory binding.

    Args:
        directory: the task directory (created if missing).
        request: a :class:`WebQaRequest` or :class:`ResearchRequest` (validated again here).
        search: the search setup, ``ditto_nb.web.search_config()``'s result, or None for the
            configured default; for Web QA it is checked against the request's origins.
        memory: the Memory backend (pass ``config.memory``); None → SQLite in the directory.

    Returns:
        The validated request.

    Raises:
        InvalidRequest: the request is invalid, or not a request of a known pattern.
        RequestChanged: ``task.json`` or the Memory holds another pattern or another request.
        ConfigError: ``task.json`` is damaged.
        TaskLocked: another process holds the directory.
        StorageError: the Memory cannot be written.
    """
    pattern = pattern_of(request)
    parsed = type(request).parse(request.model_dump(mode="json"))
    if pattern == "web_qa":
        SearchSetup.coerce(search).page_policy(parsed.allowed_origins)
    existing = claim_task_file(directory, pattern, parsed)  # checked before anything is written
    await bind_task(directory, parsed, memory)  # makes the directory
    if existing is None:
        write_task_file(directory, TaskFile(pattern=pattern, request=parsed.model_dump(mode="json")))
    return parsed


def read_task(directory: str | os.PathLike[str]) -> TaskRequest | None:
    """The request recorded in a directory's ``task.json``, parsed by its pattern's class.

    Args:
        directory: a task directory.

    Returns:
        A :class:`WebQaRequest` or :class:`ResearchRequest`, or None without ``task.json``.

    Raises:
        ConfigError: ``task.json`` is damaged.
        InvalidRequest: the recorded request is not valid for its pattern.
    """
    task = read_task_file(directory)
    return None if task is None else PATTERNS[task.pattern].parse(task.request)


async def open_task(
    directory: str | os.PathLike[str], request: TaskRequest, config: RuntimeConfig,
    search: SearchSetup | None = None, **options: Unpack[OpenOptions],
) -> TaskApp:
    """Open the task's app (TaskLock, Memory, Context, Infer, tools) for its pattern.

    Args:
        directory: the task directory.
        request: the request.
        config: runtime configuration (its ``model`` is the provider prepared).
        search: the search setup.
        options: :class:`~ditto_nb.patterns.common.app.OpenOptions` (``env``, ``base_urls``,
            ``provider``), as in ``open_web_qa``/``open_research``.

    Returns:
        The :class:`TaskApp`; close it with ``await app.close()``.
    """
    if isinstance(request, WebQaRequest):
        return await open_web_qa(directory, request, config, search, **options)
    if isinstance(request, ResearchRequest):
        return await open_research(directory, request, config, search, **options)
    raise InvalidRequest(f"not a Web QA or research request: {type(request).__name__}")


async def run_task(
    app: TaskApp, request: TaskRequest, model: Mapping[str, str], stop_after: str | None = None
) -> TaskResult:
    """Run (or resume, or replay) the task in one Loop of its pattern's plan.

    Args:
        app: the opened app.
        request: the request.
        model: ``{"provider", "model"}``.
        stop_after: a stage name of the pattern to stop after.

    Returns:
        The report or a checkpoint.
    """
    job = {"request": request, "model": dict(model)}
    if isinstance(request, WebQaRequest):
        return await run_web_qa(app.runtime, job, stop_after=stop_after)
    return await run_research(app.runtime, job, stop_after=stop_after)  # type: ignore[arg-type]


def _recorded_model(directory: Path) -> dict[str, str] | None:
    task = read_task_file(directory)
    return task.model.model_dump() if task is not None and task.model is not None else None


async def resume_task(
    directory: str | os.PathLike[str], config: RuntimeConfig, search: SearchSetup | None = None, *,
    provider: str | None = None, model: str | None = None, stop_after: str | None = None,
    **options: Any,
) -> TaskResult:
    """Resume the task of ``directory`` (either pattern) from its Memory.

    Args:
        directory: a bound task directory.
        config: runtime configuration.
        search: the search setup.
        provider: explicit provider (else the task's recorded one, else ``ditto.yaml``'s).
        model: explicit model name.
        stop_after: a stage name to stop after.
        options: passed to :func:`open_task`.

    Returns:
        The report or a checkpoint.

    Raises:
        ConfigError: the directory holds no bound task.
        RequestChanged, PermissionRevoked, SnapshotCorrupted, ...: from the pattern's run.
    """
    view = load_task(directory, memory=config.memory)
    if not view.request:
        raise ConfigError(f"{directory} holds no bound request; create the task first")
    request: TaskRequest = (WebQaRequest if view.pattern == "web_qa" else ResearchRequest).parse(view.request)
    resolved = resolve_model(config, provider, model, recorded=_recorded_model(Path(directory)))
    app = await open_task(directory, request, resolved.config, search, **options)
    try:
        return await run_task(app, request, resolved.selection(), stop_after)
    finally:
        await app.close()


__all__ = ["PATTERNS", "TaskResult", "create_task", "open_task", "pattern_of", "read_task", "resume_task", "run_task"]
