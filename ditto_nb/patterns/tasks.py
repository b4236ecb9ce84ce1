"""One ``create_task`` / ``open_task`` / ``run_task`` / ``resume_task`` shape for both patterns.

The request's class chooses the pattern (:class:`~ditto_nb.patterns.web_qa.WebQaRequest` or
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

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from typing_extensions import Unpack

from ditto_nb.errors import ConfigError, InvalidRequest
from ditto_nb.patterns.common import SearchSetup, TaskApp, TaskRequest, load_task
from ditto_nb.patterns.common.app import OpenOptions
from ditto_nb.patterns.common.task import bind_task
from ditto_nb.patterns.deep_research import ResearchReport, ResearchRequest
from ditto_nb.patterns.deep_research import create_task as create_research_marker
from ditto_nb.patterns.deep_research import open_research, run_research
from ditto_nb.patterns.deep_research.plan import LoopResult
from ditto_nb.patterns.web_qa import WebQaReport, WebQaRequest, open_web_qa, run_web_qa
from ditto_nb.patterns.web_qa.app import Checkpoint
from ditto_nb.patterns.web_qa import create_task as create_web_qa_task
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.runtime.model_choice import resolve_model

TaskResult = WebQaReport | ResearchReport | Checkpoint | LoopResult
"""A published report, or a checkpoint ``{"status": "checkpoint", "stage", ...}``."""

_TASK_FILE = "task.json"


async def create_task(
    directory: str | os.PathLike[str], request: TaskRequest, search: SearchSetup | None = None
) -> TaskRequest:
    """Create (or re-open) a task directory bound to ``request`` in its Memory.

    Args:
        directory: the task directory (created if missing).
        request: a :class:`WebQaRequest` or :class:`ResearchRequest`.
        search: the search setup (checked against the request's origins for Web QA).

    Returns:
        The request.

    Raises:
        InvalidRequest: not a request of a known pattern.
        RequestChanged: the directory is bound to a different request.
        TaskLocked: another process holds the directory.
    """
    if isinstance(request, WebQaRequest):
        return await create_web_qa_task(directory, request, search)
    if isinstance(request, ResearchRequest):
        create_research_marker(directory, request)
        await bind_task(directory, request)
        return request
    raise InvalidRequest(f"not a Web QA or research request: {type(request).__name__}")


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
    marker = directory / _TASK_FILE
    if not marker.is_file():
        return None
    data = json.loads(marker.read_text(encoding="utf-8"))
    recorded = data.get("model") or (data.get("cli") or {})
    if recorded.get("provider") and recorded.get("model"):
        return {"provider": str(recorded["provider"]), "model": str(recorded["model"])}
    return None


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


__all__ = ["TaskResult", "create_task", "open_task", "resume_task", "run_task"]
