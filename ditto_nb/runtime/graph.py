"""Stage graphs: flat DAGs of Worker calls, and their validation.

A :class:`Graph` is declared fluently with :meth:`Graph.node`; nodes name a capability, an input
(a value, or a sync callable computing it from the outputs of the nodes in ``after``) and their
dependencies. Graphs never contain Graphs. Validation (:func:`validate_graph`) runs before any
node of the graph is scheduled; ordering uses :class:`graphlib.TopologicalSorter` (stdlib).
"""

from __future__ import annotations

import graphlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ditto_nb.errors import GraphError

NodeInput = Any
"""A node input: any value, or a sync callable ``f(deps: dict[str, Any]) -> Any``."""

NodeOutputs = dict[str, Any]
"""What a graph step sends back to its plan, and what an input callable receives: ``{node_id:
output}``, each output the JSON a Worker returned for that node."""

_MAX_INPUT_SCAN_DEPTH = 8


@dataclass(frozen=True)
class Node:
    """One Worker call of a graph.

    Attributes:
        id: unique within the graph; the key of the node's output.
        capability: the capability routed to a Worker (see ``ditto_nb.runtime.capabilities``).
        input: a value, or a sync callable receiving ``{dep_id: output}`` for the ids in ``after``.
        after: ids of the nodes that must finish first.
    """

    id: str
    capability: str
    input: NodeInput
    after: tuple[str, ...] = ()

    def resolve_input(self, outputs: Mapping[str, Any]) -> Any:
        """Compute the input sent to the Worker.

        Args:
            outputs: outputs of finished nodes of the graph (at least those in ``after``).

        Returns:
            ``input`` itself, or ``input({dep: outputs[dep] for dep in after})`` when callable.

        Raises:
            GraphError: the callable returned a Graph (graphs never contain graphs).
            Exception: whatever the callable raised, unchanged.
        """
        if not callable(self.input) or isinstance(self.input, Graph):
            return self.input
        value = self.input({dep: outputs[dep] for dep in self.after})
        if _contains_graph(value, 0):
            raise GraphError(f"node {self.id!r}: its input callable returned a Graph; graphs never nest")
        return value


@dataclass
class Graph:
    """A named flat DAG of Worker calls for one stage.

    Build with :func:`graph` and :meth:`node`; run by yielding ``graph_step(g)`` from a plan.

    Attributes:
        name: the stage name shown in traces.
        nodes: the nodes in declaration order.
    """

    name: str
    nodes: list[Node] = field(default_factory=list)

    def node(self, id: str, capability: str, input: NodeInput, after: Iterable[str] = ()) -> Graph:
        """Add a node and return the graph (fluent).

        Args:
            id: node id, unique within the graph.
            capability: capability name routed to a Worker.
            input: a value, or a sync callable ``f(deps: dict[str, Any]) -> Any`` receiving the
                outputs of the nodes listed in ``after``.
            after: ids of nodes that must finish before this one starts (a single id string is
                accepted as one dependency).

        Returns:
            This graph.
        """
        deps = (after,) if isinstance(after, str) else tuple(after)
        self.nodes.append(Node(id=id, capability=capability, input=input, after=deps))
        return self

    @property
    def node_ids(self) -> tuple[str, ...]:
        """Node ids in declaration order."""
        return tuple(node.id for node in self.nodes)


@dataclass(frozen=True)
class GraphStep:
    """What a plan yields: "run this graph and send me its outputs ``{node_id: output}``"."""

    graph: Graph


def graph(name: str) -> Graph:
    """Start declaring a stage graph.

    Args:
        name: the stage name shown in traces (e.g. ``"search"``).

    Returns:
        An empty :class:`Graph`.
    """
    return Graph(name=name)


def graph_step(g: Graph) -> GraphStep:
    """Wrap a graph for a plan to yield.

    Args:
        g: the graph to run.

    Returns:
        The :class:`GraphStep` the Loop executes; the plan receives ``{node_id: output}``.

    Raises:
        GraphError: ``g`` is not a Graph.
    """
    if not isinstance(g, Graph):
        raise GraphError(f"graph_step() needs a Graph, got {type(g).__name__}")
    return GraphStep(graph=g)


def _contains_graph(value: Any, depth: int) -> bool:
    if isinstance(value, (Graph, GraphStep)):
        return True
    if depth >= _MAX_INPUT_SCAN_DEPTH:
        return False
    if isinstance(value, Mapping):
        return any(_contains_graph(item, depth + 1) for item in value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_contains_graph(item, depth + 1) for item in value)
    return False


def validate_graph(g: Graph, capabilities: Iterable[str]) -> tuple[str, ...]:
    """Check a graph before anything of it runs.

    Args:
        g: the graph.
        capabilities: capability names that have a Worker.

    Returns:
        The node ids in one valid topological order.

    Raises:
        GraphError: empty or non-string node id, duplicate id, unknown dependency, self
            dependency, cycle, a capability with no Worker, or a Graph used as a node input.
    """
    known = frozenset(capabilities)
    seen: set[str] = set()
    for node in g.nodes:
        if not isinstance(node.id, str) or not node.id:
            raise GraphError(f"graph {g.name!r}: node ids must be non-empty strings, got {node.id!r}")
        if node.id in seen:
            raise GraphError(f"graph {g.name!r}: duplicate node id {node.id!r}")
        seen.add(node.id)
    for node in g.nodes:
        for dep in node.after:
            if dep == node.id:
                raise GraphError(f"graph {g.name!r}: node {node.id!r} depends on itself")
            if dep not in seen:
                raise GraphError(f"graph {g.name!r}: node {node.id!r} depends on unknown node {dep!r}")
        if node.capability not in known:
            raise GraphError(
                f"graph {g.name!r}: node {node.id!r} needs capability {node.capability!r}, "
                f"which no Worker provides (available: {', '.join(sorted(known)) or 'none'})"
            )
        if _contains_graph(node.input, 0):
            raise GraphError(f"graph {g.name!r}: node {node.id!r} has a Graph as input; graphs never nest")
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for node in g.nodes:
        sorter.add(node.id, *node.after)
    try:
        return tuple(sorter.static_order())
    except graphlib.CycleError as exc:
        cycle = " -> ".join(str(item) for item in exc.args[1])
        raise GraphError(f"graph {g.name!r}: dependency cycle {cycle}") from None


__all__ = ["Graph", "GraphStep", "Node", "NodeInput", "NodeOutputs", "graph", "graph_step", "validate_graph"]
