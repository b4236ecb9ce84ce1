"""Typed outputs of the Web QA stages (``stage/<name>`` rows; the report is :class:`WebQaReport`).

Nested per-source records stay JSON objects where their shape belongs to a tool (search hits,
page records); everything the next stage reads by name is a typed field.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ditto_nb.evidence import Chunk
from ditto_nb.patterns.common.stage import StageOutput


class PlanStage(StageOutput):
    """``stage/plan``: the restated question and the query plan."""

    normalized_question: str
    queries: list[str]
    needs_clarification: bool = False
    clarification: str = ""


class SearchedStage(StageOutput):
    """``stage/searched``: one ``web_search`` tool result per query (``ok``, ``query``, ``hits``)."""

    results: list[dict[str, Any]]


class ReadStage(StageOutput):
    """``stage/read``: page records (``page_read`` results), failures and omitted URLs."""

    pages: list[dict[str, Any]]
    failures: list[dict[str, Any]] = Field(default_factory=list)
    omitted: list[dict[str, Any]] = Field(default_factory=list)


class SelectedStage(StageOutput):
    """``stage/selected``: the candidate chunks shown, their prompt labels, the selection."""

    candidates: list[Chunk]
    labels: dict[str, str] = Field(default_factory=dict)
    selected: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    conflicts: list[dict[str, Any]] = Field(default_factory=list)
    fallback: bool = False
    omitted: list[dict[str, Any]] = Field(default_factory=list)


__all__ = ["PlanStage", "ReadStage", "SearchedStage", "SelectedStage"]
