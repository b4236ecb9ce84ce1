"""Running a Web QA task from the CLI: :func:`start_task` (``ask``, ``demo``) and
:func:`resume_task` (``resume``), printing the report or the checkpoint.

Thin: they call the public API a notebook calls (``ditto_nb.patterns.tasks.create_task``,
``ditto_nb.patterns.web_qa.open_web_qa`` / ``run_web_qa``) through :mod:`ditto_nb.cli.qa_session`;
``task.json`` is read and written through :mod:`ditto_nb.patterns.common.task_file`.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path
from typing import Any

import typer

from ditto_nb.cli.paths import check_task_dir
from ditto_nb.cli.progress import StageProgress
from ditto_nb.cli.qa_render import render_checkpoint, render_report
from ditto_nb.cli.qa_session import (
    as_mapping,
    load_config,
    report_path,
    run_task,
    sandbox_web,
    search_setup,
    select_model,
    without_launch,
)
from ditto_nb.errors import ConfigError
from ditto_nb.patterns.common.task_file import (
    ModelChoice,
    SandboxChoice,
    TaskFile,
    read_task_file,
    require_task_file,
    update_task_file,
)
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.runtime.sync import run_sync
from ditto_nb.web.policy import origin_of

TASKS_ROOT = Path(".ditto-tasks")
"""Where new task directories go by default (relative to the working directory)."""


def _new_task_id() -> str:
    return f"qa-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


def _default_origins(config: RuntimeConfig, references: list[str]) -> list[str]:
    origins: list[str] = []
    if config.search.provider == "mediawiki":
        origins.append(origin_of(config.search.mediawiki_api_url))
    origins += [origin_of(url) for url in references]
    if not origins:
        raise ConfigError(
            f"the {config.search.provider} search provider needs explicit origins",
            help="Pass --allowed-origin https://host for every site the task may read.",
        )
    return list(dict.fromkeys(origins))


def _finish(result: Any, directory: Path) -> None:
    """Print a run's result on stdout: the report, or the checkpoint and how to continue."""
    data = as_mapping(result)
    if data.get("status") == "checkpoint":
        typer.echo(render_checkpoint(data, directory))
    else:
        typer.echo(render_report(data, directory))


def _run(directory: Path, task: TaskFile, config: RuntimeConfig, model: ModelChoice, web: Any,
         stop_after: str | None, quiet: bool) -> Any:
    with StageProgress(f"web_qa {task.request.get('id')}", enabled=not quiet) as progress:
        return run_sync(run_task(directory, task, config, web, model, stop_after=stop_after,
                                 on_graph=progress.on_graph))


def start_task(
    question: str,
    directory: Path | None,
    *,
    task_id: str | None = None,
    request_fields: dict[str, Any] | None = None,
    reference_urls: list[str] | None = None,
    allowed_origins: list[str] | None = None,
    provider: str | None = None,
    model: str | None = None,
    stop_after: str | None = None,
    sandbox: Path | None = None,
    config_path: Path | None = None,
    quiet: bool = False,
) -> Path:
    """Create (or continue) a Web QA task and run it; print the result. Used by ``ask`` and ``demo``.

    Args:
        question: the question.
        directory: task directory (None: ``./.ditto-tasks/<task id>``).
        task_id: the request id (None: the id recorded in the directory, else a new one).
        request_fields: other request fields (``max_queries``, ``max_pages``, ``cross_check``,
            ``allow_partial``); None values are left to the request's defaults.
        reference_urls: pages that must be read and cited.
        allowed_origins: origins the task may read (None: the sandbox's, or the search API's
            origin plus the reference URLs' origins).
        provider: model provider (None: the configuration's default).
        model: model name (None: the provider's).
        stop_after: stop after this stage (checkpoint).
        sandbox: a sandbox corpus JSONL to run against (offline web) instead of the real web.
        config_path: ``ditto.yaml`` (None: default lookup).
        quiet: no progress output.

    Returns:
        The task directory.

    Raises:
        DittoError: configuration, request or task failures.
    """
    from ditto_nb.patterns.tasks import create_task
    from ditto_nb.patterns.web_qa import WebQaRequest

    config, provider_name, model_name = select_model(load_config(str(config_path) if config_path else None), provider, model)
    previous = read_task_file(check_task_dir(directory)) if directory is not None else None
    if previous is not None and previous.pattern != "web_qa":
        previous = None  # create_task refuses the directory below
    task_id = task_id or (previous.request.get("id") if previous is not None else None) or _new_task_id()
    task_dir = directory if directory is not None else TASKS_ROOT / task_id
    choice = None
    if sandbox is not None:
        corpus = str(sandbox.resolve())
        port = previous.sandbox.port if previous is not None and previous.sandbox is not None else 0
        choice = SandboxChoice(corpus=corpus, port=port)
    with sandbox_web(choice) as web:
        if web is not None and choice is not None and choice.port == 0:
            choice = SandboxChoice(corpus=choice.corpus, port=web.port, wiki_host=choice.wiki_host)
        references = list(reference_urls or [])
        origins = list(allowed_origins or (web.allowed_origins if web is not None else _default_origins(config, references)))
        fields = {k: v for k, v in (request_fields or {}).items() if v is not None}
        request = WebQaRequest.parse(
            {
                "id": task_id,
                "tenant": "cli",
                "principal": os.environ.get("DITTO_PRINCIPAL", "analyst"),
                "question": question,
                "allowed_origins": origins,
                "reference_urls": references,
                **fields,
            }
        )
        run_sync(create_task(task_dir, request, search_setup(config, web), memory=config.memory))  # makes the directory
        chosen = ModelChoice(provider=provider_name, model=model_name)
        task = update_task_file(task_dir, model=chosen, config=str(config_path.resolve()) if config_path else None,
                                sandbox=choice)
        if not quiet:
            typer.echo(f"task directory: {task_dir}", err=True)
        if report_path(task_dir).is_file():
            config = without_launch(config, provider_name)
        _finish(_run(task_dir, task, config, chosen, web, stop_after, quiet), task_dir)
    return task_dir


def resume_task(
    directory: Path, stop_after: str | None = None, quiet: bool = False, config_path: Path | None = None
) -> None:
    """Continue (or replay) the Web QA task of a directory made by :func:`start_task`; print the result.

    Args:
        directory: the task directory.
        stop_after: stop after this stage (checkpoint).
        quiet: no progress output.
        config_path: ``ditto.yaml`` overriding the one recorded in the task file.

    Raises:
        DittoError: configuration or task failures.
    """
    task = require_task_file(directory)
    path = str(config_path) if config_path is not None else task.config
    recorded = task.model
    config, provider, model = select_model(load_config(path), recorded.provider if recorded else None,
                                           recorded.model if recorded else None)
    if report_path(directory).is_file():
        config = without_launch(config, provider)
    with sandbox_web(task.sandbox) as web:
        _finish(_run(directory, task, config, ModelChoice(provider=provider, model=model), web, stop_after, quiet),
                directory)


__all__ = ["TASKS_ROOT", "resume_task", "start_task"]
