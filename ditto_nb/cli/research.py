"""CLI sub-command ``ditto-nb research``: thin, it calls the public deep research API.

``ditto-nb research "topic" [--type market] [budget options] [--stop-after round] [--dir DIR]``.
Running it again with the same ``--dir`` resumes; ``ditto-nb resume DIR`` dispatches to
:func:`resume_research_cli` when the directory holds a research task (``task.json``).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import typer

from ditto_nb.cli.paths import check_task_dir
from ditto_nb.errors import DittoError
from ditto_nb.patterns.common import SearchSetup
from ditto_nb.patterns.deep_research import (
    ModelChoice,
    ResearchReport,
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


def _print(result: ResearchReport | dict[str, Any]) -> None:
    if isinstance(result, ResearchReport):
        typer.echo(f"status={result.status} stop_reason={result.stop_reason} rounds={len(result.rounds)}")
        for row in result.coverage:
            typer.echo(f"  [{row['status']}] {row['question']}")
    else:
        typer.echo(json.dumps(result))


def resume_research_cli(directory: Path, config_path: Path | None = None) -> None:
    """Resume the research task in ``directory`` and print the outcome (for ``ditto-nb resume``).

    Args:
        directory: a research task directory.
        config_path: ``ditto.yaml`` (default: ``./ditto.yaml`` or the packaged default).

    Raises:
        ConfigError: the directory is not a research task.
    """
    config = load_runtime_config(path=config_path)
    _print(asyncio.run(resume_research(directory, config, SearchSetup.from_config(config))))


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
    ) -> None:
        """Run (or resume) a bounded deep research task and publish its report."""
        try:
            config = load_runtime_config(path=config_path)
            search = SearchSetup.from_config(config)
            task_dir = check_task_dir(directory or Path(f"research-{uuid.uuid4().hex[:8]}"))
            existing = read_task(task_dir)
            origins = list(allowed_origin) or (
                [origin_of(search.mediawiki_api_url)] if search.mediawiki_api_url else []
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
            choice = ModelChoice(provider=resolved.provider, model=resolved.model)
            create_task(task_dir, request)
            remember_model(task_dir, choice)

            async def go() -> ResearchReport | dict[str, Any]:
                app_ = await open_research(task_dir, request, resolved.config, search)
                try:
                    return await run_research(app_.runtime, {"request": request, "model": choice.model_dump()},
                                              stop_after=stop_after)  # type: ignore[arg-type]
                finally:
                    await app_.close()

            _print(asyncio.run(go()))
            typer.echo(f"task directory: {task_dir}")
        except DittoError as exc:
            typer.echo(f"error: {type(exc).__name__}: {exc}\nhint: {exc.help}", err=True)
            raise typer.Exit(2) from None
        except OSError as exc:  # a file or folder named by the analyst cannot be used
            typer.echo(f"error: {exc}\nhint: check the --dir path: it must be a writable folder", err=True)
            raise typer.Exit(2) from None


__all__ = ["is_research_task", "register", "resume_research_cli"]
