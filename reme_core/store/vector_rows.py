"""The embedding-vector rows of the store: `Store.vectors`, one SQL concept per module.

Vectors are keyed by chunk id (see reme_core.vectors.vector_index); every method runs on the
owning `Store`'s connection, inside its caller's transaction where it writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from reme_core.store.rows import select_in


class VectorRows:
    """The vector table of one store's connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def chunk_ids(self, rowids: Sequence[int] | None = None) -> dict[int, str]:
        """rowid -> chunk id for the given rows, or for every chunk when `rowids` is None."""
        if rowids is None:
            return dict(self.conn.execute("SELECT rowid, id FROM chunks").fetchall())
        sql = "SELECT rowid, id FROM chunks WHERE rowid IN ({marks})"
        return dict(select_in(self.conn, sql, [int(r) for r in rowids]))

    def vectors_for(self, hashes: Sequence[str], model: str) -> dict[str, bytes]:
        """Stored vector blobs of `model` for the given chunk hashes (missing ones are absent)."""
        sql = "SELECT hash, vec FROM vectors WHERE model=? AND hash IN ({marks})"
        return dict(select_in(self.conn, sql, list(hashes), before=[model]))

    def put_vectors(self, model: str, items: Iterable[tuple[str, bytes]]) -> None:
        """Upsert vectors of `model` (inside the caller's transaction)."""
        self.conn.executemany(
            "INSERT INTO vectors(hash, model, vec) VALUES (?, ?, ?) "
            "ON CONFLICT(hash, model) DO UPDATE SET vec=excluded.vec",
            ((h, model, v) for h, v in items),
        )

    def drop_vectors_except(self, model: str, nbytes: int) -> int:
        """Delete vectors of any other model or length (inside the caller's transaction)."""
        cur = self.conn.execute(
            "DELETE FROM vectors WHERE model != ? OR length(vec) != ?", (model, nbytes)
        )
        return cur.rowcount

    def copy_into(self, target: VectorRows) -> int:
        """Copy the vectors of chunks `target`'s store holds (inside its transaction)."""
        wanted = {row[0] for row in target.conn.execute("SELECT id FROM chunks")}
        rows = [
            r for r in self.conn.execute("SELECT hash, model, vec FROM vectors") if r[0] in wanted
        ]
        target.conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
        return len(rows)
