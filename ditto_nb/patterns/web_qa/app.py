"""Web QA entry points: open a task's app, run it (SPEC §3, §5).

A task directory is made by :func:`ditto_nb.patterns.tasks.create_task`.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from typing import Any, cast

from typing_extensions import Unpack

from ditto_nb.web.config import SearchConfig
from ditto_nb.patterns.common import SearchSetup, TaskApp, build_task_tools
from ditto_nb.patterns.common.app import OpenOptions, open_pattern_app
from ditto_nb.patterns.common.failures import run_recorded
from ditto_nb.patterns.web_qa.plan import run_web_qa_loop
from ditto_nb.patterns.web_qa.rule_set import RULE_NAMES
from ditto_nb.patterns.web_qa.rules import rules_off as resolve_rules_off
from ditto_nb.patterns.web_qa.report import WebQaReport, published_report
from ditto_nb.patterns.web_qa.request import WebQaRequest
from ditto_nb.patterns.web_qa.stage_models import WebQaReportJson
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.runtime.loop import OnGraph
from ditto_nb.runtime.runtime import Runtime
from ditto_nb.runtime.signal import Signal

Checkpoint = dict[str, str]
"""``{"status": "checkpoint", "stage": <stage>}``."""


async def open_web_qa(
    directory: str | os.PathLike[str],
    request: WebQaRequest | Mapping[str, Any],
    config: RuntimeConfig,
    search: SearchSetup | SearchConfig | None = None,
    **options: Unpack[OpenOptions],
) -> TaskApp:
    """Open the task's app: TaskLock, SQLite Memory, Redis Context, Infer, Interaction tools.

    Args:
        directory: the task directory.
        request: the request (its allowed origins shape the page-read policy).
        config: runtime configuration (model providers, ``context.redis_url``).
        search: provider choice and policy extras (``permitted_origins`` = current grant); a
            ``SearchConfig`` or None is accepted (None: the configured default).
        options: :class:`~ditto_nb.patterns.common.app.OpenOptions` (``env``, ``base_urls``,
            ``provider``; the default provider is ``search.build_provider()``).

    Returns:
        The :class:`~ditto_nb.patterns.common.TaskApp` (use ``.runtime``; ``await app.close()``).

    Raises:
        InvalidRequest: the request is invalid.
        TaskLocked: another process holds the directory.
        ModelServerCrashed, ModelTransportError: the local model server failed to start or its
            start-up probe (recorded in Memory as a ``start-up`` failure).
    """
    req = WebQaRequest.parse(request)
    return await open_pattern_app(
        directory, req.namespace, config,
        lambda provider: build_task_tools(directory, req.allowed_origins, SearchSetup.coerce(search), provider=provider),
        options)


async def run_web_qa(
    runtime: Runtime,
    input: Mapping[str, Any],
    stop_after: str | None = None,
    signal: Signal | None = None,
    *,
    on_graph: OnGraph | None = None,
    max_model_calls: int = 6,
    rules_off: Collection[str] | None = None,
) -> WebQaReport | Checkpoint:
    """Run (or resume) a Web QA task in one Loop.

    Args:
        runtime: the app's Runtime (:func:`open_web_qa`).
        input: ``{"request": ..., "model": {"provider", "model"}}``.
        stop_after: ``plan``, ``searched``, ``read``, ``selected``, ``hop-searched``, ``hop-read`` or
            ``report`` to stop there (:data:`~ditto_nb.patterns.web_qa.plan.STAGES`).
        signal: abort/timeout; cancels the running graph and schedules nothing more.
        on_graph: trace callback, one record per executed graph.
        max_model_calls: cap on model calls in this run (SPEC §3: 6).
        rules_off: answer rules switched off by name (:data:`~ditto_nb.patterns.web_qa.rule_set.RULE_NAMES`);
            None → the ``DITTO_RULES_OFF`` environment variable (comma-separated).

    Returns:
        The published :class:`WebQaReport`, or a checkpoint ``{"status": "checkpoint", "stage"}``.

    A typed failure is recorded in the task's Memory (``failure/<time>``: stage, error type,
    message, time; :mod:`ditto_nb.patterns.common.failures`) before it is raised.

    Raises:
        InvalidRequest: an unknown rule name in ``rules_off`` / ``DITTO_RULES_OFF``.
        RequestChanged, PermissionRevoked, SnapshotCorrupted, BudgetExceeded, UngroundedAnswer,
        SearchFailed, ReadFailed, PublishFailed, LoopCancelled, ContextUnavailable: see
        :func:`~ditto_nb.patterns.web_qa.plan.run_web_qa_loop`.
    """
    off = sorted(resolve_rules_off(rules_off, RULE_NAMES))
    options = {"stop_after": stop_after, "max_model_calls": max_model_calls, "rules_off": off}
    namespace = WebQaRequest.parse(input["request"]).namespace
    result = await run_recorded(
        runtime, namespace, on_graph,
        lambda tracker: runtime.loop(run_web_qa_loop, [input, options], signal=signal, on_graph=tracker),
    )
    if result.get("status") == "checkpoint":
        return {"status": "checkpoint", "stage": str(cast(Checkpoint, result)["stage"])}
    return WebQaReport.model_validate(published_report(cast(WebQaReportJson, result)))  # what report.json holds


__all__ = ["Checkpoint", "open_web_qa", "run_web_qa"]
