"""Public entry points of deep research: create a task, open its app, run it, resume it.

``create_task`` validates the request and marks the directory as a research task
(``task.json``: pattern, request, model — a pointer for ``ditto-nb resume``; Memory stays
authoritative). ``open_research`` registers the four public Workers; ``run_research`` runs the
whole task in ONE ``runtime.loop`` of :func:`~ditto_nb.patterns.deep_research.plan.run_research_loop`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from typing_extensions import Unpack

from ditto_nb.errors import ConfigError, InvalidRequest, RequestChanged
from ditto_nb.patterns.common import SearchSetup, TaskApp
from ditto_nb.patterns.common.app import OpenOptions, open_pattern_app
from ditto_nb.patterns.common.failures import run_recorded
from ditto_nb.web.config import SearchConfig
from ditto_nb.patterns.common.records import JsonObject
from ditto_nb.patterns.deep_research.plan import LoopInput, LoopResult, run_research_loop
from ditto_nb.patterns.deep_research.report import ResearchReport
from ditto_nb.patterns.deep_research.request import ResearchRequest, parse_request
from ditto_nb.patterns.deep_research.tools import build_research_tools
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.runtime.model_choice import resolve_model
from ditto_nb.runtime.loop import OnGraph
from ditto_nb.runtime.runtime import Runtime
from ditto_nb.runtime.signal import Signal

TASK_FILE = "task.json"
PATTERN = "deep_research"
StopAfter = Literal["plan", "round", "report"]


class ModelChoice(BaseModel):
    """Which model answers the research calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str
    model: str


class ResearchInput(BaseModel):
    """Input of :func:`run_research`: the request and the model choice."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request: ResearchRequest
    model: ModelChoice


def create_task(
    directory: str | os.PathLike[str], request: ResearchRequest | JsonObject, search: SearchSetup | None = None
) -> ResearchRequest:
    """Validate ``request`` and mark ``directory`` as its research task directory.

    Args:
        directory: the task directory (created if missing).
        request: the request (or its JSON form).
        search: unused except for symmetry with the reference API (provider choice is passed to
            :func:`open_research`).

    Returns:
        The validated request.

    Raises:
        InvalidRequest: the request is outside its documented ranges.
        RequestChanged: the directory already holds a different research request.
    """
    del search
    parsed = parse_request(dict(request) if isinstance(request, Mapping) else request)
    task_dir = Path(directory)
    task_dir.mkdir(parents=True, exist_ok=True)
    marker = task_dir / TASK_FILE
    payload = {"pattern": PATTERN, "request": parsed.model_dump(mode="json")}
    if marker.exists():
        existing = _load_marker(marker)
        if existing.get("request") != payload["request"]:
            raise RequestChanged(f"{task_dir} already holds a different research request; use a new directory")
        return parsed
    marker.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return parsed


def _load_marker(marker: Path) -> JsonObject:
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {marker}: {exc}", help=f"Repair or remove {marker}, or use a new directory.") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{marker} is not a JSON object", help=f"Repair or remove {marker}, or use a new directory.")
    return data


def read_task(directory: str | os.PathLike[str]) -> ResearchRequest | None:
    """The research request a directory was created for, or None when it is not a research task.

    Args:
        directory: a task directory.

    Returns:
        The request from ``task.json`` when its pattern is ``deep_research``.

    Raises:
        ConfigError: ``task.json`` is unreadable or not a JSON object.
        InvalidRequest: the stored request is not a valid research request.
    """
    marker = Path(directory) / TASK_FILE
    if not marker.exists():
        return None
    data = _load_marker(marker)
    if data.get("pattern") != PATTERN:
        return None
    return parse_request(data.get("request"))  # type: ignore[arg-type]


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
    input: ResearchInput | JsonObject,
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
        directory: a directory made by :func:`create_task`.
        config: runtime configuration.
        search: search setup.
        model: explicit model choice; None resolves it (``task.json``'s, else ``ditto.yaml``'s) by
            :func:`ditto_nb.runtime.model_choice.resolve_model`.
        stop_after: as in :func:`run_research`.
        base_urls: provider → base URL overrides.

    Returns:
        What :func:`run_research` returns.

    Raises:
        ConfigError: the directory is not a research task or no model is configured.
    """
    request = read_task(directory)
    if request is None:
        raise ConfigError(f"{directory} is not a deep research task directory (no {TASK_FILE})")
    data = json.loads((Path(directory) / TASK_FILE).read_text(encoding="utf-8"))
    resolved = resolve_model(config, model.provider if model else None, model.model if model else None,
                             recorded=data.get("model"))
    model = ModelChoice(provider=resolved.provider, model=resolved.model)
    app = await open_research(directory, request, resolved.config, search, base_urls=base_urls)
    try:
        return await run_research(app.runtime, ResearchInput(request=request, model=model), stop_after=stop_after)
    finally:
        await app.close()


def remember_model(directory: str | os.PathLike[str], model: ModelChoice) -> None:
    """Record the model choice in ``task.json`` so ``resume`` reuses it.

    Args:
        directory: a research task directory.
        model: the model choice.
    """
    marker = Path(directory) / TASK_FILE
    data = _load_marker(marker)
    data["model"] = model.model_dump()
    marker.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


__all__ = [
    "ModelChoice",
    "ResearchInput",
    "create_task",
    "open_research",
    "read_task",
    "remember_model",
    "resume_research",
    "run_research",
]
