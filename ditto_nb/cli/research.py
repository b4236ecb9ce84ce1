"""CLI sub-command ``ditto-nb research``: thin, it calls the public deep research API.

``ditto-nb research "topic" [--type market] [budget options] [--stop-after round] [--dir DIR]
[--sandbox CORPUS.jsonl]``. Expected failures print ``error:`` and ``help:`` lines (exit code 2);
bad flag values name the flag (``--max-pages must be 1–6``).
Running it again with the same ``--dir`` resumes; ``ditto-nb resume DIR`` dispatches to
:func:`resume_research_cli` when the directory holds a research task (``task.json``).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import typer

from ditto_nb.cli.flags import check_choice, check_flags, check_origins
from ditto_nb.cli.paths import check_task_dir
from ditto_nb.cli.qa_session import cli_errors, sandbox_web
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.common.task_file import (
    ModelChoice,
    SandboxChoice,
    TaskFileChanges,
    read_task_file,
    update_task_file,
)
from ditto_nb.patterns.deep_research.plan import LoopResult
from ditto_nb.patterns.deep_research import (
    ResearchReport,
    ResearchRequest,
    open_research,
    parse_request,
    resume_research,
    run_research,
)
from ditto_nb.patterns.tasks import create_task
from ditto_nb.runtime.config import load_runtime_config
from ditto_nb.runtime.model_choice import resolve_model
from ditto_nb.web.policy import origin_of


def _print(result: ResearchReport | LoopResult) -> None:
    if isinstance(result, ResearchReport):
        typer.echo(f"status={result.status} stop_reason={result.stop_reason} rounds={len(result.rounds)}")
        for row in result.coverage:
            typer.echo(f"  [{row['status']}] {row['question']}")
    else:
        typer.echo(json.dumps(result))


def resume_research_cli(directory: Path, config_path: Path | None = None) -> None:
    """Resume the research task in ``directory`` and print the outcome (for ``ditto-nb resume``).

    A task started with ``--sandbox`` is resumed against the same sandbox corpus, served on the
    port its origins were bound to (recorded in ``task.json``).

    Args:
        directory: a research task directory.
        config_path: ``ditto.yaml`` (default: the one recorded in ``task.json``, else
            ``./ditto.yaml`` or the packaged default).

    Raises:
        ConfigError: the directory is not a research task.
    """
    task = read_task_file(directory)
    recorded = task.config if task is not None and config_path is None else None
    config = load_runtime_config(path=config_path or recorded)
    with sandbox_web(task.sandbox if task is not None else None) as web:
        search = SearchSetup.from_sandbox(web) if web is not None else SearchSetup.from_config(config)
        _print(asyncio.run(resume_research(directory, config, search)))


def is_research_task(directory: Path) -> bool:
    """True when ``directory`` holds a deep research task (``task.json`` of pattern deep_research)."""
    task = read_task_file(directory)
    return task is not None and task.pattern == "deep_research"


def register(app: typer.Typer) -> None:
    """Add ``research`` to ``app``."""

    @app.command("research")
    def research(
        topic: str = typer.Argument(..., help="The research topic."),
        research_type: str = typer.Option("industry", "--type", help="market|industry|academic|competitive|policy"),
        audience: str = typer.Option("analyst", help="Who the report is for."),
        scope: str = typer.Option("", help="What is in and out of scope."),
        allowed_origin: list[str] = typer.Option([], "--allowed-origin", help="Origin pages may be read from."),
        reference_url: list[str] = typer.Option([], "--reference-url", help="Page that must be read."),
        max_queries: int = typer.Option(3, help="Queries per round (1-3)."),
        max_pages: int = typer.Option(4, help="Pages per round (1-6)."),
        max_rounds: int = typer.Option(2, help="Rounds (1-4)."),
        max_searches: int = typer.Option(8, help="Searches for the task (1-12)."),
        max_read_pages: int = typer.Option(12, help="Page reads for the task (1-16)."),
        max_model_calls: int = typer.Option(16, help="Model calls for the task (8-24)."),
        research_seconds: int = typer.Option(900, help="Seconds of research from the start (1-3600)."),
        stop_after: str | None = typer.Option(None, "--stop-after", help="plan|round|report"),
        directory: Path | None = typer.Option(None, "--dir", help="Task directory (resumes when it exists)."),
        task_id: str | None = typer.Option(None, "--id", help="Task id (default: new)."),
        config_path: Path | None = typer.Option(None, "--config", help="ditto.yaml path."),
        provider: str | None = typer.Option(None, help="Model provider name in ditto.yaml."),
        model: str | None = typer.Option(None, help="Model name."),
        sandbox: Path | None = typer.Option(
            None, "--sandbox", help="Run against a sandbox web built from this corpus JSONL.", exists=True
        ),
    ) -> None:
        """Run (or resume) a bounded deep research task and publish its report."""
        with cli_errors():
            check_choice("--stop-after", stop_after, ("plan", "round", "report"))
            check_flags(ResearchRequest, {
                "research_type": research_type, "max_queries": max_queries, "max_pages": max_pages,
                "max_rounds": max_rounds, "max_searches": max_searches, "max_read_pages": max_read_pages,
                "max_model_calls": max_model_calls, "research_seconds": research_seconds,
            }, {
                "research_type": "--type", "max_queries": "--max-queries", "max_pages": "--max-pages",
                "max_rounds": "--max-rounds", "max_searches": "--max-searches", "max_read_pages": "--max-read-pages",
                "max_model_calls": "--max-model-calls", "research_seconds": "--research-seconds",
            })
            check_origins("--allowed-origin", allowed_origin)
            config = load_runtime_config(path=config_path)
            task_dir = check_task_dir(directory or Path(f"research-{uuid.uuid4().hex[:8]}"))
            recorded = read_task_file(task_dir)
            if recorded is not None and recorded.pattern != "deep_research":
                recorded = None  # create_task refuses the directory below
            existing = parse_request(recorded.request) if recorded is not None else None
            choice = None
            if sandbox is not None:
                port = recorded.sandbox.port if recorded is not None and recorded.sandbox is not None else 0
                choice = SandboxChoice(corpus=str(sandbox.resolve()), port=port)
            with sandbox_web(choice) as web:
                if web is not None and choice is not None:
                    choice = SandboxChoice(corpus=choice.corpus, port=web.port, wiki_host=choice.wiki_host)
                search = SearchSetup.from_sandbox(web) if web is not None else SearchSetup.from_config(config)
                origins = list(allowed_origin) or (
                    list(web.allowed_origins) if web is not None
                    else [origin_of(search.mediawiki_api_url)] if search.mediawiki_api_url else []
                )
                request = existing or parse_request({
                    "id": task_id or task_dir.name, "tenant": "cli", "principal": "cli", "question": topic,
                    "research_type": research_type, "audience": audience, "scope": scope,
                    "allowed_origins": origins, "reference_urls": list(reference_url), "max_queries": max_queries,
                    "max_pages": max_pages, "max_rounds": max_rounds, "max_searches": max_searches,
                    "max_read_pages": max_read_pages, "max_model_calls": max_model_calls,
                    "research_seconds": research_seconds,
                })
                # One resolver: the provider whose local server open_research starts is the one called.
                resolved = resolve_model(config, provider, model)
                model_choice = ModelChoice(provider=resolved.provider, model=resolved.model)
                changes: TaskFileChanges = {"model": model_choice}
                if config_path is not None:
                    changes["config"] = str(config_path.resolve())
                if choice is not None:
                    changes["sandbox"] = choice

                async def go() -> ResearchReport | LoopResult:
                    await create_task(task_dir, request, search, memory=resolved.config.memory)
                    update_task_file(task_dir, **changes)
                    app_ = await open_research(task_dir, request, resolved.config, search)
                    try:
                        return await run_research(app_.runtime, {"request": request, "model": model_choice.model_dump()},
                                                  stop_after=stop_after)  # type: ignore[arg-type]
                    finally:
                        await app_.close()

                _print(asyncio.run(go()))
                typer.echo(f"task directory: {task_dir}")


__all__ = ["is_research_task", "register", "resume_research_cli"]
