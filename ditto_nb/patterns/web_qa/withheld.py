"""Claims that verification withheld, kept in Memory for the analyst (never published).

When claims still fail verification after the one repair, they are not published: the run
either publishes the valid claims only (its answer status as decided by code), or raises
:class:`~ditto_nb.errors.UngroundedAnswer`. Either way the rejected claims are written to the
task's Memory under ``withheld``::

    {"outcome": <published answer status> | "UngroundedAnswer",
     "claims": [{"claim", "chunk_id", "quote", "quote_found", "grounded", "reasons", "reason"}]}

(rows from :attr:`ditto_nb.patterns.web_qa.evaluate.Evaluation.rejected`), so ``ditto-nb show``,
``claims_frame`` and the notebooks can list each one with why it failed. ``report.json`` and
``report.md`` are unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ditto_nb.patterns.common.binding import TaskScope
from ditto_nb.patterns.common.records import WithheldClaim
from ditto_nb.runtime.capabilities import MEMORY_WRITE
from ditto_nb.runtime.graph import Graph, graph

WITHHELD_KEY: Final = "withheld"
"""Memory key of the withheld claims."""


def add_withheld(g: Graph, task: TaskScope, claims: Sequence[WithheldClaim], outcome: str) -> str:
    """Add the node writing the withheld claims to ``g``.

    Args:
        g: a graph of the report stage.
        task: the task's namespace/scope.
        claims: the rejected citations (``Evaluation.rejected``).
        outcome: the published answer's status (published without them) or ``UngroundedAnswer``.

    Returns:
        The node id.
    """
    value = {"outcome": outcome, "claims": [dict(c) for c in claims]}
    g.node("withheld", MEMORY_WRITE, {"namespace": task.namespace, "key": WITHHELD_KEY, "value": value})
    return "withheld"


def withheld_graph(task: TaskScope, claims: Sequence[WithheldClaim], outcome: str) -> Graph:
    """A one-node graph writing the withheld claims (before ``UngroundedAnswer`` is raised)."""
    g = graph("repair:withheld")
    add_withheld(g, task, claims, outcome)
    return g


__all__ = ["WITHHELD_KEY", "add_withheld", "withheld_graph"]
