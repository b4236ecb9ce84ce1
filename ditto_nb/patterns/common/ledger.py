"""Ledger, budget and stage-commit helpers that BUILD graph nodes (plans do no I/O).

Memory layout (``docs/PATTERNS.md``): ``ledger/<key>`` one row per budgeted dispatch,
``budget/<name>`` counters, ``stage/<name>`` a completed stage's output. A ledgered call is four
nodes of one graph::

    <key>:start  MEMORY.WRITE ledger/<key> = {"status": "started", ...}   (before dispatch)
    <key>:charge MEMORY.WRITE budget/<kind> += 1                          (before dispatch)
    <key>        the dispatch itself (INFER / tool)
    <key>:done   MEMORY.WRITE ledger/<key> = {"status": "done", "output": ...}

A crash between ``start`` and ``done`` leaves a ``started`` row: the next run dispatches again
(and charges again — a crash may over-count, never under-count).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from ditto_nb.errors import DittoError, ToolFailed
from ditto_nb.patterns.common.binding import TaskScope
from ditto_nb.runtime.capabilities import CONTEXT_LOAD, MEMORY_WRITE
from ditto_nb.runtime.graph import Graph, graph_step

LEDGER_PREFIX = "ledger/"
BUDGET_PREFIX = "budget/"
STAGE_PREFIX = "stage/"


def now_iso() -> str:
    """Current UTC time as ISO-8601 (seconds precision)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def add_ledgered_call(
    g: Graph,
    task: TaskScope,
    *,
    key: str,
    kind: str,
    name: str,
    capability: str,
    input: Any,
    after: Iterable[str] = (),
) -> str:
    """Add the four nodes of one budgeted dispatch to ``g``.

    Args:
        g: the stage graph.
        task: the task's namespace/scope.
        key: ledger key, unique in the task (e.g. ``"model:plan"``, ``"search:0"``); also the id
            of the dispatch node.
        kind: ``"model"``, ``"search"`` or ``"read"`` (the budget counter name).
        name: what was dispatched (purpose, query or URL), recorded for replay checks.
        capability: the dispatch node's capability.
        input: the dispatch node's input (value or callable of ``after`` outputs).
        after: nodes the dispatch depends on (besides its start/charge nodes).

    Returns:
        The id of the ``done`` node (``"<key>:done"``); its dependants can read the dispatch
        output from node ``key``.
    """
    deps = tuple(after)
    started = {"kind": kind, "name": name, "status": "started", "at": now_iso()}
    g.node(f"{key}:start", MEMORY_WRITE, {"namespace": task.namespace, "key": LEDGER_PREFIX + key, "value": started})
    g.node(
        f"{key}:charge",
        MEMORY_WRITE,
        {"namespace": task.namespace, "key": BUDGET_PREFIX + kind, "increment": 1},
    )
    if callable(input):
        compute = input

        def dispatch_input(outputs: dict[str, Any]) -> Any:
            return compute({dep: outputs[dep] for dep in deps})

        g.node(key, capability, dispatch_input, after=(*deps, f"{key}:start", f"{key}:charge"))
    else:
        g.node(key, capability, input, after=(*deps, f"{key}:start", f"{key}:charge"))

    def done(outputs: dict[str, Any]) -> dict[str, Any]:
        row = {"kind": kind, "name": name, "status": "done", "at": now_iso(), "output": outputs[key]}
        return {"namespace": task.namespace, "key": LEDGER_PREFIX + key, "value": row}

    g.node(f"{key}:done", MEMORY_WRITE, done, after=(key,))
    return f"{key}:done"


class StageCommit:
    """Handle on a stage commit added to a graph; :attr:`value` is set once the graph ran.

    Attributes:
        node_id: id of the commit node (``"commit:<stage>"``).
        stage: the stage name.
    """

    def __init__(self, node_id: str, stage: str) -> None:
        self.node_id = node_id
        self.stage = stage
        self._value: Any = None
        self._set = False

    def _store(self, value: Any) -> None:
        self._value, self._set = value, True

    @property
    def value(self) -> Any:
        """The committed stage output.

        Raises:
            RuntimeError: the commit node has not run.
        """
        if not self._set:
            raise RuntimeError(f"stage {self.stage!r} was not committed")
        return self._value


def add_stage_commit(
    g: Graph,
    task: TaskScope,
    *,
    stage: str,
    value: Callable[[dict[str, Any]], Any],
    after: Iterable[str],
    context: Callable[[Any], Mapping[str, Any]] | None = None,
) -> StageCommit:
    """Add the nodes that persist a completed stage and update the Context.

    The ``value`` callable runs when every node in ``after`` is done (pure computation); it may
    raise a typed error (e.g. ``SearchFailed``) to fail the stage without committing it.

    Args:
        g: the stage graph.
        task: the task's namespace/scope.
        stage: stage name; written to ``stage/<stage>``.
        value: computes the JSON stage output from ``{dep: output}`` of ``after``.
        after: nodes whose outputs ``value`` needs.
        context: maps the stage output to Context fields (``stage`` is always added).

    Returns:
        A :class:`StageCommit`; read ``.value`` after the graph ran.
    """
    deps = tuple(after)
    commit = StageCommit(f"commit:{stage}", stage)

    def write(outputs: dict[str, Any]) -> dict[str, Any]:
        computed = value(outputs)
        commit._store(computed)
        return {"namespace": task.namespace, "key": STAGE_PREFIX + stage, "value": computed}

    g.node(commit.node_id, MEMORY_WRITE, write, after=deps)

    def update(_: dict[str, Any]) -> dict[str, Any]:
        fields = dict(context(commit.value)) if context else {}
        fields["stage"] = stage
        return {"scope": task.scope, "namespace": task.namespace, "update": fields}

    g.node(f"context:{stage}", CONTEXT_LOAD, update, after=(commit.node_id,))
    return commit


def reusable(row: Mapping[str, Any] | None) -> bool:
    """True when a ledger row holds a finished dispatch that must be reused, not re-dispatched.

    Model calls are reused once ``done``. Searches and reads are reused once ``done`` with
    ``output.ok``; a recorded failure is retried by a later run while its stage is not committed.

    Args:
        row: the ledger row (or None).

    Returns:
        Whether to reuse ``row["output"]``.
    """
    if not row or row.get("status") != "done":
        return False
    if row.get("kind") == "model":
        return True
    output = row.get("output")
    return isinstance(output, Mapping) and bool(output.get("ok"))


def unwrap_tool_error(error: ToolFailed) -> BaseException:
    """Return the typed error a tool raised (e.g. ``SnapshotCorrupted``), else ``error``.

    Args:
        error: the Interaction Worker's wrapper.

    Returns:
        ``error.cause`` when it is a :class:`~ditto_nb.errors.DittoError`, otherwise ``error``.
    """
    return error.cause if isinstance(error.cause, DittoError) else error


def run_step(g: Graph) -> Generator[Any, Any, dict[str, Any]]:
    """Yield one graph from a plan and return its outputs, unwrapping typed tool errors.

    Use as ``outputs = yield from run_step(g)``.

    Args:
        g: the graph.

    Returns:
        ``{node_id: output}``.

    Raises:
        DittoError: the typed error a tool raised (``PermissionRevoked``, ``SnapshotCorrupted``,
            ``PublishFailed``, ...), or any node error unchanged.
    """
    try:
        outputs: dict[str, Any] = yield graph_step(g)
    except ToolFailed as exc:
        cause = unwrap_tool_error(exc)
        if cause is exc:
            raise
        raise cause from exc
    return outputs


__all__ = [
    "BUDGET_PREFIX",
    "LEDGER_PREFIX",
    "STAGE_PREFIX",
    "add_ledgered_call",
    "add_stage_commit",
    "now_iso",
    "reusable",
    "run_step",
    "StageCommit",
    "unwrap_tool_error",
]
