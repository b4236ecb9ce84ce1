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
from ditto_nb.cli.qa_session import TASK_FILE, SandboxChoice, cli_errors, read_task_file, sandbox_web
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.deep_research.plan import LoopResult
from ditto_nb.patterns.deep_research import (
    ModelChoice,
    ResearchReport,
    ResearchRequest,
    create_task,
    open_research,
    parse_request,
    read_task,
    remember_model,
    resume_research,
    run_research,
)
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
        config_path: ``ditto.yaml`` (default: ``./ditto.yaml`` or the packaged default).

    Raises:
        ConfigError: the directory is not a research task.
    """
    config = load_runtime_config(path=config_path)
    with sandbox_web(_recorded_sandbox(directory)) as web:
        search = SearchSetup.from_sandbox(web) if web is not None else SearchSetup.from_config(config)
        _print(asyncio.run(resume_research(directory, config, search)))


def _recorded_sandbox(directory: Path) -> SandboxChoice | None:
    """The sandbox recorded in a research task's ``task.json`` (``"sandbox"``), or None."""
    data = read_task_file(directory) or {}
    recorded = data.get("sandbox")
    return SandboxChoice.model_validate(recorded) if isinstance(recorded, dict) else None


def _remember_sandbox(directory: Path, choice: SandboxChoice) -> None:
    """Merge ``"sandbox": {corpus, port}`` into the research task's ``task.json``."""
    path = directory / TASK_FILE
    data = read_task_file(directory) or {}
    data["sandbox"] = choice.model_dump(mode="json")
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def is_research_task(directory: Path) -> bool:
    """True when ``directory`` holds a deep research task (``task.json`` of pattern deep_research)."""
    return read_task(directory) is not None


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
        max_rounds: int = typer.Option(3, help="Rounds (1-4)."),
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
            existing = read_task(task_dir)
            choice = None
            if sandbox is not None:
                recorded = _recorded_sandbox(task_dir) if existing is not None else None
                choice = SandboxChoice(corpus=str(sandbox.resolve()), port=recorded.port if recorded else 0)
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
                create_task(task_dir, request)
                remember_model(task_dir, model_choice)
                if choice is not None:
                    _remember_sandbox(task_dir, choice)

                async def go() -> ResearchReport | LoopResult:
                    app_ = await open_research(task_dir, request, resolved.config, search)
                    try:
                        return await run_research(app_.runtime, {"request": request, "model": model_choice.model_dump()},
                                                  stop_after=stop_after)  # type: ignore[arg-type]
                    finally:
                        await app_.close()

                _print(asyncio.run(go()))
                typer.echo(f"task directory: {task_dir}")


__all__ = ["is_research_task", "register", "resume_research_cli"]
