"""Result rows of the wiki benchmark: scoring one row, and the JSONL file they accumulate in.

A row is one (target, system, question): ``status``, ``answer`` and the scores added by
:func:`score` (``em``, ``f1``, ``contained``; 0 / False unless the status is ``answered``).
:func:`read_rows` and :func:`done_ids` let a run resume: questions already in the output file for a
(target, system) are not run again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hotpot_eval import contains, exact_match, token_f1
from wiki_targets import Question


def score(row: dict[str, Any], q: Question) -> dict[str, Any]:
    """``row`` plus the question's fields and the scores of its answer (only ``answered`` counts)."""
    answer = str(row.get("answer") or "") if row.get("status") == "answered" else ""
    return row | {
        "id": q.id, "kind": q.kind, "half": q.half, "gold": q.answer,
        "em": exact_match(answer, q.answer) if answer else False,
        "f1": round(token_f1(answer, q.answer), 4) if answer else 0.0,
        "contained": contains(answer, q.answer),
    }


def append_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append rows to a JSONL file (one object a line), flushed at once."""
    with path.open("a", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSONL file ([] when it does not exist; a torn last line is skipped)."""
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def done_ids(rows: list[dict[str, Any]], target: str, system: str) -> set[str]:
    """Ids of the questions that already have a row for (target, system)."""
    return {str(r["id"]) for r in rows if r.get("target") == target and r.get("system") == system}


__all__ = ["append_rows", "done_ids", "read_rows", "score"]
