"""Keeping the index fresh: diff the files against it, parse changes in a process pool,
commit each batch in one transaction, and rebuild it aside then copy it in (`--reindex`).

`Indexer` holds these methods for `Workspace` (reme_core.workspace), the public facade, which
inherits them; they use its store, in-memory index, locks and settings.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from reme_core import snapshot
from reme_core.config import Config
from reme_core.errors import RemeError
from reme_core.gc_pause import bulk_objects
from reme_core.index_columns import ColumnsBuilder, IndexColumns
from reme_core.maintenance import OptimizeReport
from reme_core.memory_index import MemoryIndex
from reme_core.parsing import (
    VANISHED,
    ParsedBatch,
    ParseSettings,
    TermSpaces,
    parse_many,
    pool_context,
    uses_pool,
)
from reme_core.paths import is_ignored, regular_inside, resolve_inside
from reme_core.scanner import FileStat, ScanAhead, Scope, scan
from reme_core.store import BatchWrite, Store, is_busy, retry_busy

DB_NAME = "index.sqlite"
_COMMIT_ATTEMPTS = 5
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


def pid_alive(pid: int) -> bool:
    """Whether a process exists (one owned by another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


@dataclass(slots=True)
class Changes:
    """What differs between the files and the index."""

    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.modified or self.deleted)

    def __len__(self) -> int:
        return len(self.added) + len(self.modified) + len(self.deleted)


@dataclass(slots=True)
class FileChange:
    """One applied change, as `watch` prints it."""

    path: str
    kind: str
    chunks: int


@dataclass(slots=True)
class BatchReport:
    """What one applied batch did."""

    changes: list[FileChange] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    generation: int = 0
    touched: list[str] = field(default_factory=list)
    optimized: OptimizeReport | None = None


@dataclass(slots=True)
class ReindexSummary:
    """The `--reindex` summary (SPEC §11)."""

    files: int
    chunks: int
    links: int
    dangling_links: int
    skipped: list[tuple[str, str]]
    seconds: float


class Indexer:
    """Freshness and rebuild methods of `Workspace` (see the module docstring)."""

    root: Path
    config: Config
    settings: ParseSettings
    store: Store
    index: MemoryIndex
    lock: threading.RLock
    write_lock: threading.RLock
    watch_scope: Scope
    rebuild_scope: Scope
    link_resolution: str
    last_reindex: ReindexSummary | None
    _generation: int
    _persisted_terms: int
    _db_ino: int
    _listeners: list[Callable[[BatchReport], None]]
    _snapshot_path: Callable[[], Path | None]
    _snapshot_soon: Callable[[], None]
    _snapshot_stale: bool

    @staticmethod
    def _remove_db(db: Path) -> None:
        # The log goes first: a crash half-way must never leave an old log beside a new database.
        for suffix in ("-wal", "-shm", ""):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{db}{suffix}").unlink()

    # -- keeping fresh ------------------------------------------------------------------------
    def diff(self, ahead: ScanAhead | None = None) -> Changes:
        """Compare the files on disk with the index (mtime and size; `apply` confirms by hash).

        ``ahead`` is a walk started before the index was loaded; a file it lacks may have been
        created (and indexed by another process) since, so such a file is looked at again.
        """
        with bulk_objects():  # 50k FileStats: the collector would walk the whole index heap
            disk = ahead.result() if ahead is not None else scan(self.root, self.watch_scope)
        changes = Changes()
        with self.lock:
            stored = self.index.nodes.stats()
            origins = dict(self.index.origins)
        for path, (mtime, size) in stored.items():
            stat = disk.get(path)
            if stat is None and origins.get(path) == "reindex" and not is_ignored(path):
                # Taken by a rebuild from outside the watched folders: keep it while it exists.
                stat = self._stat(path) if self.rebuild_scope.covers(path) else None
            if stat is None and ahead is not None and self.watch_scope.covers(path):
                stat = self._stat(path)
            if stat is None:
                changes.deleted.append(path)
            elif stat.mtime != mtime or stat.size != size:
                changes.modified.append(path)
        changes.added = sorted(p for p in disk if p not in stored)
        return changes

    def _stat(self, relpath: str) -> FileStat | None:
        try:
            path = resolve_inside(self.root, relpath)
            st = path.stat()
        except (OSError, RuntimeError, RemeError):
            return None
        return FileStat(st.st_mtime, st.st_size) if path.is_file() else None

    def sync(
        self, progress: ProgressFn | None = None, ahead: ScanAhead | None = None
    ) -> BatchReport:
        """The start-up diff: bring the index up to date with the files, one transaction."""
        self.refresh_if_changed()
        changes = self.diff(ahead)
        if not changes:
            return BatchReport(generation=self._generation)
        return self.apply(changes, progress=progress)

    def apply(
        self, changes: Changes, *, origin: str = "watch", progress: ProgressFn | None = None
    ) -> BatchReport:
        """Parse changed files, commit them in one transaction, then update memory."""
        with self.write_lock:
            report = self._apply(changes, origin, progress)
        if report.changes or report.touched:
            for fn in self._listeners:
                fn(report)
        return report

    def _apply(self, changes: Changes, origin: str, progress: ProgressFn | None) -> BatchReport:
        started = time.perf_counter()
        candidates = sorted(set(changes.added) | set(changes.modified))
        unfit = set(candidates).difference(regular_inside(self.root, candidates))
        to_parse, touched = self._split_touched([p for p in candidates if p not in unfit])
        batches, refused = self._parse(to_parse, progress)
        vanished = {p for p, reason in refused if reason == VANISHED}
        skipped = [(p, reason) for p, reason in refused if reason != VANISHED]
        gone = set(changes.deleted) | unfit | vanished | {p for p, _ in skipped}
        for attempt in range(_COMMIT_ATTEMPTS):
            try:
                with self.lock:
                    report = self._commit(origin, batches, gone, skipped, touched)
                break
            except sqlite3.OperationalError as exc:
                if not is_busy(exc) or attempt == _COMMIT_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))
        report.skipped = skipped
        report.seconds = time.perf_counter() - started
        return report

    def _commit(
        self,
        origin: str,
        batches: Sequence[ParsedBatch],
        gone: set[str],
        skipped: list[tuple[str, str]],
        touched: list[tuple[str, float, str]],
    ) -> BatchReport:
        """One transaction. Term ids are assigned inside it, after catching up with any other
        writer, so two processes never hand out the same id for different terms.
        """
        self.refresh_if_changed()
        if not (batches or skipped or touched or gone & set(self.index.nodes)):
            return BatchReport(generation=self._generation)
        try:
            with self.store.transaction():
                if self._shared() and self.store.generation() != self._generation:
                    self._load()  # another process committed since we last looked
                known = set(self.index.nodes)
                writes = self._writes(batches, origin)
                vocab = self.index.vocab
                new_terms = [vocab.term(i) for i in range(self._persisted_terms, len(vocab))]
                self.store.add_terms(self._persisted_terms, new_terms)
                self.store.delete_files(sorted(gone))
                for path, mtime, _ in touched:
                    self.store.touch_file(path, mtime)
                results = [self.store.write_files(w) for w in writes]
                self.store.record_skipped(skipped)
                self.store.put_meta({"fingerprint": self._fingerprint()})
                generation = self.store.bump_generation()
        except Exception:
            retry_busy(self._load)
            raise
        self._persisted_terms = len(vocab)
        report = self._update_memory(gone & known, writes, results, known)
        for path, mtime, digest in touched:
            node = self.index.nodes.get(path)
            if node is not None and node.content_hash == digest:
                node.st_mtime = mtime
                report.touched.append(path)
        report.generation = self._generation = generation
        self._snapshot_soon()
        return report

    def _split_touched(
        self, paths: Sequence[str]
    ) -> tuple[list[str], list[tuple[str, float, str]]]:
        """Separate files whose content hash is unchanged (only their mtime moved)."""
        with self.lock:
            nodes = {p: self.index.nodes.get(p) for p in paths}
        parse: list[str] = []
        touched: list[tuple[str, float, str]] = []
        for path in paths:
            node = nodes[path]
            mtime = self._same_content(path, node.size, node.content_hash) if node else None
            if mtime is None:
                parse.append(path)
            elif mtime != node.st_mtime:
                touched.append((path, mtime, node.content_hash))
        return parse, touched

    def _same_content(self, relpath: str, size: int, digest: str) -> float | None:
        """The file's mtime when its bytes still hash to `digest`, else None."""
        try:
            path = resolve_inside(self.root, relpath)
            before = path.stat()
            if before.st_size != size or not path.is_file():
                return None
            data = path.read_bytes()
            after = path.stat()
        except (OSError, RuntimeError, RemeError):
            return None
        if (before.st_mtime_ns, before.st_size) != (after.st_mtime_ns, after.st_size):
            return None
        if hashlib.blake2b(data, digest_size=16).hexdigest() != digest:
            return None
        return RACY_MTIME if time.time() - after.st_mtime < RACY_SECONDS else after.st_mtime

    def _origin_of(self, path: str, origin: str) -> str:
        return "watch" if self.watch_scope.covers(path) else "reindex" if origin else origin

    def _parse(
        self, paths: Sequence[str], progress: ProgressFn | None
    ) -> tuple[list[ParsedBatch], list[tuple[str, str]]]:
        done = 0
        total = len(paths)

        def tick(n: int) -> None:
            nonlocal done
            done += n
            if progress:
                progress(done, total)

        batches = []
        for batch in parse_many(self.root, paths, self.settings, self.config.workers, tick):
            _mark_racy(batch, time.time())
            batches.append(batch)
        return batches, [item for batch in batches for item in batch.skipped]

    def _writes(
        self, batches: Sequence[ParsedBatch], origin: str, spaces: TermSpaces | None = None
    ) -> list[BatchWrite]:
        """Each batch's rows: CSR pointers over its chunks' vocabulary ids, each file's origin.

        Without ``spaces`` these are all the batches of one parse, mapped afresh (a commit
        retried after a reload maps them again, with the reloaded vocabulary).
        """
        spaces = spaces or TermSpaces(self.index.vocab)
        writes = []
        for batch in batches:
            ids = spaces.ids(batch)
            ptr = np.zeros(len(batch.doc_nterms) + 1, dtype=np.int64)
            np.cumsum(batch.doc_nterms, out=ptr[1:])
            origins = [self._origin_of(pf.node.path, origin) for pf in batch.files]
            writes.append(BatchWrite(batch.files, origins, ptr, ids, batch.tfs))
        return writes

    def _update_memory(
        self,
        removed: Iterable[str],
        writes: Sequence[BatchWrite],
        results: Sequence[tuple[list[int], np.ndarray]],
        known: set[str],
    ) -> BatchReport:
        index = self.index
        report = BatchReport()
        for path in sorted(removed):
            index.remove_file(path)
            report.changes.append(FileChange(path, "deleted", 0))
        for write, (file_ids, rowids) in zip(writes, results, strict=True):
            nodes = [pf.node for pf in write.files]
            for node in nodes:
                index.remove_file(node.path)
            counts = [len(pf.chunks) for pf in write.files]
            chunks = [c for pf in write.files for c in pf.chunks]
            index.add_files(
                nodes,
                file_ids,
                write.origins,
                counts,
                rowids,
                np.fromiter((c.start_line for c in chunks), np.int32, count=len(chunks)),
                np.fromiter((c.end_line for c in chunks), np.int32, count=len(chunks)),
                write.doc_ptr,
                write.term_ids,
                write.tfs,
            )
            for node, n in zip(nodes, counts, strict=True):
                kind = "modified" if node.path in known else "added"
                report.changes.append(FileChange(node.path, kind, n))
        if index.resolver is not None and any(c.kind != "modified" for c in report.changes):
            index.relink_all()
        else:
            index.relink(pf.node.path for w in writes for pf in w.files)
        return report

    def reindex(self, progress: ProgressFn | None = None) -> ReindexSummary:
        """Drop derived state and rebuild from the files (built aside, then copied in at once)."""
        with self.write_lock:
            self.last_reindex = self._reindex(progress)
            return self.last_reindex

    def _reindex(self, progress: ProgressFn | None) -> ReindexSummary:
        started = time.perf_counter()
        paths = sorted(scan(self.root, self.rebuild_scope))
        if uses_pool(len(paths), self.config.workers):
            pool_context(self.settings)  # workers' imports load while the builder is set up
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
                self.root, sorted(set(paths)), self.settings, self.config.workers, tick
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

    def _install(self, builder: Indexer, tmp: Path, columns: ColumnsBuilder) -> None:
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
            pid = leftover.name.rsplit("-", 1)[-1]
            if not pid.isdigit() or pid_alive(int(pid)):
                continue
            with contextlib.suppress(OSError):
                leftover.unlink()
