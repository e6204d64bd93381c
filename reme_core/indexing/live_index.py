"""The index a process answers from: the store, its in-memory image, and what keeps them one.

`LiveIndex` owns the SQLite store and the `MemoryIndex` loaded from it (or from its
snapshot), the generation that says whether another process has committed since, and the
snapshot written after quiet periods. Readers take `lock`; one writer at a time takes
`write_lock` (the indexer, a rebuild, optimize and the file operations). A batch commits
through a connection of its own (`committing`) and takes `lock` only to swap its delta in,
so a search never waits behind a transaction.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from reme_core.errors import RemeError
from reme_core.files.paths import normalize_relpath
from reme_core.files.scanner import scan
from reme_core.files.scope import Scope
from reme_core.files.state_files import remove_dead_temps
from reme_core.gc_pause import bulk_objects
from reme_core.index import snapshot
from reme_core.index.index_columns import columns_from_rows
from reme_core.index.memory_index import MemoryIndex
from reme_core.index.posting_lists import DamagedPostings
from reme_core.store.database import Store, StoreError, is_busy, retry_busy

DB_NAME = "index.sqlite"
# Meta key naming the rebuild that made the database: a live process that sees it change
# re-checks the files, since the rebuild's copy replaced whatever it committed meanwhile.
REBUILD_KEY = "rebuild"
# Commits then this long without another: write the snapshot (`LiveIndex.save_snapshot`);
# longer, SNAPSHOT_QUIET_FACTOR times the last save, when saves are slow. At 50k notes a save
# took ~1 s of the process's GIL: a watcher's batch every few seconds wrote one after each
# batch, a fifth of the browser's time, and saved nothing an open needs until the batches end.
SNAPSHOT_QUIET_SECONDS = 2.0
SNAPSHOT_QUIET_FACTOR = 10.0
# Indexes whose snapshot is stale: written at exit too (a program may never close one).
_STALE: weakref.WeakSet[LiveIndex] = weakref.WeakSet()


@atexit.register
def _save_stale_snapshots() -> None:
    for live in list(_STALE):
        live.save_snapshot()


@dataclass(frozen=True, slots=True)
class IndexPlace:
    """Where a workspace's index lives and what it is built with (its fingerprint)."""

    root: Path
    mode: str
    state_dir: Path
    link_resolution: str
    fingerprint: str

    @property
    def db_file(self) -> str:
        """The database's path as a string, whether or not the state folder is usable."""
        return str(self.state_dir / DB_NAME)

    @property
    def db_path(self) -> Path | str:
        """The database file, or ":memory:" when the state folder cannot be trusted."""
        meta = self.state_dir
        # Never followed when a symlink: it could lead to another program's files.
        if meta.is_symlink() or (meta.exists() and not meta.is_dir()):
            return ":memory:"
        return meta / DB_NAME

    def new_memory(self) -> MemoryIndex:
        """An empty in-memory index; Obsidian vaults may resolve links to any file (attachments)."""
        obsidian = self.link_resolution == "obsidian"
        return MemoryIndex(obsidian, self._exists, self.list_files if obsidian else None)

    def list_files(self) -> Iterable[str]:
        """Every file of the workspace but its state (a walk): what links may find."""
        return scan(self.root, Scope(("",), ("",), self.state_dir.name))

    def _exists(self, relpath: str) -> bool:
        try:  # os.path, not pathlib: `stats` asks this of every dangling target
            return os.path.exists(f"{self.root}/{normalize_relpath(relpath)}")
        except RemeError:
            return False


class LiveIndex:
    """The store and the in-memory index of one workspace, kept in step with other writers."""

    def __init__(self, place: IndexPlace, store: Store) -> None:
        self.place = place
        self.store = store
        self.memory = place.new_memory()
        self.lock = threading.RLock()
        self.write_lock = threading.RLock()
        self.generation = -1
        self.persisted_terms = 0  # vocabulary ids below this are in the store
        self._db_ino = 0
        self._rebuild_id: str | None = None  # the rebuild that made the loaded database
        self._rebuilt_elsewhere = False
        self._snapshot_stale = False  # a commit of ours moved the database past the snapshot
        self._snapshot_timer: threading.Timer | None = None
        self._snapshot_seconds = 0.0  # how long the last save (before one: the load) took
        self._writer: Store | None = None  # the shared database's connection for commits
        self._committing = False  # a commit is open on `_writer`: memory catches up after

    # -- what this index is -------------------------------------------------------------------
    def shared(self) -> bool:
        """Whether the store is the workspace's database file (others may write it too)."""
        db = self.place.db_path
        return db != ":memory:" and str(self.store.path) == str(db)

    def snapshot_path(self) -> Path | None:
        """Where the BM25 snapshot of the shared database lives (None for a private store)."""
        db = self.place.db_path
        if isinstance(db, Path) and self.shared():
            return db.with_name(snapshot.SNAPSHOT_NAME)
        return None

    def stale_reason(self) -> str | None:
        """None when the stored index is built with today's settings; else why it needs a
        build: "settings" (built with others; worth a warning), "" (never built)."""
        stored = retry_busy(lambda: self.store.meta("fingerprint"))
        if not stored:
            return ""
        if stored != self.place.fingerprint:
            return "settings"
        return None

    def ino(self, db_file: str | None = None) -> int:
        """The database file's inode (``db_file``: its path, when known already); 0 when it
        is missing (or the state is not a folder)."""
        try:
            return os.stat(db_file or self.place.db_file).st_ino
        except OSError:
            return 0

    # -- loading ------------------------------------------------------------------------------
    def load(self) -> None:
        """Rebuild the in-memory structures from the store (at open, or after another writer).

        A snapshot whose stamp matches the database (read in the same read transaction)
        stands for its rows; otherwise the rows are read and the snapshot written again.
        """
        started = time.perf_counter()
        try:
            with bulk_objects():
                memory, generation, rebuild_id = self._read_memory()
        except Exception as exc:  # a damaged database shows up here as many exception types
            if is_busy(exc):
                raise
            raise StoreError(f"cannot load the index ({exc.__class__.__name__}: {exc})") from None
        self.memory = memory
        self.generation = generation
        if self._rebuild_id is not None and rebuild_id != self._rebuild_id:
            self._rebuilt_elsewhere = True
        self._rebuild_id = rebuild_id
        self.persisted_terms = len(memory.vocab)
        self._db_ino = self.ino()
        if not self._snapshot_seconds:  # until a save is timed, a load stands for its cost
            self._snapshot_seconds = time.perf_counter() - started

    def _read_memory(self) -> tuple[MemoryIndex, int, str | None]:
        memory = self.place.new_memory()
        snap = self.snapshot_path()
        if snap is not None:
            remove_dead_temps(snap.parent, snap.name)
        with self.store.reading():  # one consistent view: the snapshot stamp relies on it
            generation = self.store.generation()
            rebuild_id = self.store.meta(REBUILD_KEY)
            current = snapshot.stamp(generation, self.store.state())
            cols = snapshot.load(snap, current) if snap is not None else None
            if cols is not None:
                try:
                    memory.load(cols)
                except ValueError:
                    memory, cols = self.place.new_memory(), None
            if cols is None:
                cols = columns_from_rows(
                    self.store.load_files(),
                    self.store.load_links(),
                    self.store.load_vocab(),
                    self.store.load_chunk_arrays(),
                )
                memory.load(cols)
                if snap is not None:
                    cols.found = memory.found_links(cols.links)
                    snapshot.save(snap, current, cols)
                    memory.found_unsaved = False
            self._snapshot_stale = False
        return memory, generation, rebuild_id

    def check_attachments(self) -> None:
        """After a load that adopted a snapshot's attachments: walk the vault (outside the
        locks) and re-resolve every link when its other files changed since."""
        memory = self.memory
        if not memory.attachments_unchecked:
            return
        listed = list(self.place.list_files())
        with self.write_lock, self.lock:
            if self.memory is not memory or not memory.attachments_differ(listed):
                return
            memory.relink_all()
        self.snapshot_soon()

    def check_postings(self) -> None:
        """Check the postings a snapshot left to be checked per term, before anything is
        built on them; damaged ones mean the index is loaded from the rows instead."""
        with self.lock:
            try:
                self.memory.bm25.check_all()
            except DamagedPostings:
                self.reload_damaged()

    def reload_damaged(self) -> None:
        """Load the index from the rows again, its snapshot having been found damaged
        (`DamagedPostings`). The snapshot is derived state: like one that does not match at
        open, it is replaced without a warning (the rows are the index)."""
        with self.lock:
            snap = self.snapshot_path()
            if snap is not None:
                with contextlib.suppress(OSError):
                    snap.unlink()
            retry_busy(self.load)  # no snapshot: from the rows, and written again

    def refresh_if_changed(self) -> bool:
        """Reload when another process committed (generation moved or the file was replaced).

        Not while this process commits a batch: its transaction would look like another
        process's, and the writer swaps its own delta in as soon as it has committed."""
        with self.lock:
            if self._committing:
                return False
            # Cheaper than `shared()` (every search calls this); where they differ, the state
            # is no longer a folder and `_refresh` finds no database file either.
            db_file = self.place.db_file
            if str(self.store.path) != db_file:
                return False
            return retry_busy(lambda: self._refresh(db_file))

    def _refresh(self, db_file: str) -> bool:
        ino = self.ino(db_file)
        if ino == 0:  # deleted under us: keep answering from memory; the next open rebuilds
            return False
        if ino != self._db_ino:
            self.store.close()
            self._close_writer()
            self.store = Store(self.place.db_path)
            self.load()
            return True
        if self.store.generation() != self.generation:
            self.load()
            return True
        return False

    def take_rebuilt_elsewhere(self) -> bool:
        """Whether a load since the last call found another process's rebuild (once each)."""
        with self.lock:
            seen, self._rebuilt_elsewhere = self._rebuilt_elsewhere, False
        return seen

    def install(self, store: Store, memory: MemoryIndex) -> None:
        """Answer from a rebuilt index from now on (caller holds `lock`)."""
        self._close_writer()
        self.store = store
        self.memory = memory
        self.generation = store.generation()
        self._rebuild_id = store.meta(REBUILD_KEY)
        self.persisted_terms = len(memory.vocab)
        self._db_ino = self.ino()
        self._snapshot_stale = False

    # -- committing ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def committing(self) -> Iterator[Store]:
        """The store a batch's transaction runs on (caller holds `write_lock`), readers
        answering meanwhile from the memory and the database as they were.

        The shared database gets a second connection: in WAL mode `store` keeps reading the
        last commit while it is open, so the caller takes `lock` only to swap its delta in
        after the COMMIT (before this context ends: until then readers do not refresh). A
        private store (":memory:" has one connection) commits under `lock` as it always did.
        """
        if not self.shared():
            with self.lock:
                yield self.store
            return
        with self.lock:
            self._committing = True
        try:
            if self._writer is None:
                self._writer = Store(self.place.db_path, create=False)
            yield self._writer
        finally:
            with self.lock:
                self._committing = False

    def _close_writer(self) -> None:
        """Close the commit connection (the database file was replaced, or we are closing)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    # -- the snapshot -------------------------------------------------------------------------
    def snapshot_soon(self) -> None:
        """After a commit: write the snapshot once commits have been quiet for a while (the
        longer, the longer a save takes: `snapshot_quiet`)."""
        if self.snapshot_path() is None:
            return
        with self.lock:
            self._snapshot_stale = True
            _STALE.add(self)
            if self._snapshot_timer is not None:
                self._snapshot_timer.cancel()
            timer = threading.Timer(self.snapshot_quiet(), self.save_snapshot)
            timer.daemon = True
            self._snapshot_timer = timer
            timer.start()

    def snapshot_quiet(self) -> float:
        """Seconds without a commit before the snapshot is written: a save costs its time
        again after every burst of commits, so a slow one waits for a long pause."""
        return max(SNAPSHOT_QUIET_SECONDS, SNAPSHOT_QUIET_FACTOR * self._snapshot_seconds)

    def save_snapshot(self) -> bool:
        """Write the snapshot of the index when a commit of ours left it stale, so the next
        open loads columns instead of reading every row. False when nothing was written (not
        stale, another process committed since, a writer of ours is busy, or a private store).

        The writer lock keeps the memory as it is while the columns are gathered in slices,
        each under the readers' lock: a search waits for one slice, not for the whole
        snapshot (a second and a half after a 500-file batch at 5k notes). A busy writer is
        not waited for: its commit schedules the next save.
        """
        snap = self.snapshot_path() if self.store.conn is not None else None
        if snap is None or not self._worth_saving():
            return False
        if not self.write_lock.acquire(blocking=False):
            return False
        started = time.perf_counter()
        try:
            with self.lock:
                if self.store.conn is None or not self._worth_saving():
                    return False
                self.check_postings()  # a name field alone may be new: the postings as loaded
                if not self._worth_saving():
                    return False  # they were damaged: loaded from the rows, snapshot written
                try:
                    with self.store.reading():
                        generation = self.store.generation()
                        if generation != self.generation:
                            return False  # memory is behind: the next `load` writes it
                        current = snapshot.stamp(generation, self.store.state())
                except sqlite3.Error:
                    return False
                memory = self.memory  # a reload elsewhere replaces it; this one stays whole
            with bulk_objects():
                cols = memory.columns(self.lock)
            with self.lock:
                self._snapshot_stale = memory.names_unsaved = memory.found_unsaved = False
                _STALE.discard(self)
        finally:
            self.write_lock.release()
        if cols is None:
            return False
        snapshot.save(snap, current, cols)
        self._snapshot_seconds = time.perf_counter() - started
        return True

    def _worth_saving(self) -> bool:
        """A commit of ours left the snapshot stale, or it lacks a name field or resolved
        links made since."""
        memory = self.memory
        return self._snapshot_stale or memory.names_unsaved or memory.found_unsaved

    def close(self) -> None:
        """Write a stale snapshot, then release the database."""
        timer = self._snapshot_timer
        if timer is not None:
            timer.cancel()
        self.save_snapshot()
        with self.lock:
            self._close_writer()
            self.store.close()
