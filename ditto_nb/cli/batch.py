"""CLI sub-command ``ditto-nb batch``: many questions as one resumable batch on Dask.

``ditto-nb batch QUESTIONS.jsonl`` reads HotpotQA records (or plain ``{"id", "question",
"answer"?}`` lines), runs one Web QA task per question through :func:`ditto_nb.batch.run_batch`
and prints the results table. Questions are answered against the sandbox web built from the
file's context paragraphs (as ``ditto-nb sandbox build --hotpotqa`` does) unless ``--web`` asks
for the configured search provider (or the file has no paragraphs). Everything needed to resume
is recorded in ``BATCH_DIR/batch.json``; ``ditto-nb batch --resume BATCH_DIR`` runs the batch
again, and every task resumes from its Memory.
"""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from pydantic import BaseModel, ConfigDict, ValidationError

from ditto_nb.cli.qa_session import cli_errors, load_config, sandbox_web, search_setup, select_model
from ditto_nb.errors import ConfigError
from ditto_nb.patterns.common.task_file import SandboxChoice

MANIFEST_FILE_NAME = "batch.json"
"""File of a batch directory recording how the batch was started (read by ``--resume``)."""

SCRIPTED = "scripted"
"""``--provider scripted``: the rule-based stand-in model (quick runs and tests only)."""


class BatchManifest(BaseModel):
    """What ``--resume`` needs to run a batch again exactly as started."""

    model_config = ConfigDict(extra="forbid")

    questions: str
    limit: int | None = None
    provider: str | None = None
    model: str | None = None
    config: str | None = None
    sandbox: SandboxChoice | None = None
    max_queries: int = 1
    max_pages: int = 3
    tenant: str = "batch"
    principal: str = "analyst"
    endpoint_limit: int | None = None
    origin_limit: int | None = None


def _read_manifest(directory: Path) -> BatchManifest:
    path = directory / MANIFEST_FILE_NAME
    try:
        return BatchManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{directory} is not a batch directory (cannot read {path}: {exc.strerror or exc})",
                          help="Pass the BATCH_DIR a previous `ditto-nb batch` printed.") from exc
    except ValidationError as exc:
        raise ConfigError(f"{path} is not a valid batch manifest: {exc.errors()[0]['msg']}") from exc


def _start_manifest(questions: Path, directory: Path, web: bool, **fields: Any) -> BatchManifest:
    from ditto_nb.sandbox import import_hotpotqa, write_corpus

    directory.mkdir(parents=True, exist_ok=True)
    sandbox = None
    if not web:
        pages = import_hotpotqa(questions)
        if pages:
            corpus = directory / "corpus.jsonl"
            write_corpus(pages, corpus)
            sandbox = SandboxChoice(corpus=str(corpus.resolve()), port=0)
        else:
            typer.echo("note: the file has no context paragraphs; using the configured search provider", err=True)
    return BatchManifest(questions=str(questions.resolve()), sandbox=sandbox, **fields)


def _print_table(frame: Any) -> None:
    import pandas as pd

    columns = [c for c in ("id", "status", "correct", "f1", "model_calls", "seconds", "worker", "answer") if c in frame]
    table = frame[columns].copy()
    long = table["answer"].str.len() > 60
    table.loc[long, "answer"] = table.loc[long, "answer"].str.slice(0, 59) + "…"
    with pd.option_context("display.width", 250, "display.max_rows", 10_000):
        typer.echo(table.to_string(index=False))


def batch(
    questions: Annotated[Optional[Path], typer.Argument(help="HotpotQA or {id, question, answer?} JSONL file.")] = None,  # noqa: UP007
    resume: Annotated[Optional[Path], typer.Option("--resume", help="Run an existing batch directory again.")] = None,  # noqa: UP007
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Batch directory (default: ./.ditto-batches/<time>).")] = None,  # noqa: UP007
    limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="Only the first N questions.")] = None,  # noqa: UP007
    provider: Annotated[Optional[str], typer.Option("--provider", help="Model provider, or 'scripted' (stand-in).")] = None,  # noqa: UP007
    model: Annotated[Optional[str], typer.Option("--model", help="Model name (default: the provider's).")] = None,  # noqa: UP007
    config_path: Annotated[Optional[Path], typer.Option("--config", help="ditto.yaml to use.")] = None,  # noqa: UP007
    workers: Annotated[int, typer.Option("--workers", min=1, help="Workers of the local Dask cluster.")] = 2,
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", help="Address of a running Dask scheduler (tcp://host:8786).")] = None,  # noqa: UP007
    web: Annotated[bool, typer.Option("--web", help="Use the configured search provider, not the file's paragraphs.")] = False,
    max_queries: Annotated[int, typer.Option("--max-queries", min=1, max=3, help="Searches per question.")] = 1,
    max_pages: Annotated[int, typer.Option("--max-pages", min=1, max=6, help="Pages read per question.")] = 3,
    endpoint_limit: Annotated[Optional[int], typer.Option("--endpoint-limit", min=1, help="Model calls in flight per endpoint, across workers.")] = None,  # noqa: UP007
    origin_limit: Annotated[Optional[int], typer.Option("--origin-limit", min=1, help="Fetches in flight per origin, across workers.")] = None,  # noqa: UP007
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Answer every question of a JSONL file as one Dask batch and print the results table."""
    if (questions is None) == (resume is None):
        raise typer.BadParameter("give either QUESTIONS.jsonl or --resume BATCH_DIR")
    with cli_errors():
        if resume is not None:
            directory = resume
            manifest = _read_manifest(directory)
        else:
            assert questions is not None
            directory = out or Path(".ditto-batches") / time.strftime("batch-%Y%m%d-%H%M%S")
            if (directory / MANIFEST_FILE_NAME).exists():
                raise ConfigError(f"{directory} already holds a batch", help=f"Use `ditto-nb batch --resume {directory}`.")
            manifest = _start_manifest(questions, directory, web, limit=limit, provider=provider, model=model,
                                       config=None if config_path is None else str(config_path.resolve()),
                                       max_queries=max_queries, max_pages=max_pages,
                                       endpoint_limit=endpoint_limit, origin_limit=origin_limit)
        _run(directory, manifest, workers, scheduler, quiet)


def _run(directory: Path, manifest: BatchManifest, workers: int, scheduler: str | None, quiet: bool) -> None:
    from ditto_nb.batch import ConcurrencyLimits, run_batch
    from ditto_nb.sandbox import load_hotpotqa_questions

    questions = load_hotpotqa_questions(manifest.questions)[: manifest.limit]
    if not questions:
        raise ConfigError(f"{manifest.questions} holds no questions")
    config = load_config(manifest.config)
    with ExitStack() as stack:
        if manifest.provider == SCRIPTED:
            from ditto_nb.batch.demo import batch_demo_responder
            from ditto_nb.testing import ScriptedModel, scripted_runtime_config

            scripted = stack.enter_context(ScriptedModel())
            scripted.responder = batch_demo_responder
            config = scripted_runtime_config(scripted, redis_url=config.context.redis_url).model_copy(
                update={"memory": config.memory})
            choice = {"provider": SCRIPTED, "model": scripted.model_name}
            typer.echo("model: scripted stand-in (rule-based replies, not a language model)", err=True)
        else:
            config, name, chosen = select_model(config, manifest.provider, manifest.model)
            choice = {"provider": name, "model": chosen}
        sandbox = stack.enter_context(sandbox_web(manifest.sandbox))
        if manifest.sandbox is not None and manifest.sandbox.port == 0:  # first run: keep the port for --resume
            manifest = manifest.model_copy(update={"sandbox": manifest.sandbox.model_copy(update={"port": sandbox.port})})
        (directory / MANIFEST_FILE_NAME).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
        search = search_setup(config, sandbox)
        origins = list(sandbox.allowed_origins) if sandbox is not None else _configured_origins(config)
        requests = [{"id": q.id, "tenant": manifest.tenant, "principal": manifest.principal, "question": q.question,
                     "allowed_origins": origins, "max_queries": manifest.max_queries, "max_pages": manifest.max_pages}
                    for q in questions]
        gold = {q.id: q.answer for q in questions if q.answer}
        limits = None
        if manifest.endpoint_limit or manifest.origin_limit:
            if not config.context.redis_url:
                raise ConfigError("concurrency limits need the shared Redis: set DITTO_WORKER_CONTEXT_REDIS_URL")
            limits = ConcurrencyLimits(config.context.redis_url, per_endpoint=manifest.endpoint_limit,
                                       per_origin=manifest.origin_limit)
        client = None
        if scheduler is not None:
            from distributed import Client

            client = stack.enter_context(Client(scheduler, timeout=30))  # type: ignore[no-untyped-call]
        typer.echo(f"batch: {len(requests)} questions in {directory}", err=True)
        result = run_batch(requests, client, directory=directory, config=config, search=search, model=choice,
                           gold=gold or None, limits=limits, n_workers=workers, progress=not quiet)
    if result.dashboard_link:
        typer.echo(f"dask dashboard: {result.dashboard_link}", err=True)
    _print_table(result.frame)
    summary = result.summary()
    typer.echo("\n" + "  ".join(f"{key}={value}" for key, value in summary.items()))
    typer.echo(f"resume: ditto-nb batch --resume {directory}")


def _configured_origins(config: Any) -> list[str]:
    from ditto_nb.web.policy import origin_of

    if config.search.provider == "mediawiki":
        return [origin_of(config.search.mediawiki_api_url)]
    raise ConfigError(f"the {config.search.provider} search provider needs explicit origins; use the sandbox")


def register(app: typer.Typer) -> None:
    """Add the ``batch`` command to ``app``."""
    app.command("batch")(batch)


__all__ = ["MANIFEST_FILE_NAME", "BatchManifest", "batch", "register"]
