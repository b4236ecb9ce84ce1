"""Compare two reports while ignoring when things happened.

Two runs of the same task (one interrupted and resumed, one uninterrupted) fetch the same pages and
make the same deterministic model calls, but at different times: their reports differ only in the
timestamp fields ``generated_at`` and ``fetched_at``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

TIME_FIELDS: frozenset[str] = frozenset({"generated_at", "fetched_at"})
"""Keys dropped by :func:`without_times`."""


def without_times(report: BaseModel | dict[str, Any] | list[Any] | Any) -> Any:
    """Return ``report`` as plain JSON data with every ``generated_at`` / ``fetched_at`` key removed.

    Args:
        report: a pydantic report (``WebQaReport``, ``ResearchReport``) or its JSON-like data.

    Returns:
        The same data (dicts, lists, scalars) without the timestamp keys, at any depth.
    """
    if isinstance(report, BaseModel):
        report = report.model_dump(mode="json")
    if isinstance(report, dict):
        return {key: without_times(value) for key, value in report.items() if key not in TIME_FIELDS}
    if isinstance(report, list):
        return [without_times(value) for value in report]
    return report


__all__ = ["TIME_FIELDS", "without_times"]
