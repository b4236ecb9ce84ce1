"""CLI sub-commands of Web QA: ``ask``, ``resume``, ``show`` and ``demo`` (:mod:`ditto_nb.cli.qa_demo`).

Thin: each command parses its options and calls (through :mod:`ditto_nb.cli.qa_run`) the public API a notebook calls
(``ditto_nb.patterns.tasks.create_task``, ``ditto_nb.patterns.web_qa.open_web_qa`` / ``run_web_qa``). Expected failures
(any ``DittoError``) print ``error: <message>`` and ``help: <hint>`` on stderr and exit with code 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ditto_nb.cli.flags import check_choice, check_flags, check_origins
from ditto_nb.cli.qa_render import render_failures, render_report, render_stages, render_withheld
from ditto_nb.cli.qa_run import TASKS_ROOT, resume_task, start_task
from ditto_nb.cli.qa_session import STAGES, cli_errors, load_config, report_path
from ditto_nb.errors import ConfigError
from ditto_nb.patterns.common.task_file import TaskFile, read_task_file, require_task_file
from ditto_nb.runtime.config import MemoryConfig
from ditto_nb.runtime.sync import run_sync

if TYPE_CHECKING:
    from ditto_nb.patterns.common.view import TaskView


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


def _is_research(directory: Path) -> bool:
    """True when ``directory``'s ``task.json`` records a deep research task."""
    task = read_task_file(directory)
    return task is not None and task.pattern == "deep_research"


def ask(
    question: Annotated[str, typer.Argument(help="The question to answer.")],
    directory: Annotated[
        Optional[Path],  # noqa: UP007
        typer.Option("--dir", help="Task directory (default: a new one under ./.ditto-tasks/)."),
    ] = None,
    task_id: Annotated[Optional[str], typer.Option("--id", help="Task id (default: generated).")] = None,  # noqa: UP007
    max_queries: Annotated[Optional[int], typer.Option("--max-queries", help="Search queries (1-3; default 2).")] = None,  # noqa: UP007
    max_pages: Annotated[Optional[int], typer.Option("--max-pages", help="Pages read (1-6; default 6).")] = None,  # noqa: UP007
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
        check_origins("--allowed-origin", allowed_origin or [])
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
        if _is_research(directory):
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
        if _is_research(directory):
            typer.echo(_research_summary(directory))
            if failures:
                typer.echo(failures)
            return
        task = require_task_file(directory)
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


def _memory_config(directory: Path) -> MemoryConfig | None:
    """The Memory backend of a task (SQLite: None): a directory holding a PostgreSQL ``task-id``
    is read with ``memory`` of the configuration its run used (the recorded ``--config``)."""
    from ditto_nb.workers.memory import TASK_ID_FILE_NAME

    if not (directory / TASK_ID_FILE_NAME).is_file():
        return None
    task = read_task_file(directory)
    recorded = task.config if task is not None else None
    memory = load_config(recorded).memory
    return memory if memory.backend != "sqlite" else None


def _load_view(directory: Path, namespace: str | None = None) -> TaskView:
    from ditto_nb.patterns.common import load_task

    return load_task(directory, namespace, _memory_config(directory))


def _memory_view(directory: Path) -> TaskView | None:
    """The task's read-only Memory view (the one TaskView), or None before any Memory."""
    from ditto_nb.workers.task_memory import has_task_memory

    if not has_task_memory(directory):
        return None
    try:
        return _load_view(directory)
    except ConfigError:
        return None


async def _stored_stages(directory: Path, task: TaskFile) -> dict[str, Any]:
    """``{stage: output}`` persisted in the task's Memory (through the read-only TaskView)."""
    from ditto_nb.patterns.common import STAGE_PREFIX
    from ditto_nb.patterns.web_qa import WebQaRequest
    from ditto_nb.workers.task_memory import has_task_memory

    if not has_task_memory(directory):
        return {}
    view = _load_view(directory, WebQaRequest.parse(task.request).namespace)
    return dict(view.prefixed(STAGE_PREFIX))


def _research_summary(directory: Path) -> str:
    """The research report as Markdown, or where the task stands (through the TaskView)."""
    from ditto_nb.patterns.deep_research.report import ResearchReport, render_markdown
    from ditto_nb.workers.task_memory import has_task_memory

    if not has_task_memory(directory):
        return "deep research task: not started yet"
    view = _load_view(directory)
    if view.report is not None:
        return render_markdown(ResearchReport.model_validate(view.report)).rstrip("\n")
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
