"""ditto_nb.runtime: Workers routed by capability, flat stage Graphs, and the Loop that runs a plan.

Also the configuration (``ditto.yaml`` → :class:`RuntimeConfig`) and the sync facade
:func:`run_sync`. See ``docs/ARCHITECTURE.md`` §Runtime.
"""

from ditto_nb.runtime.capabilities import (
    ALL_CAPABILITIES,
    CONTEXT_LOAD,
    INFER_REASONING_SAMPLE,
    INTERACTION_ACT_TOOL,
    MEMORY_GET,
    MEMORY_WRITE,
)
from ditto_nb.runtime.config import (
    ContextConfig,
    LaunchConfig,
    ModelSelection,
    ProviderConfig,
    RuntimeConfig,
    SearchSettings,
    StructuredOutputMode,
    load_runtime_config,
    load_runtime_config_file,
    parse_runtime_config,
)
from ditto_nb.runtime.defaults import DEFAULT_CONFIG_YAML
from ditto_nb.runtime.graph import Graph, GraphStep, Node, graph, graph_step, validate_graph
from ditto_nb.runtime.loop import MAX_GRAPHS_PER_LOOP, GraphRecord, OnGraph, Outcome, Plan, Worker
from ditto_nb.runtime.runtime import Runtime, create_ditto
from ditto_nb.runtime.signal import Signal
from ditto_nb.runtime.sync import run_sync

__all__ = [
    "ALL_CAPABILITIES",
    "CONTEXT_LOAD",
    "DEFAULT_CONFIG_YAML",
    "INFER_REASONING_SAMPLE",
    "INTERACTION_ACT_TOOL",
    "MAX_GRAPHS_PER_LOOP",
    "MEMORY_GET",
    "MEMORY_WRITE",
    "ContextConfig",
    "Graph",
    "GraphRecord",
    "GraphStep",
    "LaunchConfig",
    "ModelSelection",
    "Node",
    "OnGraph",
    "Outcome",
    "Plan",
    "ProviderConfig",
    "Runtime",
    "RuntimeConfig",
    "SearchSettings",
    "Signal",
    "StructuredOutputMode",
    "Worker",
    "create_ditto",
    "graph",
    "graph_step",
    "load_runtime_config",
    "load_runtime_config_file",
    "parse_runtime_config",
    "run_sync",
    "validate_graph",
]
