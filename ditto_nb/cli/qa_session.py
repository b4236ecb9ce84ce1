"""What the Web QA CLI needs between commands: the model choice, the sandbox, one run.

A task directory made by ``ditto-nb ask`` or ``ditto-nb research`` holds, next to the Memory file,
``task.json`` (:mod:`ditto_nb.patterns.common.task_file`: pattern, request, model, config,
sandbox) — a pointer telling ``ditto-nb resume`` / ``show`` how to reopen the task (Memory stays
authoritative).
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from pydantic import BaseModel

from ditto_nb.errors import ConfigError, DittoError, LoopCancelled, ToolFailed
from ditto_nb.runtime.config import RuntimeConfig, load_runtime_config
from ditto_nb.runtime.model_choice import resolve_model
from ditto_nb.patterns.common.task_file import ModelChoice, SandboxChoice, TaskFile
from ditto_nb.patterns.web_qa import STAGES as WEB_QA_STAGES
from ditto_nb.runtime.loop import OnGraph

PATTERN = "web_qa"
REPORT_JSON = Path("output") / "report.json"
REPORT_MD = Path("output") / "report.md"
STAGES = WEB_QA_STAGES
"""Web QA stages accepted by ``--stop-after`` (SPEC §3): the declared stages, in order."""


def report_path(directory: str | os.PathLike[str]) -> Path:
    """``<directory>/output/report.json`` (present once the report is published)."""
    return Path(directory) / REPORT_JSON


# --- configuration and model -------------------------------------------------------------------
def load_config(path: str | None) -> RuntimeConfig:
    """Load ``ditto.yaml`` (explicit path, else ``./ditto.yaml``, else the packaged default).

    Raises:
        ConfigError: the file is invalid.
    """
    return load_runtime_config(os.environ, path)


def select_model(config: RuntimeConfig, provider: str | None, model: str | None) -> tuple[RuntimeConfig, str, str]:
    """Choose provider and model (:func:`ditto_nb.runtime.model_choice.resolve_model`, the one
    resolver and its precedence), and make them the configuration's default, so the local server
    started is the one called.

    Args:
        config: the loaded configuration.
        provider: a key of ``config.providers`` (None: ``model.provider``).
        model: model name (None: ``model.model`` when it names this provider, else the provider's).

    Returns:
        ``(config, provider, model)``.

    Raises:
        ConfigError: unknown provider.
    """
    resolved = resolve_model(config, provider, model)
    return resolved.config, resolved.provider, resolved.model


def without_launch(config: RuntimeConfig, provider: str) -> RuntimeConfig:
    """A copy of ``config`` whose provider starts no local server (replay of a finished task
    makes no model call, so no server is needed)."""
    providers = dict(config.providers)
    providers[provider] = providers[provider].model_copy(update={"launch": None})
    return config.model_copy(update={"providers": providers})


# --- sandbox -------------------------------------------------------------------------------------
@contextmanager
def sandbox_web(choice: SandboxChoice | None) -> Iterator[Any]:
    """Serve the task's sandbox corpus (on its recorded port) for the duration of a run.

    Args:
        choice: the sandbox of the task, or None (yields None: the real web).

    Yields:
        The started :class:`ditto_nb.sandbox.SandboxWeb`, or None.

    Raises:
        ConfigError: unreadable corpus, or the recorded port cannot be bound.
    """
    if choice is None:
        yield None
        return
    from ditto_nb.sandbox import SandboxWeb, load_corpus

    web = SandboxWeb(load_corpus(choice.corpus), None, choice.wiki_host, port=choice.port)
    try:
        web.start()
    except OSError as exc:
        raise ConfigError(f"cannot serve the sandbox on port {choice.port}: {exc}") from exc
    try:
        yield web
    finally:
        web.close()


# --- one run -------------------------------------------------------------------------------------
def search_setup(config: RuntimeConfig, web: Any) -> Any:
    """The pattern's ``search`` argument: the sandbox's search API, else ``config.search``."""
    from ditto_nb.patterns.common import SearchSetup

    if web is not None:
        return SearchSetup.from_sandbox(web)
    return SearchSetup.from_config(config)


async def run_task(
    directory: str | os.PathLike[str],
    task: TaskFile,
    config: RuntimeConfig,
    web: Any,
    model: ModelChoice,
    *,
    stop_after: str | None = None,
    on_graph: OnGraph | None = None,
) -> Any:
    """Open the task's Runtime, run (resume, replay) Web QA in one Loop, close it.

    Args:
        directory: the task directory.
        task: its ``task.json`` (the request).
        config: configuration with the task's provider as default (:func:`select_model`).
        model: the model the run calls.
        web: the started sandbox or None.
        stop_after: a stage of :data:`STAGES` or None (run to the published report).
        on_graph: the Loop's trace callback (progress).

    Returns:
        What ``run_web_qa`` returns: the report or a checkpoint dict.

    Raises:
        DittoError: any typed failure of the task.
    """
    from ditto_nb.patterns.web_qa import WebQaRequest, open_web_qa, run_web_qa

    request = WebQaRequest.parse(task.request)
    app = await open_web_qa(directory, request, config, search_setup(config, web))
    try:
        job = {"request": request, "model": model.model_dump()}
        kwargs: dict[str, Any] = {"stop_after": stop_after}
        if on_graph is not None and "on_graph" in inspect.signature(run_web_qa).parameters:
            kwargs["on_graph"] = on_graph
        return await run_web_qa(app.runtime, job, **kwargs)
    finally:
        await app.close()


# --- errors --------------------------------------------------------------------------------------
def error_help(exc: DittoError) -> str:
    """The most useful help line: the wrapped cause's for a ``ToolFailed``."""
    if isinstance(exc, ToolFailed) and isinstance(exc.cause, DittoError):
        return exc.cause.help
    return exc.help


def print_error(exc: DittoError) -> None:
    """Print ``error: <message>`` and ``help: <hint>`` on stderr."""
    typer.echo(f"error: {exc}", err=True)
    typer.echo(f"help: {error_help(exc)}", err=True)


@contextmanager
def cli_errors() -> Iterator[None]:
    """Run a command body; a ``DittoError`` (or an ``OSError`` on a path) becomes a two-line message
    and exit code 2.

    ``LoopCancelled`` and Ctrl-C say how to resume (exit code 130). Unexpected errors keep their
    traceback: they are bugs.

    Raises:
        typer.Exit: code 2 for a ``DittoError``, 130 for a cancellation.
    """
    try:
        yield
    except LoopCancelled as exc:
        print_error(exc)
        raise typer.Exit(code=130) from None
    except KeyboardInterrupt:
        typer.echo("interrupted: completed work is kept; run `ditto-nb resume DIR` to continue", err=True)
        raise typer.Exit(code=130) from None
    except DittoError as exc:
        print_error(exc)
        raise typer.Exit(code=2) from None
    except OSError as exc:  # a file or folder named by the analyst cannot be used
        print_error(ConfigError(str(exc), help="Check the path: it must be a readable, writable folder or file."))
        raise typer.Exit(code=2) from None


def stderr_is_terminal() -> bool:
    """True when stderr is an interactive terminal (progress spinner shown)."""
    return sys.stderr.isatty()


def as_mapping(value: Any) -> Mapping[str, Any]:
    """A report or checkpoint as a JSON-like mapping (pydantic models are dumped)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return value
    raise ConfigError(f"unexpected result of run_web_qa: {type(value).__name__}")


__all__ = [
    "PATTERN",
    "REPORT_JSON",
    "REPORT_MD",
    "STAGES",
    "as_mapping",
    "error_help",
    "cli_errors",
    "load_config",
    "print_error",
    "report_path",
    "run_task",
    "sandbox_web",
    "search_setup",
    "select_model",
    "stderr_is_terminal",
    "without_launch",
]
