"""Stage graph builders of the research plan: flat DAGs of Worker nodes.

A budgeted dispatch is four nodes: ``charge:<key>`` (``budget/<name>`` += 1), ``start:<key>``
(ledger row ``started``), ``call:<key>`` (the Worker call) and ``done:<key>`` (ledger row
``done`` with the output) — so the budget is in Memory before the dispatch (docs/PATTERNS.md).
Every stage graph also carries a ``clock`` node (the plan never reads the clock itself) and
a ``persist`` node for writes the plan queued.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel

from ditto_nb.errors import RequestChanged
from ditto_nb.patterns.common import used_sources
from ditto_nb.patterns.deep_research.request import ResearchRequest
from ditto_nb.patterns.deep_research.tools import TOOL_CLOCK, TOOL_POLICY, TOOL_SNAPSHOTS
from ditto_nb.runtime.capabilities import (
    CONTEXT_LOAD,
    INFER_REASONING_SAMPLE,
    INTERACTION_ACT_TOOL,
    MEMORY_GET,
    MEMORY_WRITE,
)
from ditto_nb.runtime.graph import Graph, graph


def now_iso() -> str:
    """Current UTC time as ISO-8601 (used inside node inputs, never by the plan)."""
    return datetime.now(timezone.utc).isoformat()


def add_clock(g: Graph, after: tuple[str, ...] = ()) -> Graph:
    """Add the ``clock`` node (tool ``clock``; output: seconds since the epoch)."""
    return g.node("clock", INTERACTION_ACT_TOOL, {"tool": TOOL_CLOCK, "args": {}}, after=after)


def add_persist(g: Graph, namespace: str, writes: list[tuple[str, Any]]) -> None:
    """Add a ``persist`` node writing ``writes`` (key, value) in one transaction, if any."""
    if writes:
        g.node(
            "persist",
            MEMORY_WRITE,
            {"writes": [{"namespace": namespace, "key": key, "value": value} for key, value in writes]},
        )


def add_dispatch(
    g: Graph,
    namespace: str,
    key: str,
    kind: str,
    budget: str,
    capability: str,
    payload: Any,
    after: tuple[str, ...] = (),
) -> str:
    """Add the four nodes of one budgeted dispatch.

    Args:
        g: the stage graph.
        namespace: the task's Memory namespace.
        key: the ledger key (``model:plan``, ``search:r1:q1``, ``read:r1:<hash>``).
        kind: ``model``, ``search`` or ``read``.
        budget: the counter name (``model_calls``, ``searches``, ``reads``).
        capability: the capability dispatched.
        payload: the dispatched input (a value).
        after: nodes that must finish before the charge.

    Returns:
        The id of the ``call:<key>`` node (its output is the dispatch's output).
    """
    g.node(f"charge:{key}", MEMORY_WRITE, {"namespace": namespace, "key": f"budget/{budget}", "increment": 1},
           after=after)
    g.node(
        f"start:{key}",
        MEMORY_WRITE,
        lambda _deps: {"namespace": namespace, "key": f"ledger/{key}",
                       "value": {"kind": kind, "status": "started", "output": None, "at": now_iso()}},
        after=(f"charge:{key}",),
    )
    g.node(f"call:{key}", capability, payload, after=(f"start:{key}",))
    g.node(
        f"done:{key}",
        MEMORY_WRITE,
        lambda deps: {"namespace": namespace, "key": f"ledger/{key}",
                      "value": {"kind": kind, "status": "done", "output": deps[f"call:{key}"], "at": now_iso()}},
        after=(f"call:{key}",),
    )
    return f"call:{key}"


def model_payload(
    model: dict[str, Any], purpose: str, messages: list[dict[str, str]], schema: type[BaseModel]
) -> dict[str, Any]:
    """The ``INFER.REASONING.SAMPLE`` input of one research model call."""
    return {
        "provider": model["provider"],
        "model": model["model"],
        "messages": messages,
        "output_schema": schema,
        "purpose": purpose,
    }


def add_model_call(
    g: Graph, namespace: str, key: str, model: dict[str, Any], purpose: str,
    messages: list[dict[str, str]], schema: type[BaseModel],
) -> str:
    """Add one budgeted model call (budget ``model_calls``); returns the call node id."""
    return add_dispatch(g, namespace, key, "model", "model_calls", INFER_REASONING_SAMPLE,
                        model_payload(model, purpose, messages, schema))


def resume_graph(request: ResearchRequest, binding: dict[str, Any]) -> Graph:
    """The ``resume`` graph run first on every call.

    Nodes: ``clock``; ``bind`` (write the request binding with the persisted start time, only if
    absent); ``binding`` (read it back); ``state`` (every Memory row of the task — refuses a
    changed request with :class:`RequestChanged`); ``context`` (Context load, rebuilt from Memory
    when Redis lost it); ``policy`` and ``snapshots`` (re-check the origins and the SHA-256 of
    every page the task used).

    Args:
        request: the request of this call.
        binding: ``{"fingerprint", "request"}`` of this request.

    Returns:
        The graph.
    """
    ns = request.namespace
    g = graph("resume")
    add_clock(g)
    g.node("bind", MEMORY_WRITE,
           lambda deps: {"namespace": ns, "key": "request", "if_absent": True,
                         "value": {**binding, "started_at": deps["clock"]}},
           after=("clock",))
    g.node("binding", MEMORY_GET, {"namespace": ns, "key": "request"}, after=("bind",))

    def state_input(deps: dict[str, Any]) -> dict[str, Any]:
        stored = deps["binding"] or {}
        if stored.get("fingerprint") != binding["fingerprint"]:
            raise RequestChanged(
                f"task {request.id!r} already holds a different request (topic, policy or budgets); "
                "use a new task id or directory"
            )
        return {"namespace": ns, "prefix": ""}

    g.node("state", MEMORY_GET, state_input, after=("binding",))
    g.node("context", CONTEXT_LOAD, {"scope": request.scope_key, "namespace": ns, "update": None},
           after=("state",))
    g.node("policy", INTERACTION_ACT_TOOL,
           lambda deps: {"tool": TOOL_POLICY, "args": {"origins": used_sources(_ledger(deps["state"]))[0]}},
           after=("state",))
    g.node("snapshots", INTERACTION_ACT_TOOL,
           lambda deps: {"tool": TOOL_SNAPSHOTS, "args": {"sha256s": used_sources(_ledger(deps["state"]))[1]}},
           after=("state",))
    return g


def _ledger(rows: list[list[Any]] | None) -> list[Any]:
    return [[key, value] for key, value in rows or [] if str(key).startswith("ledger/")]


def context_node(g: Graph, request: ResearchRequest, update: dict[str, Any], after: tuple[str, ...] = ()) -> None:
    """Add a ``context`` node writing the working set ``update`` to the task's Context."""
    g.node("context", CONTEXT_LOAD, {"scope": request.scope_key, "namespace": request.namespace,
                                     "update": update}, after=after)


__all__ = [
    "add_clock",
    "add_dispatch",
    "add_model_call",
    "add_persist",
    "context_node",
    "model_payload",
    "now_iso",
    "resume_graph",
]
