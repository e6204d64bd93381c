"""The change log of the store: `Store.changes`, what `watch` prints for every process.

Each commit that adds, changes or deletes files records them here under its generation, in
the same transaction, with the committing process's id. A reader that remembers the last
generation it saw reads every later change exactly once, in commit order, whichever process
committed it. The log keeps the last `KEPT_GENERATIONS` generations; a rebuild's copy starts
it empty (a reader tells by the rebuild's id in the meta table).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable

KEPT_GENERATIONS = 1000

# (generation, pid, kind, path, chunks)
ChangeRow = tuple[int, int, str, str, int]


class ChangeRows:
    """The changes table of one store's connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def record(self, generation: int, changes: Iterable[tuple[str, str, int]]) -> None:
        """Log (kind, path, chunks) of one commit, and forget generations past those kept
        (inside the caller's transaction)."""
        pid = os.getpid()
        self.conn.executemany(
            "INSERT INTO changes(generation, seq, pid, kind, path, chunks) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            ((generation, seq, pid, *change) for seq, change in enumerate(changes)),
        )
        self.conn.execute(
            "DELETE FROM changes WHERE generation <= ?", (generation - KEPT_GENERATIONS,)
        )

    def since(self, generation: int) -> list[ChangeRow]:
        """The changes committed after ``generation``, in commit order."""
        return self.conn.execute(
            "SELECT generation, pid, kind, path, chunks FROM changes WHERE generation > ? "
            "ORDER BY generation, seq",
            (generation,),
        ).fetchall()
