"""Rebuilding the index from the files (`--reindex`): built aside, then copied in at once.

Kept apart from the freshness methods (reme_core.indexing.indexer): `Rebuilder` is a mixin that
`Indexer`, hence `Workspace`, inherits. The few names both sides share live here, so the
imports run one way (indexer -> rebuild).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from reme_core.config import Config
from reme_core.files.scanner import Scope, scan
from reme_core.files.text_decode import UNDECODABLE_NAME
from reme_core.gc_pause import bulk_objects
from reme_core.index import snapshot
from reme_core.index.index_columns import ColumnsBuilder, IndexColumns
from reme_core.index.memory_index import MemoryIndex
from reme_core.indexing.state_lock import StateLock
from reme_core.parse.parse_pool import POOL_THRESHOLD, parse_many, pool_context, uses_pool
from reme_core.parse.parsing import VANISHED, ParsedBatch, ParseSettings, TermSpaces
from reme_core.parse.pool_worker import pid_alive
from reme_core.store.database import BatchWrite, Store, is_busy, retry_busy

DB_NAME = "index.sqlite"
# Meta key naming the rebuild that made the database: a live process that sees it change
# re-checks the files, since the rebuild's copy replaced whatever it committed meanwhile.
REBUILD_KEY = "rebuild"
ProgressFn = Callable[[int, int], None]


# A file read within RACY_SECONDS of its mtime could still change within the same timestamp
# tick without changing its size (git's "racily clean" problem). Such files are stored with
# RACY_MTIME, so the next start-up diff confirms them by content hash instead of trusting them.
RACY_SECONDS = 2.0
RACY_MTIME = -1.0


def _mark_racy(batch: ParsedBatch, now: float) -> None:
    for pf in batch.files:
        if now - pf.node.st_mtime < RACY_SECONDS:
            pf.node.st_mtime = RACY_MTIME


@dataclass(slots=True)
class ReindexSummary:
    """The `--reindex` summary (SPEC §11)."""

    files: int
    chunks: int
    links: int
    dangling_links: int
    skipped: list[tuple[str, str]]
    seconds: float


class Rebuilder:
    """The rebuild methods of `Workspace` (see the module docstring)."""

    root: Path
    config: Config
    settings: ParseSettings
    store: Store
    index: MemoryIndex
    lock: threading.RLock
    write_lock: threading.RLock
    rebuild_scope: Scope
    last_reindex: ReindexSummary | None
    warnings: list[str]
    state_lock: StateLock
    _rebuild_id: str | None
    _rebuilt_elsewhere: bool
    _generation: int
    _persisted_terms: int
    _db_ino: int
    _snapshot_path: Callable[[], Path | None]
    _snapshot_stale: bool
    # Also used: _writes (from Indexer); db_path, _shared, _new_index, _fingerprint, _ino (from
    # Workspace).
    _writes: Callable[..., list[BatchWrite]]

    def _warn(self, message: str) -> None:
        """Record a warning once (the CLI prints them, the browser shows them)."""
        if message not in self.warnings:
            self.warnings.append(message)

    @staticmethod
    def _remove_db(db: Path) -> None:
        if db.parent.is_symlink():  # never delete through one: it may be another program's
            raise PermissionError(errno.EPERM, f"{db.parent.name} is a symbolic link")
        # The log goes first: a crash half-way must never leave an old log beside a new database.
        for suffix in ("-wal", "-shm", ""):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{db}{suffix}").unlink()

    def reindex(self, progress: ProgressFn | None = None) -> ReindexSummary:
        """Drop derived state and rebuild from the files (built aside, then copied in at once).

        One rebuild at a time across processes (the state folder's lock).
        """
        with self.write_lock, self.state_lock.held():
            self.last_reindex = self._reindex(progress)
            return self.last_reindex

    def _reindex(self, progress: ProgressFn | None) -> ReindexSummary:
        started = time.perf_counter()

        # A pool's server (it preloads the parsing stack and jieba, ~1 s) starts as soon as the
        # walk has found enough files for a pool, and loads while the walk and setup go on.
        def start_pool() -> None:
            pool_context(self.settings)

        when_many = None
        if uses_pool(POOL_THRESHOLD, self.config.workers):
            when_many = (POOL_THRESHOLD, start_pool)
        found = scan(self.root, self.rebuild_scope, when_many=when_many)
        paths = sorted(found)
        if progress:
            progress(0, len(paths))  # what was found, before the first batch is parsed
        shared = self._shared()
        tmp: Path | None = None
        if shared:
            assert isinstance(self.db_path, Path)
            tmp = self.db_path.with_name(f"{DB_NAME}.rebuild-{os.getpid()}")
            self._remove_stale_rebuilds(self.db_path)
            self._remove_db(tmp)
        # Searches keep answering from the current index while the new one is built aside.
        from reme_core.workspace import Workspace

        builder = Workspace(self.root, self.config)
        builder.store = Store(tmp if tmp is not None else ":memory:")
        # Private and deleted if we crash: its commits need not reach the disk, and a rollback
        # journal in memory spares writing every page twice (log, then checkpoint).
        builder.store.conn.execute("PRAGMA journal_mode=MEMORY")
        builder.store.conn.execute("PRAGMA synchronous=OFF")
        builder.index = self._new_index()
        builder._generation = 0
        skipped, columns = builder._build(paths, progress)
        if found.undecodable:  # left out by the walk: listed with the files refused
            refused = [(name, UNDECODABLE_NAME) for name in found.undecodable]
            builder.store.record_skipped(refused)
            skipped = sorted(refused + skipped)
        for warning in builder.warnings:
            self._warn(warning)
        with self.lock:
            with contextlib.suppress(sqlite3.DatabaseError):  # a rebuild reuses embeddings
                self.store.copy_vectors_into(builder.store)
            if tmp is None:
                builder._load_columns(columns)
                self.store.close()
                self.store = builder.store
            else:
                self._install(builder, tmp, columns)
            self.index = builder.index
            self._generation = self.store.generation()
            self._rebuild_id = self.store.meta(REBUILD_KEY)
            self._persisted_terms = len(self.index.vocab)
            self._db_ino = self._ino()
            self._snapshot_stale = False
        graph = self.index.graph
        return ReindexSummary(
            files=len(self.index.nodes),
            chunks=self.index.bm25.n_docs,
            links=graph.n_edges,
            dangling_links=graph.dangling_count(),
            skipped=skipped,
            seconds=time.perf_counter() - started,
        )

    def _build(
        self, paths: Sequence[str], progress: ProgressFn | None
    ) -> tuple[list[tuple[str, str]], ColumnsBuilder]:
        """Fill this private, empty builder: each parsed batch is written as it arrives.

        The parent's store work then overlaps the pool's parsing, and parsed text is dropped
        batch by batch; what memory needs is kept as flat columns, loaded once at the end by
        `_load_columns` (one sort of the postings, links resolved once). Returns the refused
        files and those columns.
        """
        done, total = 0, len(paths)

        def tick(n: int) -> None:
            nonlocal done
            done += n
            if progress:
                progress(done, total)

        skipped: list[tuple[str, str]] = []
        db = self.db_path  # the pending postings wait on disk beside it, when it is on disk
        columns = ColumnsBuilder(db.parent if isinstance(db, Path) else None)
        spaces = TermSpaces(self.index.vocab)
        with bulk_objects(), self.store.bulk_load():
            for batch in parse_many(
                self.root, sorted(set(paths)), self.settings, self.config.workers, tick, self._warn
            ):
                _mark_racy(batch, time.time())
                refused = [(p, reason) for p, reason in batch.skipped if reason != VANISHED]
                skipped += refused
                if batch.files or refused:
                    self._write_built(batch, refused, columns, spaces)
            self.store.put_meta({"fingerprint": self._fingerprint()})
            self._generation = self.store.bump_generation()
        return skipped, columns

    def _load_columns(self, columns: ColumnsBuilder) -> IndexColumns:
        """Place the built postings and load them into this builder's index."""
        with bulk_objects():
            cols = columns.finish(self.index.vocab.terms())
            self.index.load(cols)
        return cols

    def _write_built(
        self,
        batch: ParsedBatch,
        refused: list[tuple[str, str]],
        columns: ColumnsBuilder,
        spaces: TermSpaces,
    ) -> None:
        """Write one batch to the private builder store (inside its bulk load), keep columns."""
        vocab = self.index.vocab
        (write,) = self._writes([batch], "reindex", spaces)
        new_terms = [vocab.term(i) for i in range(self._persisted_terms, len(vocab))]
        self.store.add_terms(self._persisted_terms, new_terms)
        file_ids, rowids = self.store.write_files(write)
        self.store.record_skipped(refused)
        self._persisted_terms = len(vocab)
        columns.add(write, file_ids, rowids)

    def _install(self, builder: Rebuilder, tmp: Path, columns: ColumnsBuilder) -> None:
        """Copy a rebuilt database over the live one in a single transaction, then drop it.

        The copy (and the checkpoint of its log) waits on SQLite and the disk, not on the GIL,
        so it runs on a thread while the postings are placed and the snapshot is written. The
        snapshot is stamped with the rebuilt state: it stands for nothing until the copy commits.
        """
        db, built = self.db_path, builder.store
        assert isinstance(db, Path)
        try:
            live_generation = retry_busy(self.store.generation)
        except sqlite3.DatabaseError:
            live_generation = 0
        # Jump well past any generation another process may have seen, so none mistakes the
        # rebuilt database for one it already loaded.
        generation = max(live_generation + 1, time.time_ns() // 1_000_000)
        built.set_meta("generation", str(generation))
        built.set_meta(REBUILD_KEY, f"{os.getpid()}-{generation}")
        built.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        snap = self._snapshot_path()
        current = snapshot.stamp(generation, built.state()) if snap is not None else None
        failed: list[BaseException] = []

        def copy_in() -> None:
            try:
                self._copy_in(built, db)
            except BaseException as exc:  # re-raised below, on the caller's thread
                failed.append(exc)

        copier = threading.Thread(target=copy_in, name="reme-install", daemon=True)
        copier.start()
        try:
            cols = builder._load_columns(columns)
            if snap is not None and current is not None:
                snapshot.save(snap, current, cols)
        finally:
            copier.join()
        if failed:
            raise failed[0]
        built.close()
        self._remove_db(tmp)

    def _copy_in(self, built: Store, db: Path) -> None:
        """The backup copy into the live database, then the checkpoint of its log."""
        try:
            retry_busy(lambda: built.copy_into(self.store))
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise
            self._replace_damaged(built, db)
        except sqlite3.DatabaseError:
            self._replace_damaged(built, db)
        # The copy went through the write-ahead log: move it into the database now, not in
        # whichever statement comes next.
        with contextlib.suppress(sqlite3.Error):
            self.store.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def _replace_damaged(self, built: Store, db: Path) -> None:
        """The live database cannot take the copy (damaged): start it afresh, then copy."""
        self.store.close()
        self._remove_db(db)
        self.store = retry_busy(lambda: Store(db))
        retry_busy(lambda: built.copy_into(self.store))

    @staticmethod
    def _remove_stale_rebuilds(db: Path) -> None:
        """Delete rebuild files left by processes that died mid-rebuild."""
        for leftover in db.parent.glob(f"{DB_NAME}.rebuild-*"):
            # index.sqlite.rebuild-<pid>, and its -wal, -shm or -journal beside it
            pid = leftover.name[len(DB_NAME) + len(".rebuild-") :].split("-", 1)[0]
            if not pid.isdigit() or pid_alive(int(pid)) or not leftover.is_file():
                continue
            with contextlib.suppress(OSError):
                leftover.unlink()
