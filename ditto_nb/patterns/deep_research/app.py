"""Public entry points of deep research: open a task's app, run it, resume it.

A task directory is made by :func:`ditto_nb.patterns.tasks.create_task` (``task.json``:
:mod:`ditto_nb.patterns.common.task_file`; Memory stays authoritative). ``open_research``
registers the four public Workers; ``run_research`` runs the whole task in ONE ``runtime.loop``
of :func:`~ditto_nb.patterns.deep_research.plan.run_research_loop`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict
from typing_extensions import Unpack

from ditto_nb.errors import ConfigError, InvalidRequest
from ditto_nb.patterns.common import SearchSetup, TaskApp
from ditto_nb.patterns.common.app import OpenOptions, open_pattern_app
from ditto_nb.patterns.common.failures import run_recorded
from ditto_nb.patterns.common.task_file import ModelChoice, require_task_file
from ditto_nb.web.config import SearchConfig
from ditto_nb.patterns.deep_research.plan import LoopInput, LoopResult, run_research_loop
from ditto_nb.patterns.deep_research.report import ResearchReport
from ditto_nb.patterns.deep_research.request import ResearchRequest, parse_request
from ditto_nb.patterns.deep_research.tools import build_research_tools
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.runtime.model_choice import resolve_model
from ditto_nb.runtime.loop import OnGraph
from ditto_nb.runtime.runtime import Runtime
from ditto_nb.runtime.signal import Signal

StopAfter = Literal["plan", "round", "report"]


class ResearchInput(BaseModel):
    """Input of :func:`run_research`: the request and the model choice."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request: ResearchRequest
    model: ModelChoice


async def open_research(
    directory: str | os.PathLike[str],
    request: ResearchRequest,
    config: RuntimeConfig,
    search: SearchSetup | SearchConfig | None = None,
    *,
    clock: Callable[[], float] = time.time,
    **options: Unpack[OpenOptions],
) -> TaskApp:
    """Open the task's Runtime: Context (Redis), Memory (SQLite), Infer, Interaction.

    Args:
        directory: the task directory.
        request: the validated request (its allowed origins bound the page policy).
        config: runtime configuration (models, Redis URL).
        search: search provider choice and fetch-policy extras.
        clock: time source of the ``clock`` tool (seconds since the epoch).
        options: :class:`~ditto_nb.patterns.common.app.OpenOptions` (``env``, ``base_urls``,
            ``provider``).

    Returns:
        The opened :class:`TaskApp`; close it with ``await app.close()``.

    Raises:
        TaskLocked: another process holds the directory.
        StorageError, ConfigError: see :func:`ditto_nb.patterns.common.open_task_app`.
    """
    return await open_pattern_app(
        directory, request.namespace, config,
        lambda provider: build_research_tools(directory, request.allowed_origins, SearchSetup.coerce(search),
                                              clock=clock, provider=provider),
        options)


async def run_research(
    runtime: Runtime,
    input: ResearchInput | Mapping[str, object],
    stop_after: StopAfter | None = None,
    signal: Signal | None = None,
    on_graph: OnGraph | None = None,
) -> ResearchReport | LoopResult:
    """Run (or resume, or replay) one research task in a single Loop.

    Args:
        runtime: the task's Runtime (:func:`open_research`).
        input: ``{"request": ..., "model": {"provider", "model"}}``.
        stop_after: ``"plan"``, ``"round"`` (after each round that did new work) or ``"report"``
            (saved, not published); None runs to the published report.
        signal: hard cancel (``LoopCancelled``); completed work stays in Memory.
        on_graph: trace callback, one record per executed Graph.

    Returns:
        A checkpoint ``{"status": "checkpoint", "stage", "round", "budgets"}`` or the
        :class:`ResearchReport` (published to ``output/report.md`` and ``output/report.json``).

    Raises:
        InvalidRequest: bad request or ``stop_after``.
        RequestChanged, PermissionRevoked, SnapshotCorrupted, SearchFailed, ReadFailed,
        BudgetExceeded, PublishFailed, LoopCancelled, and Worker errors; each
        recorded in the task's Memory first (:mod:`ditto_nb.patterns.common.failures`).
    """
    if stop_after not in (None, "plan", "round", "report"):
        raise InvalidRequest(f"stop_after must be plan, round or report, got {stop_after!r}")
    try:
        parsed = input if isinstance(input, ResearchInput) else ResearchInput.model_validate(dict(input))
    except ValueError as exc:
        raise InvalidRequest(f"invalid research input: {exc}") from None
    args: LoopInput = {"request": parsed.request, "model": parsed.model.model_dump(), "stop_after": stop_after}
    result = await run_recorded(
        runtime, parsed.request.namespace, on_graph,
        lambda tracker: runtime.loop(run_research_loop, [args], signal=signal, on_graph=tracker),
    )
    if result.get("status") == "done":
        return ResearchReport.model_validate(result["report"])
    return result


async def resume_research(
    directory: str | os.PathLike[str],
    config: RuntimeConfig,
    search: SearchSetup,
    *,
    model: ModelChoice | None = None,
    stop_after: StopAfter | None = None,
    base_urls: Mapping[str, str] | None = None,
) -> ResearchReport | LoopResult:
    """Resume the research task of ``directory`` (for ``ditto-nb resume DIR``).

    Args:
        directory: a research task directory (made by :func:`ditto_nb.patterns.tasks.create_task`).
        config: runtime configuration.
        search: search setup.
        model: explicit model choice; None resolves it (``task.json``'s, else ``ditto.yaml``'s) by
            :func:`ditto_nb.runtime.model_choice.resolve_model`.
        stop_after: as in :func:`run_research`.
        base_urls: provider → base URL overrides.

    Returns:
        What :func:`run_research` returns.

    Raises:
        ConfigError: the directory is not a research task (its ``task.json`` is missing, damaged
            or of another pattern) or no model is configured.
        InvalidRequest: the recorded request is not a valid research request.
    """
    task = require_task_file(directory)
    if task.pattern != "deep_research":
        raise ConfigError(f"{directory} holds a {task.pattern} task, not a deep research task",
                          help="Resume it with `ditto-nb resume DIR`, which picks the task's pattern.")
    request = parse_request(task.request)
    resolved = resolve_model(config, model.provider if model else None, model.model if model else None,
                             recorded=task.model.model_dump() if task.model else None)
    model = ModelChoice(provider=resolved.provider, model=resolved.model)
    app = await open_research(directory, request, resolved.config, search, base_urls=base_urls)
    try:
        return await run_research(app.runtime, ResearchInput(request=request, model=model), stop_after=stop_after)
    finally:
        await app.close()


__all__ = [
    "ModelChoice",
    "ResearchInput",
    "open_research",
    "resume_research",
    "run_research",
]
