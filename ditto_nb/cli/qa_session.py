"""What the Web QA CLI needs between commands: the task file, the model choice, the sandbox, one run.

A task directory made by ``ditto-nb ask`` holds, next to the Memory file, ``task.json``:
``{"pattern": "web_qa", "cli": {request, provider, model, config, sandbox}}`` — a pointer telling
``ditto-nb resume`` / ``show`` how to reopen the task (Memory stays authoritative). Keys written by
the pattern itself are kept (the file is merged, never replaced). Deep research directories carry
``"pattern": "deep_research"`` in the same file.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from pydantic import BaseModel, ConfigDict, ValidationError

from ditto_nb.errors import ConfigError, DittoError, LoopCancelled, ToolFailed
from ditto_nb.runtime.config import RuntimeConfig, load_runtime_config
from ditto_nb.runtime.model_choice import resolve_model
from ditto_nb.runtime.loop import OnGraph

TASK_FILE = "task.json"
PATTERN = "web_qa"
REPORT_JSON = Path("output") / "report.json"
REPORT_MD = Path("output") / "report.md"
STAGES = ("plan", "searched", "read", "selected", "report")
"""Web QA stages accepted by ``--stop-after`` (SPEC §3)."""


class SandboxChoice(BaseModel):
    """The sandbox web a task runs against: corpus file and the port its origins were bound to."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    corpus: str
    port: int
    wiki_host: str = "wiki.test"


class CliTask(BaseModel):
    """What ``resume`` and ``show`` need to reopen a Web QA task made by the CLI.

    Attributes:
        request: the request's JSON form (``WebQaRequest``).
        provider: model provider name (a key of ``providers`` in the configuration).
        model: model name sent to that provider.
        config: the configuration file used (None: ``./ditto.yaml`` or the packaged default).
        sandbox: the sandbox web, when the task runs offline.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    request: dict[str, Any]
    provider: str
    model: str
    config: str | None = None
    sandbox: SandboxChoice | None = None


# --- the task file ---------------------------------------------------------------------------
def read_task_file(directory: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The parsed ``task.json`` of a directory, or None when there is none.

    Args:
        directory: a task directory.

    Returns:
        The JSON object.

    Raises:
        ConfigError: the file exists but is not a JSON object.
    """
    path = Path(directory) / TASK_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} is not a JSON object")
    return data


def task_pattern(directory: str | os.PathLike[str]) -> str | None:
    """``"web_qa"``, ``"deep_research"`` or None (no task file) for a directory."""
    data = read_task_file(directory)
    if data is None:
        return None
    pattern = data.get("pattern")
    if pattern is None and "cli" in data:
        return PATTERN
    return str(pattern) if pattern is not None else None


def write_cli_task(directory: str | os.PathLike[str], task: CliTask) -> None:
    """Merge the CLI's pointer into ``task.json`` (keys of the pattern are kept).

    Args:
        directory: the task directory (must exist).
        task: what resume/show need.

    Raises:
        ConfigError: the directory belongs to another pattern.
    """
    data = read_task_file(directory) or {}
    if data.get("pattern", PATTERN) != PATTERN:
        raise ConfigError(f"{directory} holds a {data['pattern']} task, not a Web QA task")
    data["pattern"] = PATTERN
    data["cli"] = task.model_dump(mode="json")
    path = Path(directory) / TASK_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def read_cli_task(directory: str | os.PathLike[str]) -> CliTask:
    """The CLI pointer of a Web QA task directory.

    Args:
        directory: a directory made by ``ditto-nb ask``.

    Returns:
        The :class:`CliTask`.

    Raises:
        ConfigError: no ``task.json`` with a ``cli`` section (not made by the CLI).
    """
    if not Path(directory).is_dir():
        raise ConfigError(f"{directory} does not exist (or is not a directory)",
                          help="Pass the directory printed by `ditto-nb ask` or `ditto-nb research`.")
    data = read_task_file(directory)
    if data is None or "cli" not in data:
        raise ConfigError(
            f"{directory} is not a task directory made by ditto-nb (no {TASK_FILE} with a cli section)",
            help="Pass the directory printed by `ditto-nb ask`, or start a new task with `ditto-nb ask`.",
        )
    try:
        return CliTask.model_validate(data["cli"])
    except ValidationError as exc:
        raise ConfigError(f"{directory}/{TASK_FILE} is damaged: {exc.errors()[0]['msg']}") from None


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
    task: CliTask,
    config: RuntimeConfig,
    web: Any,
    *,
    stop_after: str | None = None,
    on_graph: OnGraph | None = None,
) -> Any:
    """Open the task's Runtime, run (resume, replay) Web QA in one Loop, close it.

    Args:
        directory: the task directory.
        task: its CLI pointer (request, model).
        config: configuration with the task's provider as default (:func:`select_model`).
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
        job = {"request": request, "model": {"provider": task.provider, "model": task.model}}
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
    "TASK_FILE",
    "CliTask",
    "SandboxChoice",
    "as_mapping",
    "error_help",
    "cli_errors",
    "load_config",
    "print_error",
    "read_cli_task",
    "read_task_file",
    "report_path",
    "run_task",
    "sandbox_web",
    "search_setup",
    "select_model",
    "stderr_is_terminal",
    "task_pattern",
    "without_launch",
    "write_cli_task",
]
