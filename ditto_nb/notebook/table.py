"""Building the frames' DataFrames: :func:`frame` (exactly the documented columns) and
:func:`ledger_outputs` (outputs of completed dispatches, the rows of the dispatch-level frames)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from ditto_nb.notebook.memory_view import TaskView


def frame(rows: Iterable[Mapping[str, Any]], columns: Sequence[str], ints: Sequence[str] = ()) -> pd.DataFrame:
    """Build a frame with exactly ``columns`` (missing keys → None; no rows → empty frame).

    Args:
        rows: row mappings.
        columns: the column names, in order.
        ints: columns holding integers or None, typed as pandas' nullable ``Int64``.

    Returns:
        The DataFrame.
    """
    data = [{c: row.get(c) for c in columns} for row in rows]
    df = pd.DataFrame(data, columns=list(columns), dtype=object)
    for column in ints:
        df[column] = pd.array([None if v is None else int(v) for v in df[column]], dtype="Int64")
    return df.infer_objects()


def ledger_outputs(view: TaskView, kind: str) -> list[tuple[str, dict[str, Any]]]:
    """``(ledger key, output)`` of completed dispatches of ``kind`` (``model``, ``search``, ``read``)."""
    return [(k, dict(r["output"])) for k, r in view.ledger(kind)
            if r.get("status") == "done" and isinstance(r.get("output"), dict)]


__all__ = ["frame", "ledger_outputs"]
