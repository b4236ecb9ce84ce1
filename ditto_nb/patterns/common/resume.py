"""The ``resume`` graph every run starts with, and the state the plan reads from it.

Nodes (one graph, no I/O in the plan):

- ``bind``: ``MEMORY.WRITE request`` if absent (the request binding);
- ``binding`` / ``stages`` / ``ledger`` / ``budget``: ``MEMORY.GET`` of the binding and of the
  ``stage/``, ``ledger/`` and ``budget/`` prefixes;
- ``context``: ``CONTEXT.LOAD`` of the task scope (the request is written on the first run; missing
  or expired Redis keys are rebuilt from Memory by the Context Worker);
- ``policy``: tool ``policy_check`` over every origin the task has read from → ``PermissionRevoked``;
- ``snapshots``: tool ``snapshot_check`` re-hashing every snapshot the task used → ``SnapshotCorrupted``.

The checks run on every resume and replay. A changed request raises ``RequestChanged`` before any
check runs (from the input callables of ``policy``/``snapshots``/``context``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ditto_nb.patterns.common.binding import REQUEST_KEY, TaskScope, check_binding
from ditto_nb.patterns.common.ledger import BUDGET_PREFIX, LEDGER_PREFIX, STAGE_PREFIX
from ditto_nb.patterns.common.records import Binding, ContextCall, LedgerRow, ToolCall
from ditto_nb.runtime.capabilities import CONTEXT_LOAD, INTERACTION_ACT_TOOL, MEMORY_GET, MEMORY_WRITE
from ditto_nb.runtime.graph import Graph, NodeOutputs, graph
from ditto_nb.web.policy import origin_of


def used_sources(ledger_rows: list[Any]) -> tuple[list[str], list[str]]:
    """Origins and snapshot hashes of every successful read in the ledger.

    Args:
        ledger_rows: ``[[key, row], ...]`` as returned by ``MEMORY.GET`` with a prefix.

    Returns:
        ``(origins, sha256s)``, each sorted and without duplicates.
    """
    origins: set[str] = set()
    hashes: set[str] = set()
    for _key, row in ledger_rows:
        if not isinstance(row, Mapping) or row.get("kind") != "read" or row.get("status") != "done":
            continue
        output = row.get("output")
        if not isinstance(output, Mapping) or not output.get("ok"):
            continue
        for url_field in ("url", "final_url"):
            if output.get(url_field):
                origins.add(origin_of(str(output[url_field])))
        if output.get("sha256"):
            hashes.add(str(output["sha256"]))
    return sorted(origins), sorted(hashes)


def build_resume_graph(task: TaskScope, binding: Binding, name: str = "resume") -> Graph:
    """Build the resume graph (see the module docstring).

    Args:
        task: the task's namespace and Context scope.
        binding: ``binding_for(request)`` of the current request.
        name: graph name in traces.

    Returns:
        The graph; read its outputs with :func:`read_resume`.
    """
    ns = task.namespace
    expected = binding.copy()

    def checked(outputs: NodeOutputs) -> None:
        check_binding(outputs["binding"], expected)

    def context_input(outputs: NodeOutputs) -> ContextCall:
        checked(outputs)
        update: dict[str, object] | None = {"request": expected["request"]} if outputs["bind"] else None
        return {"scope": task.scope, "namespace": ns, "update": update}

    def policy_input(outputs: NodeOutputs) -> ToolCall:
        checked(outputs)
        origins, _ = used_sources(outputs["ledger"])
        return {"tool": "policy_check", "args": {"origins": origins}}

    def snapshot_input(outputs: NodeOutputs) -> ToolCall:
        checked(outputs)
        _, hashes = used_sources(outputs["ledger"])
        return {"tool": "snapshot_check", "args": {"sha256s": hashes}}

    g = graph(name)
    g.node("bind", MEMORY_WRITE, {"namespace": ns, "key": REQUEST_KEY, "value": expected, "if_absent": True})
    g.node("binding", MEMORY_GET, {"namespace": ns, "key": REQUEST_KEY}, after=("bind",))
    g.node("stages", MEMORY_GET, {"namespace": ns, "prefix": STAGE_PREFIX})
    g.node("ledger", MEMORY_GET, {"namespace": ns, "prefix": LEDGER_PREFIX})
    g.node("budget", MEMORY_GET, {"namespace": ns, "prefix": BUDGET_PREFIX})
    g.node("context", CONTEXT_LOAD, context_input, after=("bind", "binding"))
    g.node("policy", INTERACTION_ACT_TOOL, policy_input, after=("binding", "ledger"))
    g.node("snapshots", INTERACTION_ACT_TOOL, snapshot_input, after=("binding", "ledger"))
    return g


@dataclass(frozen=True)
class ResumeState:
    """What a task has already done, as read by the resume graph.

    Attributes:
        new_task: True when this run bound the request (first run).
        stages: ``{stage name: committed output}`` (the JSON object each stage committed, as
            stored; read it back through the stage's output model).
        ledger: ``{ledger key: row}``.
        budget: ``{counter name: value}``.
        context: the Context values (``CONTEXT.LOAD`` output ``values``).
        context_rebuilt: True when Redis keys were missing and rebuilt from Memory.
    """

    new_task: bool
    stages: dict[str, Mapping[str, object]] = field(default_factory=dict)
    ledger: dict[str, LedgerRow] = field(default_factory=dict)
    budget: dict[str, int] = field(default_factory=dict)
    context: dict[str, object] = field(default_factory=dict)
    context_rebuilt: bool = False


def _strip(key: object, prefix: str) -> str:
    """A ``MEMORY.GET`` row key without ``prefix``."""
    return str(key)[len(prefix):] if str(key).startswith(prefix) else str(key)


def read_resume(outputs: NodeOutputs, binding: Binding) -> ResumeState:
    """Parse the resume graph's outputs.

    Args:
        outputs: ``{node_id: output}`` of :func:`build_resume_graph`'s graph.
        binding: the expected binding.

    Returns:
        The :class:`ResumeState`.

    Raises:
        RequestChanged: the stored binding differs.
    """
    check_binding(outputs.get("binding"), binding)
    context = outputs.get("context") or {}
    return ResumeState(
        new_task=bool(outputs.get("bind")),
        stages={_strip(key, STAGE_PREFIX): value for key, value in outputs.get("stages") or []},
        ledger={_strip(key, LEDGER_PREFIX): row for key, row in outputs.get("ledger") or []},
        budget={_strip(key, BUDGET_PREFIX): int(value) for key, value in outputs.get("budget") or []},
        context=dict(context.get("values") or {}),
        context_rebuilt=bool(context.get("rebuilt")),
    )


__all__ = ["ResumeState", "build_resume_graph", "read_resume", "used_sources"]
