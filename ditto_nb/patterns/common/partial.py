"""The partial-failure rule of both patterns' searches and page reads (SPEC §3, §4).

A stage fails (typed error) when every dispatch failed, or when any failed and the request does
not ``allow_partial``; otherwise the failures are recorded in the report and the stage goes on.
(Failed *runs* are recorded in Memory by :mod:`ditto_nb.patterns.common.failures`.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ditto_nb.errors import TaskError
from ditto_nb.patterns.common.records import PageRecord, SearchResult

R = TypeVar("R", SearchResult, PageRecord)


def check_partial(
    results: Sequence[R],
    allow_partial: bool,
    error: type[TaskError],
    what: str,
    describe: Callable[[R], str],
) -> list[R]:
    """Apply the partial-failure rule to a stage's search or read results.

    Args:
        results: tool results with ``ok``.
        allow_partial: the request's ``allow_partial``.
        error: the error raised (``SearchFailed``, ``ReadFailed``).
        what: the plural noun in the message (``searches``, ``page reads``).
        describe: one failed result as text for the message.

    Returns:
        The failed results (empty when all succeeded).

    Raises:
        error: every result failed, or one failed and ``allow_partial`` is false.
    """
    failed = [r for r in results if not r.get("ok", True) or r.get("error")]
    if results and (len(failed) == len(results) or (failed and not allow_partial)):
        detail = "; ".join(describe(r) for r in failed)
        raise error(f"{len(failed)} of {len(results)} {what} failed: {detail}")
    return failed


__all__ = ["check_partial"]
