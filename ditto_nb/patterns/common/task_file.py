"""``task.json``: the one pointer file of a task directory, for both patterns.

A task directory holds, next to its Memory (SQLite file, or the configured backend; Memory stays
authoritative), ``task.json`` telling ``ditto-nb resume`` / ``show`` how to reopen the task::

    {"version": 2,
     "pattern": "web_qa" | "deep_research",
     "request": {...},                                   # the request's JSON form
     "model": {"provider": str, "model": str} | null,   # the recorded model choice
     "config": str | null,                               # the ditto.yaml the task ran with
     "sandbox": {"corpus": str, "port": int, "wiki_host": str} | null}

Older directories carry one of two version-1 layouts (no ``version`` key)::

    {"pattern": "web_qa", "cli": {"request", "provider", "model", "config"?, "sandbox"?}}
    {"cli": {...}}                                       # the same, before "pattern" was added
    {"pattern": "deep_research", "request": {...}, "model"?: {...}, "sandbox"?: {...}}

:func:`read_task_file` migrates them when it opens them and rewrites the file in the current
layout (as the Memory migrations upgrade an old database on open). Writes are atomic (a temporary
file in the directory, then ``os.replace``).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from typing_extensions import Unpack

from ditto_nb.errors import ConfigError, InvalidRequest, RequestChanged
from ditto_nb.patterns.common.request import TaskRequest

TASK_FILE = "task.json"
"""File name of the pointer file in a task directory."""

TASK_FILE_VERSION: Literal[2] = 2
"""Layout version written by :func:`write_task_file` (version 1: the two unversioned layouts)."""

PatternName = Literal["web_qa", "deep_research"]
"""The pattern a task directory belongs to."""


class ModelChoice(BaseModel):
    """Which model answers the task's calls.

    Attributes:
        provider: model provider name (a key of ``providers`` in the configuration).
        model: model name sent to that provider.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str
    model: str


class SandboxChoice(BaseModel):
    """The sandbox web a task runs against.

    Attributes:
        corpus: path of the corpus JSONL.
        port: the port its origins were bound to (0: not yet bound; the first run picks one).
        wiki_host: host name of the sandbox's MediaWiki-compatible search.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    corpus: str
    port: int
    wiki_host: str = "wiki.test"


class TaskFile(BaseModel):
    """The content of ``task.json`` (layout: module docstring).

    Attributes:
        version: layout version (:data:`TASK_FILE_VERSION`).
        pattern: ``web_qa`` or ``deep_research``.
        request: the request's JSON form (``WebQaRequest`` / ``ResearchRequest``).
        model: the recorded model choice (None: ``ditto.yaml``'s at run time).
        config: the configuration file used (None: ``./ditto.yaml`` or the packaged default).
        sandbox: the sandbox web, when the task runs offline.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: Literal[2] = Field(default=TASK_FILE_VERSION, description="layout version of task.json")
    pattern: PatternName = Field(description="the pattern the task belongs to")
    request: dict[str, Any] = Field(description="the request's JSON form")
    model: ModelChoice | None = Field(default=None, description="the recorded model choice")
    config: str | None = Field(default=None, description="the ditto.yaml the task ran with")
    sandbox: SandboxChoice | None = Field(default=None, description="the sandbox web of an offline task")


class TaskFileChanges(TypedDict, total=False):
    """Fields :func:`update_task_file` replaces (a key left out keeps its recorded value)."""

    model: ModelChoice | None
    config: str | None
    sandbox: SandboxChoice | None


def task_file_path(directory: str | os.PathLike[str]) -> Path:
    """``<directory>/task.json``."""
    return Path(directory) / TASK_FILE


def _damaged(path: Path, why: str) -> ConfigError:
    return ConfigError(f"{path} is damaged: {why}",
                       help=f"Repair or remove {path} (Memory keeps the task), or use a new directory.")


def _migrate_v1(data: Mapping[str, object]) -> dict[str, object]:
    """The version-1 layouts (module docstring) in the current layout's JSON form."""
    rest = dict(data)
    pattern = rest.pop("pattern", None)
    cli = rest.pop("cli", None)
    if cli is not None:
        if not isinstance(cli, dict):
            raise ValueError("its 'cli' section is not a JSON object")
        if pattern not in (None, "web_qa"):
            raise ValueError(f"a 'cli' section in a {pattern} task")
        cli = dict(cli)
        migrated: dict[str, object] = {"pattern": "web_qa", "request": cli.pop("request", None)}
        provider, model = cli.pop("provider", None), cli.pop("model", None)
        if provider is not None or model is not None:
            migrated["model"] = {"provider": provider, "model": model}
        migrated.update(cli)  # config, sandbox; anything else is refused by the model
        migrated.update(rest)
        return migrated
    return {"pattern": pattern, **rest}


def parse_task_file(data: Any, path: Path) -> tuple[TaskFile, bool]:
    """Validate the JSON of a ``task.json``, migrating a version-1 layout.

    Args:
        data: the parsed JSON.
        path: the file it came from (for messages).

    Returns:
        ``(task file, migrated)``; ``migrated`` is True when ``data`` was in a version-1 layout.

    Raises:
        ConfigError: not a JSON object, an unknown version, or fields that fit no layout.
    """
    if not isinstance(data, dict):
        raise _damaged(path, "not a JSON object")
    migrated = "version" not in data
    try:
        if not migrated and data["version"] != TASK_FILE_VERSION:
            raise ConfigError(f"{path} has layout version {data['version']!r}; this ditto_nb reads "
                              f"version {TASK_FILE_VERSION} and older",
                              help="Open the task with the ditto_nb version that wrote it, or upgrade ditto_nb.")
        return TaskFile.model_validate(_migrate_v1(data) if migrated else data), migrated
    except ValueError as exc:  # includes pydantic's ValidationError
        if isinstance(exc, ValidationError):
            error = exc.errors()[0]
            why = f"{'.'.join(map(str, error['loc'])) or 'task'}: {error['msg']}"
        else:
            why = str(exc)
        raise _damaged(path, why) from None


def read_task_file(directory: str | os.PathLike[str]) -> TaskFile | None:
    """The ``task.json`` of a directory, or None when there is none.

    A version-1 file is migrated and rewritten in the current layout; when the directory is not
    writable the migrated content is returned and the file is left as it was.

    Args:
        directory: a task directory.

    Returns:
        The :class:`TaskFile`, or None when the directory holds no ``task.json``.

    Raises:
        ConfigError: the file cannot be read, is not JSON, or fits no layout (damaged); its
            ``help`` says to repair or remove it.
    """
    path = task_file_path(directory)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _damaged(path, f"cannot read it as JSON ({exc})") from None
    task, migrated = parse_task_file(data, path)
    if migrated:
        try:
            write_task_file(directory, task)
        except OSError:
            pass  # a read-only directory: migrate again on the next open
    return task


def write_task_file(directory: str | os.PathLike[str], task: TaskFile) -> None:
    """Write ``task.json`` atomically (temporary file in the directory, then ``os.replace``).

    Args:
        directory: the task directory (must exist).
        task: the content.

    Raises:
        OSError: the directory cannot be written.
    """
    path = task_file_path(directory)
    text = json.dumps(task.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{TASK_FILE}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def require_task_file(directory: str | os.PathLike[str]) -> TaskFile:
    """The ``task.json`` of a directory that must hold one.

    Args:
        directory: a task directory.

    Returns:
        The :class:`TaskFile` (migrated as by :func:`read_task_file`).

    Raises:
        ConfigError: the directory does not exist, holds no ``task.json``, or it is damaged.
    """
    if not Path(directory).is_dir():
        raise ConfigError(f"{directory} does not exist (or is not a directory)",
                          help="Pass the directory printed by `ditto-nb ask` or `ditto-nb research`.")
    task = read_task_file(directory)
    if task is None:
        raise ConfigError(f"{directory} is not a task directory made by ditto-nb (no {TASK_FILE})",
                          help="Pass the directory printed by `ditto-nb ask` or `ditto-nb research`, "
                               "or start a new task with either.")
    return task


def update_task_file(directory: str | os.PathLike[str], **changes: Unpack[TaskFileChanges]) -> TaskFile:
    """Replace some fields of an existing ``task.json`` (pattern and request never change here).

    Args:
        directory: a task directory holding ``task.json``.
        changes: ``model``, ``config``, ``sandbox`` (:class:`TaskFileChanges`); keys left out keep
            their recorded values.

    Returns:
        The written :class:`TaskFile`.

    Raises:
        ConfigError: no ``task.json`` (create the task first), or it is damaged.
        OSError: the directory cannot be written.
    """
    task = require_task_file(directory)
    updated = TaskFile.model_validate({**task.model_dump(), **changes})
    write_task_file(directory, updated)
    return updated


def claim_task_file(
    directory: str | os.PathLike[str], pattern: PatternName, request: TaskRequest
) -> TaskFile | None:
    """Check that ``directory``'s ``task.json`` (if any) records ``pattern`` and ``request``.

    The stored request is parsed by ``type(request)`` before comparing, so a file written before a
    field got a default still matches.

    Args:
        directory: the task directory.
        pattern: the pattern of ``request``.
        request: the validated request.

    Returns:
        The existing :class:`TaskFile`, or None when there is no ``task.json`` yet.

    Raises:
        RequestChanged: the file records another pattern or another request.
        ConfigError: the file is damaged.
    """
    task = read_task_file(directory)
    if task is None:
        return None
    if task.pattern != pattern:
        raise RequestChanged(f"{directory} holds a {task.pattern} task, not a {pattern} task; use a new directory")
    try:
        same = type(request).parse(task.request) == request
    except InvalidRequest:
        same = False
    if not same:
        before, after = task.request, request.model_dump(mode="json")
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        raise RequestChanged(f"{directory} already holds a different {request.LABEL} request "
                             f"(changed: {', '.join(changed) or 'request'}); use a new directory or task id")
    return task


__all__ = [
    "TASK_FILE",
    "TASK_FILE_VERSION",
    "ModelChoice",
    "PatternName",
    "SandboxChoice",
    "TaskFile",
    "TaskFileChanges",
    "claim_task_file",
    "parse_task_file",
    "read_task_file",
    "require_task_file",
    "task_file_path",
    "update_task_file",
    "write_task_file",
]
