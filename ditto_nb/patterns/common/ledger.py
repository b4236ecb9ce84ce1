"""The ONE ledgered, budgeted dispatch of both patterns, and the stage-commit node builders.

Memory layout (``docs/PATTERNS.md``): ``ledger/<key>`` one row per budgeted dispatch,
``budget/<kind>`` counters (ONE set of names for both patterns: ``budget/model``,
``budget/search``, ``budget/read``), ``stage/<name>`` a completed stage's output. A ledgered
call is four nodes of one graph, in this order::

    <key>:charge MEMORY.WRITE budget/<kind> += 1                          (before dispatch)
    <key>:start  MEMORY.WRITE ledger/<key> = {"kind", "name", "status": "started"}
    <key>        the dispatch itself (INFER / tool)
    <key>:done   MEMORY.WRITE ledger/<key> = {"kind", "name", "status": "done", "output": ...}

A crash between ``charge`` and ``done`` leaves a charged counter (and maybe a ``started`` row):
the next run dispatches again and charges again — a crash may over-count, never under-count;
counters are only ever incremented, never reset.

On replay, :class:`Ledger` decides per key: a ``done`` row is reused (never re-dispatched) when
its kind and name match what the plan asks for now (DBOS checks a step's key *and* recorded
name); a mismatch raises :class:`~ditto_nb.errors.ReplayMismatch`. Rows written before names
were recorded (deep research before issue 11) are matched by key and kind only. Whether a
``done`` row that records a *failed* search/read is reused or retried is the pattern's policy
(:attr:`Ledger.reuse_failed`): deep research freezes a round's URL list, so it reuses them; Web QA
retries them while the stage is not committed.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from ditto_nb.errors import BudgetExceeded, DittoError, ReplayMismatch, ToolFailed
from ditto_nb.patterns.common.binding import TaskScope
from ditto_nb.patterns.common.records import ContextCall, LedgerRow, MemoryCall
from ditto_nb.runtime.capabilities import CONTEXT_LOAD, MEMORY_WRITE
from ditto_nb.runtime.graph import Graph, GraphStep, NodeOutputs, graph_step

LEDGER_PREFIX = "ledger/"
BUDGET_PREFIX = "budget/"
STAGE_PREFIX = "stage/"

DispatchKind = Literal["model", "search", "read"]
COUNTERS: tuple[DispatchKind, ...] = ("model", "search", "read")
"""The budget counter names (``budget/<name>``), equal to the ledger row kinds."""

T = TypeVar("T")
Plan = Generator[GraphStep, NodeOutputs, T]
"""A plan sub-generator (a stage of either pattern): yields graph steps, receives their outputs
``{node_id: output}``, returns ``T``. Use ``value = yield from sub_plan(...)``."""


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
    """Add the four nodes of one budgeted dispatch to ``g`` (charge → start → dispatch → done).

    Args:
        g: the stage graph.
        task: the task's namespace/scope.
        key: ledger key, unique in the task (e.g. ``"model:plan"``, ``"search:0"``); also the id
            of the dispatch node.
        kind: ``"model"``, ``"search"`` or ``"read"`` (also the budget counter name).
        name: what was dispatched (purpose, query or URL), recorded for replay checks.
        capability: the dispatch node's capability.
        input: the dispatch node's input (value or callable of ``after`` outputs).
        after: nodes the charge (and so the dispatch) depends on.

    Returns:
        The id of the ``done`` node (``"<key>:done"``); the dispatch output is node ``key``'s.
    """
    deps = tuple(after)
    g.node(
        f"{key}:charge",
        MEMORY_WRITE,
        {"namespace": task.namespace, "key": BUDGET_PREFIX + kind, "increment": 1},
        after=deps,
    )

    def start(_: NodeOutputs) -> MemoryCall:
        row: LedgerRow = {"kind": kind, "name": name, "status": "started", "at": now_iso()}
        return {"namespace": task.namespace, "key": LEDGER_PREFIX + key, "value": row}

    g.node(f"{key}:start", MEMORY_WRITE, start, after=(f"{key}:charge",))
    if callable(input):
        compute = input

        def dispatch_input(outputs: NodeOutputs) -> Any:
            return compute({dep: outputs[dep] for dep in deps})

        g.node(key, capability, dispatch_input, after=(*deps, f"{key}:start"))
    else:
        g.node(key, capability, input, after=(*deps, f"{key}:start"))

    def done(outputs: NodeOutputs) -> MemoryCall:
        row: LedgerRow = {"kind": kind, "name": name, "status": "done", "at": now_iso(), "output": outputs[key]}
        return {"namespace": task.namespace, "key": LEDGER_PREFIX + key, "value": row}

    g.node(f"{key}:done", MEMORY_WRITE, done, after=(key,))
    return f"{key}:done"


def check_replay(key: str, row: LedgerRow, kind: str, name: str) -> None:
    """Refuse to replay a ledger row that records another dispatch.

    Args:
        key: the ledger key.
        row: the stored row.
        kind: the kind the plan asks for now.
        name: the name (purpose, query or URL) the plan asks for now.

    Raises:
        ReplayMismatch: the row's ``kind`` differs, or its recorded ``name`` differs (rows
            without a name, written before names were recorded, are checked by kind only).
    """
    if row.get("kind") != kind:
        raise ReplayMismatch(f"ledger/{key} records a {row.get('kind')!r} dispatch, replay asks for {kind!r}")
    recorded = row.get("name")
    if recorded is not None and recorded != name:
        raise ReplayMismatch(f"ledger/{key} records {recorded!r}, replay asks for {name!r}")


@dataclass
class Ledger:
    """The ledger and budget counters as read at resume, and the charges of this run (pure data).

    Attributes:
        rows: ``{key: row}`` without the ``ledger/`` prefix.
        used: ``{counter: used}`` for :data:`COUNTERS` (task-wide, never reset).
        limits: ``{counter: limit}``; a counter without a limit is unbounded here.
        reuse_failed: reuse ``done`` rows that record a failed search/read (policy flag).
    """

    rows: dict[str, LedgerRow] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)
    reuse_failed: bool = False

    @classmethod
    def from_resume(
        cls, ledger_rows: Iterable[Any], budget_rows: Iterable[Any], limits: Mapping[str, int] | None = None,
        *, reuse_failed: bool = False,
    ) -> Ledger:
        """Build from the ``ledger`` and ``budget`` outputs of the resume graph.

        Args:
            ledger_rows: ``[[key, row], ...]`` with the ``ledger/`` prefix.
            budget_rows: ``[[key, count], ...]`` with the ``budget/`` prefix.
            limits: per-counter limits.
            reuse_failed: see the class attribute.

        Returns:
            The ledger.
        """
        rows = {str(k).removeprefix(LEDGER_PREFIX): v for k, v in ledger_rows or []}
        counts = {str(k).removeprefix(BUDGET_PREFIX): int(v or 0) for k, v in budget_rows or []}
        used: dict[str, int] = {name: counts.get(name, 0) for name in COUNTERS}
        return cls(rows=rows, used=used, limits=dict(limits or {}), reuse_failed=reuse_failed)

    def reuse(self, key: str, kind: str, name: str) -> Any | None:
        """The stored output to reuse for ``key``, or None when it must be dispatched.

        Args:
            key: the ledger key.
            kind: ``model``, ``search`` or ``read``.
            name: purpose, query or URL.

        Returns:
            The ``output`` of a matching ``done`` row (model calls always; searches and reads
            when ``output.ok`` or :attr:`reuse_failed`), else None.

        Raises:
            ReplayMismatch: the row records another kind or name.
        """
        row = self.rows.get(key)
        if not isinstance(row, Mapping):
            return None
        check_replay(key, row, kind, name)
        if row.get("status") != "done":
            return None
        output = row.get("output")
        if kind == "model" or self.reuse_failed:
            return output
        return output if isinstance(output, Mapping) and output.get("ok") else None

    def can_charge(self, kind: str) -> bool:
        """True when one more ``kind`` dispatch fits its limit (always, without a limit)."""
        limit = self.limits.get(kind)
        return limit is None or self.used.get(kind, 0) < limit

    def charge(self, kind: str) -> None:
        """Count one dispatch of ``kind`` planned by this run (the graph charges Memory).

        Raises:
            BudgetExceeded: the counter is at its limit.
        """
        if not self.can_charge(kind):
            raise BudgetExceeded(f"{kind} budget of {self.limits[kind]} would be exceeded")
        self.used[kind] = self.used.get(kind, 0) + 1

    def budgets(self) -> dict[str, dict[str, int]]:
        """``{counter: {"used", "limit"}}`` for every limited counter."""
        return {name: {"used": self.used.get(name, 0), "limit": limit} for name, limit in self.limits.items()}


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
    value: Callable[[NodeOutputs], Any],
    after: Iterable[str],
    context: Callable[[Any], Mapping[str, object]] | None = None,
    output: type[BaseModel] | None = None,
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
        output: the stage's pydantic output model; the computed value is validated by it and
            its JSON dump is what is committed (and what :attr:`StageCommit.value` holds).

    Returns:
        A :class:`StageCommit`; read ``.value`` after the graph ran.
    """
    deps = tuple(after)
    commit = StageCommit(f"commit:{stage}", stage)

    def write(outputs: NodeOutputs) -> MemoryCall:
        computed = value(outputs)
        if output is not None:
            computed = output.model_validate(computed).model_dump(mode="json")
        commit._store(computed)
        return {"namespace": task.namespace, "key": STAGE_PREFIX + stage, "value": computed}

    g.node(commit.node_id, MEMORY_WRITE, write, after=deps)

    def update(_: NodeOutputs) -> ContextCall:
        fields: dict[str, object] = dict(context(commit.value)) if context else {}
        fields["stage"] = stage
        return {"scope": task.scope, "namespace": task.namespace, "update": fields}

    g.node(f"context:{stage}", CONTEXT_LOAD, update, after=(commit.node_id,))
    return commit


def unwrap_tool_error(error: ToolFailed) -> BaseException:
    """Return the typed error a tool raised (e.g. ``SnapshotCorrupted``), else ``error``.

    Args:
        error: the Interaction Worker's wrapper.

    Returns:
        ``error.cause`` when it is a :class:`~ditto_nb.errors.DittoError`, otherwise ``error``.
    """
    return error.cause if isinstance(error.cause, DittoError) else error


def run_step(g: Graph) -> Plan[NodeOutputs]:
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
        outputs = yield graph_step(g)
    except ToolFailed as exc:
        cause = unwrap_tool_error(exc)
        if cause is exc:
            raise
        raise cause from exc
    return outputs


__all__ = [
    "BUDGET_PREFIX",
    "COUNTERS",
    "DispatchKind",
    "Ledger",
    "check_replay",
    "LEDGER_PREFIX",
    "Plan",
    "STAGE_PREFIX",
    "add_ledgered_call",
    "add_stage_commit",
    "now_iso",
    "run_step",
    "StageCommit",
    "unwrap_tool_error",
]
