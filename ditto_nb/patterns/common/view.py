"""The ONE typed reader of a task: :class:`TaskView` (stages, ledger, budgets, report, failures, withheld claims).

Notebook frames, Markdown export and ``ditto-nb show`` read a task through it and never run
SQL themselves: rows come through the task's MemoryStore (SQLite read-only, or PostgreSQL for a
directory holding a ``task-id``), see :func:`ditto_nb.workers.memory_reader.read_task_rows`.
Key layout (both patterns, ``docs/PATTERNS.md``): ``request`` (binding), ``stage/<name>``
(``stage/report`` is the final report), ``ledger/<key>``, ``budget/model|search|read``,
``failure/<time>`` (failed runs, :mod:`ditto_nb.patterns.common.failures`), ``withheld``; deep
research adds ``round/<n>/plan``, ``round/<n>/reads``, ``stage/round/<n>`` and ``started_at``.

Example::

    view = load_task("tasks/t1")
    read = view.stage("read")                      # JSON value, or None
    report = view.stage("report", WebQaReport)     # a validated pydantic model, or None
    view.budgets()                                 # {"model": 4, "search": 1, "read": 2}
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, cast, overload

from pydantic import BaseModel

from ditto_nb.errors import ConfigError
from ditto_nb.patterns.common.ledger import BUDGET_PREFIX, COUNTERS, LEDGER_PREFIX, STAGE_PREFIX
from ditto_nb.patterns.common.records import FailureRow, JsonObject, LedgerRow, WithheldClaim
from ditto_nb.runtime.config import MemoryConfig, load_runtime_config
from ditto_nb.workers.memory import TASK_ID_FILE_NAME
from ditto_nb.workers.memory_reader import MEMORY_FILE, read_task_rows

FAILURE_PREFIX = "failure/"
"""Memory key prefix of failed-run rows (written by :mod:`ditto_nb.patterns.common.failures`)."""

Pattern = Literal["web_qa", "deep_research"]

_PREFIXES: dict[str, Pattern] = {"web_qa:": "web_qa", "research:": "deep_research"}

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class TaskView:
    """A snapshot of one task's Memory rows (read once, in one transaction).

    Attributes:
        directory: the task directory.
        pattern: ``web_qa`` or ``deep_research`` (from the namespace prefix).
        namespace: the Memory namespace (``web_qa:<id>`` or ``research:<id>``).
        rows: every ``{key: value}`` of the namespace (JSON values).
    """

    directory: Path
    pattern: Pattern
    namespace: str
    rows: Mapping[str, object]

    def get(self, key: str) -> Any:
        """The value under ``key``, or None."""
        return self.rows.get(key)

    def prefixed(self, prefix: str) -> list[tuple[str, Any]]:
        """``(key without prefix, value)`` of every key starting with ``prefix``, sorted by key."""
        return [(k[len(prefix):], v) for k, v in sorted(self.rows.items()) if k.startswith(prefix)]

    @property
    def request(self) -> Mapping[str, object]:
        """The bound request's fields (``{}`` before the task is bound)."""
        binding = self.rows.get("request")
        if isinstance(binding, dict) and isinstance(binding.get("request"), dict):
            return dict(binding["request"])
        return {}

    @overload
    def stage(self, name: str) -> Any: ...

    @overload
    def stage(self, name: str, as_type: type[M]) -> M | None: ...

    def stage(self, name: str, as_type: type[M] | None = None) -> Any:
        """The committed output of stage ``name`` (``stage/<name>``), or None.

        Args:
            name: the stage name (``plan``, ``read``, ``report``, ``round/2``, ...).
            as_type: a pydantic model to validate the output into (None: the JSON value).

        Returns:
            The JSON value, the validated model, or None when the stage is not committed.

        Raises:
            pydantic.ValidationError: the stored output does not fit ``as_type``.
        """
        value = self.rows.get(STAGE_PREFIX + name)
        if value is None or as_type is None:
            return value
        return as_type.model_validate(value)

    @property
    def report(self) -> JsonObject | None:
        """The final validated report (``stage/report``) as JSON, or None."""
        value = self.rows.get(STAGE_PREFIX + "report")
        return dict(value) if isinstance(value, dict) else None

    @property
    def failures(self) -> list[FailureRow]:
        """Failed runs recorded in Memory (``failure/<time>``), oldest first: ``stage``,
        ``error_type``, ``message``, ``help``, ``retryable``, ``at`` (UTC ISO-8601)."""
        return [cast(FailureRow, dict(v)) for _k, v in self.prefixed(FAILURE_PREFIX) if isinstance(v, dict)]

    @property
    def last_failure(self) -> FailureRow | None:
        """The failure of the task's latest run: the newest failure row when nothing is published
        and no ledger row is newer (a later run that did work supersedes it), else None."""
        failures = self.failures
        if not failures or (self.directory / "output" / "report.json").is_file():
            return None
        newest = failures[-1]
        work = [str(row.get("at") or "") for _k, row in self.ledger()]
        if work and max(work) > str(newest.get("at") or ""):
            return None
        return newest

    @property
    def withheld(self) -> list[WithheldClaim]:
        """Claims verification rejected and withheld from the published answer (``withheld``):
        ``claim``, ``chunk_id``, ``quote``, ``reason``, ``quote_found``, ``grounded``."""
        value = self.rows.get("withheld")
        claims = value.get("claims") if isinstance(value, dict) else None
        return [cast(WithheldClaim, dict(c)) for c in claims or [] if isinstance(c, dict)]

    def ledger(self, kind: str | None = None) -> list[tuple[str, LedgerRow]]:
        """Ledger rows ``(key, row)`` sorted by key, optionally only those of ``kind``
        (``model``, ``search``, ``read``)."""
        rows = [(k, cast(LedgerRow, v)) for k, v in self.prefixed(LEDGER_PREFIX) if isinstance(v, dict)]
        return [(k, v) for k, v in rows if kind is None or v.get("kind") == kind]

    def budgets(self) -> dict[str, int]:
        """Budget counters ``{"model", "search", "read"}`` as charged (never reset)."""
        used = {k: int(v or 0) for k, v in self.prefixed(BUDGET_PREFIX)}
        return {name: used.get(name, 0) for name in COUNTERS}

    def unfinished(self) -> list[str]:
        """Ledger keys whose dispatch started but never recorded done (e.g. after a crash)."""
        return [key for key, row in self.ledger() if row.get("status") != "done"]


def task_memory_config(directory: str | os.PathLike[str]) -> MemoryConfig | None:
    """The Memory backend a task directory was run with, as far as the directory tells.

    A directory holding ``memory.sqlite3`` (or neither file) is SQLite (None); one holding only a
    ``task-id`` keeps its Memory in PostgreSQL, reached with ``memory`` of the configuration a
    notebook or the CLI loads (:func:`~ditto_nb.runtime.config.load_runtime_config`).

    Raises:
        ConfigError: a PostgreSQL task while the configuration's ``memory.backend`` is not
            ``postgres`` (or the configuration is invalid).
    """
    task_dir = Path(directory)
    if (task_dir / MEMORY_FILE).is_file() or not (task_dir / TASK_ID_FILE_NAME).is_file():
        return None
    memory = load_runtime_config().memory
    if memory.backend != "postgres":
        raise ConfigError(
            f"{task_dir} keeps its Memory in PostgreSQL (it holds {TASK_ID_FILE_NAME}), "
            f"but the configuration's memory.backend is {memory.backend}",
            help="Set memory.backend: postgres and memory.dsn in ditto.yaml, or pass memory=config.memory.",
        )
    return memory


def load_task(
    directory: str | os.PathLike[str], namespace: str | None = None, memory: MemoryConfig | None = None
) -> TaskView:
    """Read a task directory's Memory (read-only, no lock) through its MemoryStore.

    Args:
        directory: the task directory (holding ``memory.sqlite3``, or the ``task-id`` of a
            PostgreSQL task).
        namespace: the namespace to read; None → the one Web QA or research namespace present.
        memory: the Memory backend the task runs with (``config.memory``); None → as
            :func:`task_memory_config` tells from the directory.

    Returns:
        The :class:`TaskView`.

    Raises:
        ConfigError: no Memory, no task namespace, or several namespaces and none chosen.
        StorageError: the store cannot be read.
    """
    if memory is None:
        memory = task_memory_config(directory)
    chosen, rows = read_task_rows(directory, namespace, tuple(_PREFIXES), memory)
    pattern = next((p for prefix, p in _PREFIXES.items() if chosen.startswith(prefix)), None)
    if pattern is None:
        raise ConfigError(f"namespace {chosen!r} is not a Web QA or research task")
    return TaskView(Path(directory), pattern, chosen, rows)


__all__ = ["MEMORY_FILE", "Pattern", "TaskView", "load_task", "task_memory_config"]
