"""Rebuilding the index from the files (`--reindex`): built aside, then copied in at once.

`Rebuild` builds a new store and in-memory index (`_Built`) while the `LiveIndex` keeps
answering searches, then installs them into it in one step.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reme_core.files.paths import TOO_DEEP
from reme_core.files.scanner import scan
from reme_core.files.scope import Scope
from reme_core.files.text_decode import UNDECODABLE_NAME
from reme_core.gc_pause import bulk_objects
from reme_core.index import snapshot
from reme_core.index.index_columns import ColumnsBuilder, IndexColumns
from reme_core.index.memory_index import MemoryIndex
from reme_core.indexing.batch_writes import batch_writes, mark_racy
from reme_core.indexing.db_files import remove_db, remove_stale_rebuilds
from reme_core.indexing.live_index import DB_NAME, REBUILD_KEY, LiveIndex
from reme_core.parse.parse_pool import POOL_THRESHOLD, parse_many, pool_context, uses_pool
from reme_core.parse.parsing import (
    VANISHED,
    ParsedBatch,
    ParseSettings,
    TermSpaces,
)
from reme_core.progress import ProgressFn, counting
from reme_core.store.database import Store, is_busy, retry_busy
from reme_core.workspace_warning import Warn


@dataclass(slots=True)
class ReindexSummary:
    """The `--reindex` summary (SPEC §11)."""

    files: int
    chunks: int
    links: int
    dangling_links: int
    skipped: list[tuple[str, str]]
    seconds: float


class _Built:
    """A private store and in-memory index being filled by one rebuild."""

    def __init__(self, store: Store, memory: MemoryIndex, fingerprint: str) -> None:
        self.store = store
        self.memory = memory
        self.fingerprint = fingerprint
        self.persisted_terms = 0
        # Private and deleted if we crash: its commits need not reach the disk, and a rollback
        # journal in memory spares writing every page twice (log, then checkpoint).
        store.conn.execute("PRAGMA journal_mode=MEMORY")
        store.conn.execute("PRAGMA synchronous=OFF")

    def write(
        self,
        batch: ParsedBatch,
        refused: list[tuple[str, str]],
        columns: ColumnsBuilder,
        spaces: TermSpaces,
    ) -> None:
        """Write one batch (inside the bulk load) and keep its columns for the final load."""
        vocab = self.memory.vocab
        (write,) = batch_writes([batch], spaces, lambda _path: "reindex")
        new_terms = [vocab.term(i) for i in range(self.persisted_terms, len(vocab))]
        self.store.add_terms(self.persisted_terms, new_terms)
        file_ids, rowids = self.store.write_files(write)
        self.store.record_skipped(refused)
        self.persisted_terms = len(vocab)
        columns.add(write, file_ids, rowids, batch.names, batch.props)

    def load_columns(self, columns: ColumnsBuilder) -> IndexColumns:
        """Place the built postings and load them into the built index."""
        with bulk_objects():
            cols = columns.finish(self.memory.vocab.terms())
            self.memory.load(cols)
        return cols


class Rebuild:
    """One `--reindex` of a workspace into its `LiveIndex`."""

    def __init__(
        self,
        live: LiveIndex,
        scope: Scope,
        settings: ParseSettings,
        workers: int,
        warn: Warn,
    ) -> None:
        self.live = live
        self.root = live.place.root
        self.scope = scope
        self.settings = settings
        self.workers = workers
        self.warn = warn

    def run(self, progress: ProgressFn | None) -> ReindexSummary:
        """Rebuild from the files (the caller holds the write lock and the state lock)."""
        started = time.perf_counter()
        live = self.live

        # A pool's server (it preloads the parsing stack and jieba, ~1 s) starts as soon as the
        # walk has found enough files for a pool, and loads while the walk and setup go on.
        def start_pool() -> None:
            pool_context(self.settings)

        when_many = None
        if uses_pool(POOL_THRESHOLD, self.workers):
            when_many = (POOL_THRESHOLD, start_pool)
        found = scan(self.root, self.scope, when_many=when_many)
        paths = sorted(found)
        if progress:
            progress(0, len(paths))  # what was found, before the first batch is parsed
        tmp: Path | None = None
        db = live.place.db_path
        if live.shared() and isinstance(db, Path):
            tmp = db.with_name(f"{DB_NAME}.rebuild-{os.getpid()}")
            remove_stale_rebuilds(db)
            remove_db(tmp)
        # Searches keep answering from the current index while the new one is built aside.
        built = _Built(
            Store(tmp if tmp is not None else ":memory:"),
            live.place.new_memory(),
            live.place.fingerprint,
        )
        skipped, columns = self._build(built, paths, progress)
        if found.undecodable or found.too_deep:  # left out by the walk: listed as refused
            refused = [(name, UNDECODABLE_NAME) for name in found.undecodable]
            refused += [(name, TOO_DEEP) for name in found.too_deep]
            built.store.record_skipped(refused)
            skipped = sorted(refused + skipped)
        with live.lock:
            with contextlib.suppress(sqlite3.DatabaseError):  # a rebuild reuses embeddings
                live.store.copy_vectors_into(built.store)
            if tmp is None:
                built.load_columns(columns)
                live.store.close()
                live.install(built.store, built.memory)
            else:
                self._install(built, tmp, columns)
                live.install(live.store, built.memory)
        graph = live.memory.graph
        return ReindexSummary(
            files=len(live.memory.nodes),
            chunks=live.memory.bm25.n_docs,
            links=graph.n_edges,
            dangling_links=graph.dangling_count(),
            skipped=skipped,
            seconds=time.perf_counter() - started,
        )

    def _build(
        self, built: _Built, paths: Sequence[str], progress: ProgressFn | None
    ) -> tuple[list[tuple[str, str]], ColumnsBuilder]:
        """Fill the private, empty builder: each parsed batch is written as it arrives.

        The parent's store work then overlaps the pool's parsing, and parsed text is dropped
        batch by batch; what memory needs is kept as flat columns, loaded once at the end by
        `_Built.load_columns` (one sort of the postings, links resolved once). Returns the
        refused files and those columns.
        """
        tick = counting(progress, len(paths))
        skipped: list[tuple[str, str]] = []
        db = self.live.place.db_path  # the pending postings wait on disk beside it, if on disk
        columns = ColumnsBuilder(db.parent if isinstance(db, Path) else None)
        spaces = TermSpaces(built.memory.vocab)
        with bulk_objects(), built.store.bulk_load():
            # The workers tokenise the names too: the name field is then no serial step at
            # the end (it was 1.5 s at 50k, with one core idle).
            for batch in parse_many(
                self.root,
                sorted(set(paths)),
                self.settings,
                self.workers,
                tick,
                self.warn,
                names=True,
            ):
                mark_racy(batch, time.time())
                refused = [(p, reason) for p, reason in batch.skipped if reason != VANISHED]
                skipped += refused
                if len(batch.parsed) or refused:
                    built.write(batch, refused, columns, spaces)
            built.store.put_meta({"fingerprint": built.fingerprint})
            built.store.bump_generation()
        return skipped, columns

    def _install(self, built: _Built, tmp: Path, columns: ColumnsBuilder) -> None:
        """Copy a rebuilt database over the live one in a single transaction, then drop it.

        The copy (and the checkpoint of its log) waits on SQLite and the disk, not on the GIL,
        so it runs on a thread while the postings are placed and the snapshot is written. The
        snapshot is stamped with the rebuilt state: it stands for nothing until the copy commits.
        """
        live, store = self.live, built.store
        try:
            live_generation = retry_busy(live.store.generation)
        except sqlite3.DatabaseError:
            live_generation = 0
        # Jump well past any generation another process may have seen, so none mistakes the
        # rebuilt database for one it already loaded.
        generation = max(live_generation + 1, time.time_ns() // 1_000_000)
        store.set_meta("generation", str(generation))
        store.set_meta(REBUILD_KEY, f"{os.getpid()}-{generation}")
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        snap = live.snapshot_path()
        current = snapshot.stamp(generation, store.state()) if snap is not None else None
        failed: list[BaseException] = []

        def copy_in() -> None:
            try:
                self._copy_in(store)
            except BaseException as exc:  # re-raised below, on the caller's thread
                failed.append(exc)

        copier = threading.Thread(target=copy_in, name="reme-install", daemon=True)
        copier.start()
        try:
            cols = built.load_columns(columns)
            cols.found = built.memory.found_links(cols.links)  # the links just resolved, kept
            if snap is not None and current is not None:
                # The name field (`cols.names`, from the workers' name terms) travels in the
                # snapshot: otherwise every cold search builds it (~0.5 s at 50k).
                snapshot.save(snap, current, cols)
                built.memory.names_unsaved = False  # saved just now: not again at close
                built.memory.found_unsaved = False
        finally:
            copier.join()
        if failed:
            raise failed[0]
        store.close()
        remove_db(tmp)

    def _copy_in(self, built: Store) -> None:
        """The backup copy into the live database, then the checkpoint of its log."""
        live = self.live
        try:
            retry_busy(lambda: built.copy_into(live.store))
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise
            self._replace_damaged(built)
        except sqlite3.DatabaseError:
            self._replace_damaged(built)
        # The copy went through the write-ahead log: move it into the database now, not in
        # whichever statement comes next.
        with contextlib.suppress(sqlite3.Error):
            live.store.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def _replace_damaged(self, built: Store) -> None:
        """The live database cannot take the copy (damaged): start it afresh, then copy."""
        live = self.live
        db = live.place.db_path
        assert isinstance(db, Path)
        live.store.close()
        remove_db(db)
        live.store = retry_busy(lambda: Store(db))
        retry_busy(lambda: built.copy_into(live.store))
