"""The SQLite Memory's ordered migrations (:data:`MIGRATIONS`: the ``memory`` table, then data).

``m002_one_ledger`` (issue 11, one pattern framework): deep research task directories written
before it used their own counter names and report key. Renamed, in every ``research:*``
namespace, so such a task resumes and replays on the one ledger:

========================  ======================
before                    after
========================  ======================
``budget/model_calls``    ``budget/model``
``budget/searches``       ``budget/search``
``budget/reads``          ``budget/read``
``report``                ``stage/report``
========================  ======================

Ledger rows keep their keys (``model:plan``, ``search:r1:q1``, ``read:r1:<hash>``); rows without
a recorded ``name`` are replayed by key and kind (see ``patterns.common.ledger``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

RESEARCH_RENAMES: tuple[tuple[str, str], ...] = (
    ("budget/model_calls", "budget/model"),
    ("budget/searches", "budget/search"),
    ("budget/reads", "budget/read"),
    ("report", "stage/report"),
)
"""``(old key, new key)`` pairs renamed in ``research:*`` namespaces by ``m002_one_ledger``."""


def m002_one_ledger(db: sqlite3.Connection) -> None:
    """Rename deep research counters and the report key (see the module docstring).

    A key that already exists under its new name is left alone (the new row wins).

    Args:
        db: the open connection, inside the migration's transaction.
    """
    for old, new in RESEARCH_RENAMES:
        db.execute(
            "UPDATE OR IGNORE memory SET key = ? WHERE key = ? AND namespace LIKE 'research:%'",
            (new, old),
        )
        db.execute("DELETE FROM memory WHERE key = ? AND namespace LIKE 'research:%'", (old,))



def _m001_memory_table(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE IF NOT EXISTS memory (
            namespace  TEXT NOT NULL,
            key        TEXT NOT NULL,
            value      TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (namespace, key)
        ) WITHOUT ROWID
        """
    )


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_m001_memory_table, m002_one_ledger)
"""Ordered schema migrations; migration *n* (1-based) is recorded as version *n* in
``schema_version``. Append only; never reorder or edit an applied migration."""


__all__ = ["MIGRATIONS", "RESEARCH_RENAMES", "m002_one_ledger"]
