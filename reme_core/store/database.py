"""The store of record: `metadata/index.sqlite` holds every derived fact, one batch per transaction.

Search structures are rebuilt from it at open without re-tokenising: token ids and term
frequencies are stored per chunk as little-endian int32 blobs.
"""

from __future__ import annotations

import contextlib
import json
import random
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from reme_core.errors import disk_full
from reme_core.store.batch_rows import write_batch
from reme_core.store.change_rows import ChangeRows
from reme_core.store.rows import (
    BatchWrite,
    ChunkArrays,
    FileRow,
    StoreError,
    is_busy,
    retry_busy,
    select_in,
)
from reme_core.store.schema import (
    BUSY_MS,
    MASTER,
    SCHEMA,
    SCHEMA_VERSION,
    check_state_file,
    connect,
    verify_schema,
)
from reme_core.store.vector_rows import VectorRows

# Re-exported: callers import the row types and busy helpers from here.
__all__ = [
    "SCHEMA_VERSION",
    "BatchWrite",
    "ChunkArrays",
    "FileRow",
    "Store",
    "StoreError",
    "is_busy",
    "retry_busy",
]


class Store:
    """A thin, typed layer over the SQLite file; the caller serialises access with a lock."""

    def __init__(self, path: Path | str, create: bool = True) -> None:
        self.path = path
        self._cookie = -1  # the schema version `_verify_schema` last found sound
        if str(path) != ":memory:":
            check_state_file(path)
        try:
            self.conn = connect(path)
            self.vectors = VectorRows(self.conn)
            self.changes = ChangeRows(self.conn)
            if str(path) != ":memory:":
                self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            version = self._read_version()
            if version is None:
                if not create:
                    raise StoreError("no index yet")
                self.conn.executescript(SCHEMA)
                self._set_meta({"schema_version": str(SCHEMA_VERSION), "generation": "0"})
            elif version != SCHEMA_VERSION:
                raise StoreError(f"schema version {version}, this program uses {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            self.close()
            if is_busy(exc) or disk_full(exc):  # not the database's fault: never rebuilt
                raise
            raise StoreError(f"unreadable database ({exc})") from None
        except StoreError:
            self.close()
            raise

    def _read_version(self) -> int | None:
        """The stored schema version; None for an empty database. The schema is checked
        first: no statement may touch a table before it is known to be one of ours."""
        if not self.conn.execute(MASTER).fetchone():
            return None
        self._verify_schema()
        row = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        try:
            return int(row[0]) if row else -1
        except ValueError:
            return -1

    def _verify_schema(self) -> None:
        """StoreError unless the schema is exactly ours (checked again only when it changed)."""
        cookie = self.conn.execute("PRAGMA schema_version").fetchone()[0]
        if cookie != self._cookie:
            verify_schema(self.conn)
            self._cookie = cookie

    def close(self) -> None:
        """Close the connection (idempotent)."""
        conn = getattr(self, "conn", None)
        if conn is not None:
            conn.close()
            self.conn = None  # type: ignore[assignment]

    def copy_vectors_into(self, target: Store) -> int:
        """Copy the vectors of chunks `target` holds, and their model (a rebuild keeps them)."""
        model = self.meta("vectors_model")
        with target.transaction():
            copied = self.vectors.copy_into(target.vectors)
            if model:
                target.put_meta({"vectors_model": model})
        return copied

    # -- meta ---------------------------------------------------------------------------------
    def put_meta(self, values: dict[str, str]) -> None:
        """Set meta values inside the caller's transaction."""
        self._set_meta(values)

    def _set_meta(self, values: dict[str, str]) -> None:
        self.conn.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            list(values.items()),
        )

    def meta(self, key: str, default: str = "") -> str:
        """One meta value (settings fingerprint, embedding model, …)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        """Set one meta value in its own transaction."""
        with self.transaction():
            self._set_meta({key: value})

    def generation(self) -> int:
        """Bumped by every committed batch; another process compares it to notice changes."""
        return int(self.meta("generation", "0"))

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """A read transaction (one consistent view of the database), unless one is open."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        try:
            self._verify_schema()  # another process may have changed it since we looked
            yield
        finally:
            self.conn.execute("COMMIT")

    def transaction(self) -> _Transaction:
        """`BEGIN IMMEDIATE` … `COMMIT` (rollback on error): one batch, all or nothing; the
        schema is checked inside it, so no foreign trigger can run in the batch."""
        return _Transaction(self.conn, self._verify_schema)

    @contextlib.contextmanager
    def bulk_load(self) -> Iterator[None]:
        """One transaction for filling a fresh private database (a rebuild): no commit per
        batch, and the secondary indexes are built once at the end instead of row by row."""
        self.conn.execute("DROP INDEX IF EXISTS chunks_file")
        self.conn.execute("DROP INDEX IF EXISTS links_file")
        with _Transaction(self.conn):  # the schema lacks its indexes until the end
            yield
            for statement in SCHEMA.split(";"):
                if "CREATE INDEX" in statement:
                    self.conn.execute(statement)

    # -- loading ------------------------------------------------------------------------------
    def load_files(self) -> list[FileRow]:
        """Every stored file with its frontmatter."""
        rows = self.conn.execute(
            "SELECT id, path, mtime, size, hash, frontmatter, warnings, origin, tags FROM files "
            "ORDER BY id"
        ).fetchall()
        # One JSON document for all rows: a single C-level parse, not three json.loads per file.
        joined = ",".join(f"{r[5]},{r[6]},{r[8]}" for r in rows)
        fields = json.loads(f"[{joined}]") if rows else []
        if len(fields) != 3 * len(rows):
            raise StoreError("stored frontmatter, warnings or tags are not single JSON values")
        fm, warnings, tags = fields[0::3], fields[1::3], fields[2::3]
        return [
            FileRow(r[0], r[1], r[2], r[3], r[4], fm[i], warnings[i], r[7], tags[i])
            for i, r in enumerate(rows)
        ]

    def sample_paths(self, n: int, seed: int = 0) -> tuple[int, list[str]]:
        """(how many files are stored, the paths of up to ``n`` of them spread over the
        table): a bounded look at a store of any size (a few index look-ups)."""
        # Three statements: `min` and `max` of the rowid alone are two b-tree look-ups, and
        # `count(*)` alone reads the narrow path index; together they scanned every row
        # (12 ms of a cold search at 50k notes).
        (count,) = self.conn.execute("SELECT count(*) FROM files").fetchone()
        if not count:
            return 0, []
        (low,) = self.conn.execute("SELECT min(id) FROM files").fetchone()
        (high,) = self.conn.execute("SELECT max(id) FROM files").fetchone()
        pick = random.Random(seed)
        found: dict[int, str] = {}
        for _ in range(n):
            row = self.conn.execute(
                "SELECT id, path FROM files WHERE id >= ? ORDER BY id LIMIT 1",
                (pick.randint(low, high),),
            ).fetchone()
            if row is not None:
                found[row[0]] = row[1]
        return count, list(found.values())

    def state(self) -> tuple[float, ...]:
        """Row counts and largest ids, which move with any row added or removed (every commit
        of ours also bumps the generation the snapshot's stamp holds beside them).

        Each is answered from an index or the table's last page: sums over the files table
        read all 50k of its rows, 10-35 ms of every cold start.
        """
        return tuple(
            self.conn.execute(
                "SELECT (SELECT count(*) FROM files), (SELECT coalesce(max(id), 0) FROM files), "
                "(SELECT count(*) FROM chunks), (SELECT coalesce(max(rowid), 0) FROM chunks), "
                "(SELECT count(*) FROM links), (SELECT count(*) FROM vocab)"
            ).fetchone()
        )

    def load_links(self) -> dict[int, list[tuple[str, str, int, str, int, str]]]:
        """Links per file id, in source order: (target, anchor, line, alias, embed, raw)."""
        out: dict[int, list[tuple[str, str, int, str, int, str]]] = {}
        for row in self.conn.execute(
            "SELECT file_id, target, anchor, line, alias, embed, raw FROM links "
            "ORDER BY file_id, seq"
        ):
            out.setdefault(row[0], []).append(row[1:])
        return out

    def load_vocab(self) -> list[str]:
        """Terms in id order (ids are dense from 0)."""
        return [r[0] for r in self.conn.execute("SELECT term FROM vocab ORDER BY id")]

    def load_chunk_arrays(self) -> ChunkArrays:
        """Every chunk's place and term counts, concatenated with numpy (no re-tokenising)."""
        rows = self.conn.execute(
            "SELECT rowid, file_id, start_line, end_line, term_ids, tfs FROM chunks ORDER BY rowid"
        ).fetchall()
        n = len(rows)
        meta = np.array([r[:4] for r in rows], dtype=np.int64).reshape(n, 4)
        id_blobs = [r[4] for r in rows]
        lengths = np.fromiter((len(b) for b in id_blobs), dtype=np.int64, count=n) // 4
        doc_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=doc_ptr[1:])
        term_ids = np.frombuffer(b"".join(id_blobs), dtype="<i4").astype(np.int32, copy=False)
        tfs = np.frombuffer(b"".join(r[5] for r in rows), dtype="<i4").astype(np.int32, copy=False)
        if len(tfs) != len(term_ids):
            raise StoreError("chunk term blobs are inconsistent")
        return ChunkArrays(
            meta[:, 0].copy(),
            meta[:, 1].astype(np.int32),
            meta[:, 2].astype(np.int32),
            meta[:, 3].astype(np.int32),
            doc_ptr,
            term_ids,
            tfs,
        )

    def chunk_texts(self, rowids: Sequence[int]) -> dict[int, tuple[str, str, str, str]]:
        """(chunk id, prefix, body, suffix) for the given rows, fetched only for shown hits."""
        sql = "SELECT rowid, id, prefix, body, suffix FROM chunks WHERE rowid IN ({marks})"
        return {row[0]: row[1:] for row in select_in(self.conn, sql, [int(r) for r in rowids])}

    def file_chunks(self, file_id: int) -> list[tuple[int, str, int, int, str, str, str]]:
        """(rowid, id, start, end, prefix, body, suffix) of one file's chunks, in order."""
        return self.conn.execute(
            "SELECT rowid, id, start_line, end_line, prefix, body, suffix FROM chunks "
            "WHERE file_id=? ORDER BY seq",
            (file_id,),
        ).fetchall()

    def skipped(self) -> list[tuple[str, str]]:
        """Files refused at the last indexing (binary, too large, unreadable)."""
        return self.conn.execute("SELECT path, reason FROM skipped ORDER BY path").fetchall()

    # -- writing ------------------------------------------------------------------------------
    def add_terms(self, start_id: int, terms: Sequence[str]) -> None:
        """Append new vocabulary entries (inside the caller's transaction)."""
        self.conn.executemany(
            "INSERT INTO vocab(id, term) VALUES (?, ?)",
            ((start_id + i, t) for i, t in enumerate(terms)),
        )

    def delete_files(self, paths: Iterable[str]) -> None:
        """Remove files with their chunks and links (inside the caller's transaction)."""
        for path in paths:
            row = self.conn.execute("SELECT id FROM files WHERE path=?", (path,)).fetchone()
            if row:
                self.conn.execute("DELETE FROM chunks WHERE file_id=?", row)
                self.conn.execute("DELETE FROM links WHERE file_id=?", row)
                self.conn.execute("DELETE FROM files WHERE id=?", row)
            self.conn.execute("DELETE FROM skipped WHERE path=?", (path,))

    def write_files(self, batch: BatchWrite) -> tuple[list[int], np.ndarray]:
        """Upsert a batch of files (inside the caller's transaction); returns their file ids
        and their new chunks' rowids (reme_core.store.batch_rows)."""
        return write_batch(self.conn, batch)

    def touch_file(self, path: str, mtime: float) -> None:
        """Record a new mtime for a file whose content is unchanged (no re-chunking)."""
        self.conn.execute("UPDATE files SET mtime=? WHERE path=?", (mtime, path))

    def record_skipped(self, items: Iterable[tuple[str, str]]) -> None:
        """Remember refused files so `--reindex` and `stats` can list them."""
        self.conn.executemany(
            "INSERT INTO skipped(path, reason) VALUES (?, ?) "
            "ON CONFLICT(path) DO UPDATE SET reason=excluded.reason",
            list(items),
        )

    def bump_generation(self) -> int:
        """Advance the generation inside the current transaction."""
        gen = self.generation() + 1
        self._set_meta({"generation": str(gen), "updated": f"{time.time():.3f}"})
        return gen

    def rewrite_term_ids(self, old_to_new: np.ndarray, terms: Sequence[str]) -> None:
        """Renumber every chunk's term ids and replace the vocabulary (optimize)."""
        rows = self.conn.execute("SELECT rowid, term_ids FROM chunks").fetchall()
        self.conn.executemany(
            "UPDATE chunks SET term_ids=? WHERE rowid=?",
            (
                (old_to_new[np.frombuffer(blob, dtype="<i4")].astype("<i4").tobytes(), rowid)
                for rowid, blob in rows
            ),
        )
        self.conn.execute("DELETE FROM vocab")
        self.add_terms(0, terms)

    def copy_into(self, target: Store) -> None:
        """Replace `target`'s content with this database in one atomic write (SQLite backup).

        Readers of `target` in other processes keep their snapshot until it commits, and a crash
        mid-copy leaves `target` as it was: unlike swapping files, nothing can pair a new
        database with an old write-ahead log.

        When no other connection has `target` open, it leaves its write-ahead log for the
        copy, so each page is written once (into the database) rather than twice (the log,
        then its checkpoint): 0.63 s instead of 1.25 s for a 414 MB index. Its rollback journal
        then holds only what the copy overwrites, and a crash still leaves `target` as it was.
        """
        alone = target._leave_wal()
        try:
            self.conn.backup(target.conn)
        finally:
            if alone:
                target.conn.execute("PRAGMA journal_mode=WAL")

    def _leave_wal(self) -> bool:
        """Switch to a rollback journal if no other connection uses this database (SQLite
        refuses the switch while one has it open in WAL mode); whether it switched."""
        if str(self.path) == ":memory:":
            return False
        # Asked once, not waited for: another connection that has it open holds it for good.
        self.conn.execute("PRAGMA busy_timeout=0")
        try:
            mode = self.conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]
        except sqlite3.OperationalError:
            return False
        finally:
            self.conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        return str(mode).lower() == "delete"

    def vacuum(self) -> None:
        """Give freed pages back to the file system."""
        self.conn.execute("VACUUM")
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def size_bytes(self) -> int:
        """Database size on disk, WAL included."""
        if str(self.path) == ":memory:":
            return 0
        base = Path(self.path)
        return sum(p.stat().st_size for p in (base, Path(f"{base}-wal")) if p.exists())


class _Transaction:
    def __init__(self, conn: sqlite3.Connection, check: Callable[[], None] | None = None) -> None:
        self.conn = conn
        self.check = check

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        if self.check is not None:
            try:
                self.check()
            except BaseException:
                self._roll_back()
                raise
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")
        else:
            self._roll_back()

    def _roll_back(self) -> None:
        """ROLLBACK, where SQLite has not already rolled back (it does on a full disk): the
        error that ended the transaction is the one to report."""
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")
