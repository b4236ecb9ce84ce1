"""CLI sub-commands of Web QA: ``ask``, ``resume``, ``show`` and ``demo``.

Thin: each command parses its options and calls the public API a notebook calls
(``ditto_nb.patterns.web_qa.create_task`` / ``open_web_qa`` / ``run_web_qa``). Expected failures
(any ``DittoError``) print ``error: <message>`` and ``help: <hint>`` on stderr and exit with code 2.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ditto_nb.cli.flags import check_choice, check_flags
from ditto_nb.cli.paths import check_task_dir
from ditto_nb.cli.progress import StageProgress
from ditto_nb.cli.qa_render import render_checkpoint, render_failures, render_report, render_stages, render_withheld
from ditto_nb.cli.qa_session import (
    STAGES,
    CliTask,
    SandboxChoice,
    as_mapping,
    cli_errors,
    load_config,
    read_cli_task,
    read_task_file,
    report_path,
    run_task,
    sandbox_web,
    search_setup,
    select_model,
    task_pattern,
    without_launch,
    write_cli_task,
)
from ditto_nb.errors import ConfigError
from ditto_nb.runtime.config import RuntimeConfig
from ditto_nb.runtime.sync import run_sync
from ditto_nb.web.policy import origin_of

if TYPE_CHECKING:
    from ditto_nb.patterns.common.view import TaskView


TASKS_ROOT = Path(".ditto-tasks")
"""Where new task directories go by default (relative to the working directory)."""

ConfigOption = Annotated[
    Optional[Path],  # noqa: UP007 (typer needs Optional)
    typer.Option("--config", help="ditto.yaml to use (default: ./ditto.yaml, else the packaged default)."),
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No stage progress on stderr.")]
StopAfterOption = Annotated[
    Optional[str],  # noqa: UP007
    typer.Option("--stop-after", help=f"Stop after this stage and save a checkpoint: {', '.join(STAGES)}."),
]


def _check_stage(stop_after: str | None) -> None:
    check_choice("--stop-after", stop_after, STAGES)


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


def _run(directory: Path, task: CliTask, config: RuntimeConfig, web: Any, stop_after: str | None, quiet: bool) -> Any:
    with StageProgress(f"web_qa {task.request.get('id')}", enabled=not quiet) as progress:
        return run_sync(run_task(directory, task, config, web, stop_after=stop_after, on_graph=progress.on_graph))


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
    from ditto_nb.patterns.web_qa import WebQaRequest, create_task

    config, provider_name, model_name = select_model(load_config(str(config_path) if config_path else None), provider, model)
    previous = read_task_file(check_task_dir(directory)) if directory is not None else None
    previous_cli = (previous or {}).get("cli") or {}
    task_id = task_id or (previous_cli.get("request") or {}).get("id") or _new_task_id()
    task_dir = directory if directory is not None else TASKS_ROOT / task_id
    choice = None
    if sandbox is not None:
        corpus = str(sandbox.resolve())
        port = ((previous_cli.get("sandbox") or {}).get("port")) or 0
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
        run_sync(create_task(task_dir, request, search_setup(config, web)))  # makes the directory
        task = CliTask(
            request=request.model_dump(mode="json"),
            provider=provider_name,
            model=model_name,
            config=str(config_path.resolve()) if config_path else None,
            sandbox=choice,
        )
        write_cli_task(task_dir, task)
        if not quiet:
            typer.echo(f"task directory: {task_dir}", err=True)
        if report_path(task_dir).is_file():
            config = without_launch(config, provider_name)
        _finish(_run(task_dir, task, config, web, stop_after, quiet), task_dir)
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
    task = read_cli_task(directory)
    path = str(config_path) if config_path is not None else task.config
    config, _, _ = select_model(load_config(path), task.provider, task.model)
    if report_path(directory).is_file():
        config = without_launch(config, task.provider)
    with sandbox_web(task.sandbox) as web:
        _finish(_run(directory, task, config, web, stop_after, quiet), directory)


def ask(
    question: Annotated[str, typer.Argument(help="The question to answer.")],
    directory: Annotated[
        Optional[Path],  # noqa: UP007
        typer.Option("--dir", help="Task directory (default: a new one under ./.ditto-tasks/)."),
    ] = None,
    task_id: Annotated[Optional[str], typer.Option("--id", help="Task id (default: generated).")] = None,  # noqa: UP007
    max_queries: Annotated[Optional[int], typer.Option("--max-queries", help="Search queries (1-3).")] = None,  # noqa: UP007
    max_pages: Annotated[Optional[int], typer.Option("--max-pages", help="Pages read (1-6).")] = None,  # noqa: UP007
    cross_check: Annotated[
        Optional[bool],  # noqa: UP007
        typer.Option("--cross-check/--no-cross-check", help="Require two independent origins per claim."),
    ] = None,
    allow_partial: Annotated[
        Optional[bool],  # noqa: UP007
        typer.Option("--allow-partial/--no-allow-partial", help="Tolerate failed sources (recorded in the report)."),
    ] = None,
    reference_url: Annotated[
        Optional[list[str]],  # noqa: UP007
        typer.Option("--reference-url", help="A page that must be read and cited (repeatable)."),
    ] = None,
    allowed_origin: Annotated[
        Optional[list[str]],  # noqa: UP007
        typer.Option("--allowed-origin", help="An https://host[:port] origin the task may read (repeatable)."),
    ] = None,
    provider: Annotated[Optional[str], typer.Option("--provider", help="Model provider from ditto.yaml.")] = None,  # noqa: UP007
    model: Annotated[Optional[str], typer.Option("--model", help="Model name (default: the provider's).")] = None,  # noqa: UP007
    stop_after: StopAfterOption = None,
    sandbox: Annotated[
        Optional[Path],  # noqa: UP007
        typer.Option("--sandbox", help="Run against a sandbox web built from this corpus JSONL.", exists=True),
    ] = None,
    config: ConfigOption = None,
    quiet: QuietOption = False,
) -> None:
    """Answer one question with exact-quote citations; print the answer and the report paths."""
    with cli_errors():
        _check_stage(stop_after)
        from ditto_nb.patterns.web_qa import WebQaRequest

        check_flags(WebQaRequest, {"max_queries": max_queries, "max_pages": max_pages},
                    {"max_queries": "--max-queries", "max_pages": "--max-pages"})
        start_task(
            question,
            directory,
            task_id=task_id,
            request_fields={
                "max_queries": max_queries,
                "max_pages": max_pages,
                "cross_check": cross_check,
                "allow_partial": allow_partial,
            },
            reference_urls=reference_url,
            allowed_origins=allowed_origin,
            provider=provider,
            model=model,
            stop_after=stop_after,
            sandbox=sandbox,
            config_path=config,
            quiet=quiet,
        )


def resume(
    directory: Annotated[Path, typer.Argument(help="A task directory (Web QA or deep research).")],
    stop_after: StopAfterOption = None,
    config: ConfigOption = None,
    quiet: QuietOption = False,
) -> None:
    """Continue a task from its last completed stage (a finished task re-publishes without model calls)."""
    with cli_errors():
        if task_pattern(directory) == "deep_research":
            from ditto_nb.cli import research

            resume_research = getattr(research, "resume_research_cli", None) or getattr(research, "resume_research")
            resume_research(directory, config)
            return
        _check_stage(stop_after)
        resume_task(directory, stop_after, quiet, config)


def show(
    directory: Annotated[Path, typer.Argument(help="A Web QA task directory.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the published report JSON.")] = False,
) -> None:
    """Show a task: status, answer, claims with quotes, URL, paragraph and citations (or its checkpoint)."""
    with cli_errors():
        view = _memory_view(directory)
        failures = render_failures(view.failures, view.last_failure) if view is not None else ""
        if task_pattern(directory) == "deep_research":
            typer.echo(_research_summary(directory))
            if failures:
                typer.echo(failures)
            return
        task = read_cli_task(directory)
        published = report_path(directory)
        if as_json:
            if not published.is_file():
                raise ConfigError(f"{directory} has no published report yet", help=f"Run `ditto-nb resume {directory}`.")
            typer.echo(published.read_text(encoding="utf-8"))
            return
        stages = run_sync(_stored_stages(directory, task))
        failed = view is not None and view.last_failure is not None
        typer.echo(render_stages(task, stages, published.is_file(), failed))
        if failures:
            typer.echo(failures)
        if published.is_file():
            typer.echo(render_report(json.loads(published.read_text(encoding="utf-8")), directory))
        if view is not None and view.withheld:
            typer.echo(render_withheld(view.withheld))
        if not published.is_file():
            typer.echo(f"continue with: ditto-nb resume {directory}")


def _memory_view(directory: Path) -> TaskView | None:
    """The task's read-only Memory view (the one TaskView), or None before any Memory."""
    from ditto_nb.patterns.common import load_task

    if not (directory / "memory.sqlite3").is_file():
        return None
    try:
        return load_task(directory)
    except ConfigError:
        return None


async def _stored_stages(directory: Path, task: CliTask) -> dict[str, Any]:
    """``{stage: output}`` persisted in the task's Memory (through the read-only TaskView)."""
    from ditto_nb.patterns.common import STAGE_PREFIX, load_task
    from ditto_nb.patterns.web_qa import WebQaRequest

    if not (directory / "memory.sqlite3").is_file():
        return {}
    view = load_task(directory, WebQaRequest.parse(task.request).namespace)
    return dict(view.prefixed(STAGE_PREFIX))


def _research_summary(directory: Path) -> str:
    """The research report as Markdown, or where the task stands (through the TaskView)."""
    from ditto_nb.patterns.common import load_task
    from ditto_nb.patterns.deep_research.report import render_markdown

    if not (directory / "memory.sqlite3").is_file():
        return "deep research task: not started yet"
    view = load_task(directory)
    if view.report is not None:
        return render_markdown(view.report).rstrip("\n")
    rounds = len(view.prefixed("stage/round/"))
    used = ", ".join(f"{name} {count}" for name, count in view.budgets().items())
    return (f"deep research task: no report yet (plan {'done' if view.stage('plan') else 'pending'}, "
            f"{rounds} round(s) done; budgets used: {used})\ncontinue with: ditto-nb resume {directory}")


def register(app: typer.Typer) -> None:
    """Add ``ask``, ``resume``, ``show`` and ``demo`` to ``app``."""
    from ditto_nb.cli.qa_demo import demo

    app.command("ask")(ask)
    app.command("resume")(resume)
    app.command("show")(show)
    app.command("demo")(demo)


__all__ = ["TASKS_ROOT", "ask", "register", "resume", "resume_task", "show", "start_task"]
