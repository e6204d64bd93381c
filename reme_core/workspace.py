"""The facade a program uses: open a workspace, keep it fresh, search, read and traverse it."""

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
from typing import Any

import numpy as np

from reme_core import file_ops, snapshot
from reme_core.config import Config, config_to_dict, load_config
from reme_core.errors import NotIndexed, RemeError
from reme_core.maintenance import OptimizeReport, index_stats, run_optimize
from reme_core.memory_index import MemoryIndex
from reme_core.models import FileChunk
from reme_core.parsing import ParsedBatch, ParseSettings, parse_many, tokenizer_for
from reme_core.paths import (
    METADATA_DIR,
    is_ignored,
    normalize_relpath,
    regular_inside,
    resolve_inside,
)
from reme_core.reading import ReadResult, read_lines
from reme_core.retrieve import RetrieveResult, run_retrieve
from reme_core.scanner import FileStat, scan, scopes_for
from reme_core.search import Neighbour, SearchFilters, SearchResult, expand, run_search
from reme_core.store import BatchWrite, Store, StoreError, is_busy, retry_busy
from reme_core.tokenizer import Tokenizer
from reme_core.vectors.vector_index import VectorIndex, VectorSearch

DB_NAME = "index.sqlite"
VANISHED = "vanished"
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


def _alive(pid: int) -> bool:
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


@dataclass(slots=True)
class TraverseResult:
    """Nodes and edges reached breadth-first from `path` (SPEC §9)."""

    path: str
    depth: int
    direction: str
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]


class Workspace:
    """An indexed folder of Markdown. Thread-safe: one writer at a time, searches in between."""

    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self._db_file = str(root / METADATA_DIR / DB_NAME)
        self.config = config
        self.mode, self.watch_scope, self.rebuild_scope = scopes_for(root, config)
        self.link_resolution = config.resolved_link_resolution(self.mode)
        self.warnings: list[str] = []
        self.lock = threading.RLock()
        self.write_lock = threading.RLock()
        self.settings = ParseSettings(
            encoding=config.encoding,
            invalid_encoding_policy=config.invalid_encoding_policy,
            chunk_max_bytes=config.chunk_max_bytes,
            max_file_bytes=config.max_file_bytes,
            use_jieba=config.use_jieba,
            markdown_links=self.link_resolution == "obsidian",
        )
        self.store: Store
        self.index: MemoryIndex
        self._generation = -1
        self._persisted_terms = 0
        self._db_ino = 0
        self._listeners: list[Callable[[BatchReport], None]] = []
        # Set when this object rebuilt the index (e.g. `open` found none): `--reindex` reuses it.
        self.last_reindex: ReindexSummary | None = None
        self.vectors: VectorIndex | None = None  # vector recall, when on (see "vectors" below)

    # -- opening ------------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        overrides: dict[str, Any] | None = None,
        *,
        sync: bool = True,
        progress: ProgressFn | None = None,
    ) -> Workspace:
        """Open (and if needed build) the index of a folder, then catch up with the files."""
        root = Path(path).expanduser()
        if not root.is_dir():
            raise RemeError(f"{root}: not a folder")
        ws = cls(root.resolve(), load_config(root, overrides))
        ws._open_store(progress)
        if sync:
            ws.sync(progress)
        if ws.config.vectors.enabled:
            ws.vectors = VectorIndex(ws)
            ws.vectors.start()
        return ws

    @property
    def db_path(self) -> Path | str:
        meta = self.root / METADATA_DIR
        if meta.exists() and not meta.is_dir():
            return ":memory:"
        return meta / DB_NAME

    def _fingerprint(self) -> str:
        return repr((self.mode, self.link_resolution, self.settings))

    def _open_store(self, progress: ProgressFn | None) -> None:
        db = self.db_path
        if db == ":memory:":
            self.warnings.append(
                f"{METADATA_DIR} is a file, not a folder: the index is kept in memory only"
            )
            self.store = Store(":memory:")
            self.reindex(progress)
            return
        assert isinstance(db, Path)
        try:
            db.parent.mkdir(parents=True, exist_ok=True)
            fresh = not db.exists()
            self.store = retry_busy(lambda: Store(db))
            stored = self.store.meta("fingerprint")
            if stored and stored != self._fingerprint():
                self.warnings.append("index settings changed: rebuilding the index")
                self.reindex(progress)
                return
            if fresh or not stored:
                self.reindex(progress)
                return
            retry_busy(self._load)
        except StoreError as exc:
            self.warnings.append(f"{db.relative_to(self.root)}: {exc}; rebuilt from the files")
            if getattr(self, "store", None) is not None:
                self.store.close()
            self._remove_db(db)
            self.store = retry_busy(lambda: Store(db))
            self.reindex(progress)
        except PermissionError as exc:
            self.warnings.append(f"cannot write {METADATA_DIR}/ ({exc.strerror}): index in memory")
            self.store = Store(":memory:")
            self.reindex(progress)

    @staticmethod
    def _remove_db(db: Path) -> None:
        # The log goes first: a crash half-way must never leave an old log beside a new database.
        for suffix in ("-wal", "-shm", ""):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{db}{suffix}").unlink()

    def _load(self) -> None:
        """Rebuild the in-memory structures from the store (at open, or after another writer)."""
        try:
            index = MemoryIndex(self.link_resolution == "obsidian", self._exists)
            with self.store.reading():  # one consistent view: the snapshot stamp relies on it
                generation = self.store.generation()
                files = self.store.load_files()
                links = self.store.load_links()
                vocab = self.store.load_vocab()
                chunks = self.store.load_chunk_arrays()
            snap = self._snapshot_path()
            current = snapshot.stamp(generation, chunks, len(vocab))
            postings = snapshot.load(snap, current) if snap is not None else None
            try:
                index.load(files, links, vocab, chunks, postings)
            except ValueError:
                if postings is None:
                    raise
                index = MemoryIndex(self.link_resolution == "obsidian", self._exists)
                index.load(files, links, vocab, chunks)
                postings = None
            if snap is not None and postings is None:
                snapshot.save(snap, current, index.bm25.postings())
        except Exception as exc:  # a damaged database shows up here as many exception types
            if is_busy(exc):
                raise
            raise StoreError(f"cannot load the index ({exc.__class__.__name__}: {exc})") from None
        self.index = index
        self._generation = generation
        self._persisted_terms = len(index.vocab)
        self._db_ino = self._ino()

    def _snapshot_path(self) -> Path | None:
        """Where the BM25 snapshot of the shared database lives (None for a private store)."""
        db = self.db_path
        return (
            db.with_name(snapshot.SNAPSHOT_NAME)
            if isinstance(db, Path) and self._shared()
            else None
        )

    def _ino(self) -> int:
        """The database file's inode; 0 when it is missing (or `metadata` is not a folder)."""
        try:
            return os.stat(self._db_file).st_ino
        except OSError:
            return 0

    def _shared(self) -> bool:
        """Whether the open store is the workspace's database file (others may write it too)."""
        return self.db_path != ":memory:" and str(self.store.path) == str(self.db_path)

    def _exists(self, relpath: str) -> bool:
        try:
            return (self.root / normalize_relpath(relpath)).exists()
        except RemeError:
            return False

    def refresh_if_changed(self) -> bool:
        """Reload when another process committed (generation moved or the file was replaced)."""
        with self.lock:
            # Cheaper than `_shared()` (every search calls this); where they differ, `metadata`
            # is no longer a folder and `_refresh` finds no database file either.
            if str(self.store.path) != self._db_file:
                return False
            return retry_busy(self._refresh)

    def _refresh(self) -> bool:
        ino = self._ino()
        if ino == 0:  # deleted under us: keep answering from memory; the next open rebuilds
            return False
        if ino != self._db_ino:
            self.store.close()
            self.store = Store(self.db_path)
            self._load()
            return True
        if self.store.generation() != self._generation:
            self._load()
            return True
        return False

    def close(self) -> None:
        """Release the database."""
        if self.vectors is not None:
            self.vectors.close()
        with self.lock:
            self.store.close()

    def add_listener(self, fn: Callable[[BatchReport], None]) -> None:
        """Call `fn` after every applied batch (the TUI refreshes its panes from it)."""
        self._listeners.append(fn)

    # -- keeping fresh ------------------------------------------------------------------------
    def diff(self) -> Changes:
        """Compare the files on disk with the index (mtime and size; `apply` confirms by hash)."""
        disk = scan(self.root, self.watch_scope)
        changes = Changes()
        with self.lock:
            nodes = dict(self.index.nodes)
            origins = dict(self.index.origins)
        for path, node in nodes.items():
            stat = disk.get(path)
            if stat is None and origins.get(path) == "reindex" and not is_ignored(path):
                # Taken by a rebuild from outside the watched folders: keep it while it exists.
                stat = self._stat(path) if self.rebuild_scope.covers(path) else None
            if stat is None:
                changes.deleted.append(path)
            elif stat.mtime != node.st_mtime or stat.size != node.size:
                changes.modified.append(path)
        changes.added = sorted(p for p in disk if p not in nodes)
        return changes

    def _stat(self, relpath: str) -> FileStat | None:
        try:
            path = resolve_inside(self.root, relpath)
            st = path.stat()
        except (OSError, RuntimeError, RemeError):
            return None
        return FileStat(st.st_mtime, st.st_size) if path.is_file() else None

    def sync(self, progress: ProgressFn | None = None) -> BatchReport:
        """The start-up diff: bring the index up to date with the files, one transaction."""
        self.refresh_if_changed()
        changes = self.diff()
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
        *,
        relink: bool = True,
    ) -> BatchReport:
        """One transaction. Term ids are assigned inside it, after catching up with any other
        writer, so two processes never hand out the same id for different terms.

        ``relink=False`` leaves the link graph to the caller (a rebuild relinks once at the end).
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
        report = self._update_memory(gone & known, writes, results, known, relink)
        for path, mtime, digest in touched:
            node = self.index.nodes.get(path)
            if node is not None and node.content_hash == digest:
                node.st_mtime = mtime
                report.touched.append(path)
        report.generation = self._generation = generation
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

    def _writes(self, batches: Sequence[ParsedBatch], origin: str) -> list[BatchWrite]:
        """Map each batch's local terms to global ids (one vocabulary call per batch)."""
        writes = []
        for batch in batches:
            global_ids = self.index.vocab.add_many(batch.terms)
            ids = global_ids[batch.term_idx] if len(batch.term_idx) else batch.term_idx
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
        relink: bool = True,
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
        if (
            relink
            and index.resolver is not None
            and any(c.kind != "modified" for c in report.changes)
        ):
            index.relink_all()
        elif relink:
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
        shared = self._shared()
        tmp: Path | None = None
        if shared:
            assert isinstance(self.db_path, Path)
            tmp = self.db_path.with_name(f"{DB_NAME}.rebuild-{os.getpid()}")
            self._remove_stale_rebuilds(self.db_path)
            self._remove_db(tmp)
        # Searches keep answering from the current index while the new one is built aside.
        builder = Workspace(self.root, self.config)
        builder.store = Store(tmp if tmp is not None else ":memory:")
        # Private and deleted if we crash: its commits need not reach the disk, and a rollback
        # journal in memory spares writing every page twice (log, then checkpoint).
        builder.store.conn.execute("PRAGMA journal_mode=MEMORY")
        builder.store.conn.execute("PRAGMA synchronous=OFF")
        builder.index = MemoryIndex(self.link_resolution == "obsidian", self._exists)
        builder._generation = 0
        skipped = builder._build(paths, progress)
        with self.lock:
            with contextlib.suppress(sqlite3.DatabaseError):  # a rebuild reuses embeddings
                self.store.copy_vectors_into(builder.store)
            if tmp is None:
                self.store.close()
                self.store = builder.store
            else:
                self._install(builder.store, tmp)
            self.index = builder.index
            self._generation = self.store.generation()
            self._persisted_terms = len(self.index.vocab)
            self._db_ino = self._ino()
        graph = self.index.graph
        return ReindexSummary(
            files=len(self.index.nodes),
            chunks=self.index.bm25.n_docs,
            links=graph.n_edges,
            dangling_links=len(graph.dangling()),
            skipped=skipped,
            seconds=time.perf_counter() - started,
        )

    def _build(self, paths: Sequence[str], progress: ProgressFn | None) -> list[tuple[str, str]]:
        """Fill this private, empty builder: each parsed batch is committed as it arrives.

        The parent's store and memory work then overlaps the pool's parsing, and parsed text is
        dropped batch by batch instead of being held for one final transaction. Links are
        resolved once at the end. Returns the refused files.
        """
        done, total = 0, len(paths)

        def tick(n: int) -> None:
            nonlocal done
            done += n
            if progress:
                progress(done, total)

        skipped: list[tuple[str, str]] = []
        regular = regular_inside(self.root, sorted(set(paths)))
        for batch in parse_many(self.root, regular, self.settings, self.config.workers, tick):
            _mark_racy(batch, time.time())
            refused = [(p, reason) for p, reason in batch.skipped if reason != VANISHED]
            skipped += refused
            if batch.files or refused:
                with self.lock:
                    self._commit("reindex", [batch], set(), refused, [], relink=False)
        with self.lock:
            self.index.relink_all()
        return skipped

    def _install(self, built: Store, tmp: Path) -> None:
        """Copy a rebuilt database over the live one in a single transaction, then drop it."""
        db = self.db_path
        assert isinstance(db, Path)
        try:
            live_generation = retry_busy(self.store.generation)
        except sqlite3.DatabaseError:
            live_generation = 0
        # Jump well past any generation another process may have seen, so none mistakes the
        # rebuilt database for one it already loaded.
        built.set_meta("generation", str(max(live_generation + 1, time.time_ns() // 1_000_000)))
        built.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try:
            retry_busy(lambda: built.copy_into(self.store))
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise
            self._replace_damaged(built, db)
        except sqlite3.DatabaseError:
            self._replace_damaged(built, db)
        built.close()
        self._remove_db(tmp)

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
            if not pid.isdigit() or _alive(int(pid)):
                continue
            with contextlib.suppress(OSError):
                leftover.unlink()

    # -- reading ------------------------------------------------------------------------------
    def read(
        self, path: str, start_line: int | None = None, end_line: int | None = None
    ) -> ReadResult:
        """Lines of a workspace file, 1-based inclusive and clamped (SPEC §9)."""
        return read_lines(self.root, path, start_line, end_line, self.config)

    def node(self, path: str) -> Any:
        """The indexed node of a path, or None."""
        with self.lock:
            return self.index.nodes.get(normalize_relpath(path))

    def require_node(self, path: str) -> Any:
        """The indexed node of a path; NotIndexed with a clear message otherwise."""
        node = self.node(path)
        if node is None:
            raise NotIndexed(f"{path}: not an indexed file of this workspace")
        return node

    def files(self) -> list[str]:
        """Indexed paths, sorted."""
        with self.lock:
            return sorted(self.index.nodes)

    def settings_dict(self) -> dict[str, Any]:
        """The effective settings (for `stats --json`)."""
        return config_to_dict(self.config)

    # -- searching ----------------------------------------------------------------------------
    @property
    def tokenizer(self) -> Tokenizer:
        """The tokenizer shared by documents and queries."""
        return tokenizer_for(self.config.use_jieba)

    def search(
        self,
        query: str,
        limit: int | None = None,
        min_score: float | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        path: str | Sequence[str] | None = None,
        tags: Sequence[str] = (),
        *,
        vector_weight: float | None = None,
        expand_links: bool | None = None,
        max_links_per_direction: int | None = None,
        phrases: Sequence[str] = (),
        exclude_terms: Sequence[str] = (),
        exclude_paths: Sequence[str] = (),
    ) -> SearchResult:
        """Search chunks (SPEC §8); never raises for an empty or punctuation-only query."""
        s = self.config.search
        paths = [path] if isinstance(path, str) else list(path or ())
        filters = SearchFilters(
            start_date, end_date, paths, list(tags), list(exclude_paths), s.strict_dates
        )
        vector_search = self.vectors.prepare(query) if self.vectors is not None else None
        self.refresh_if_changed()
        with self.lock:
            return run_search(
                self,
                query,
                limit=s.limit if limit is None else limit,
                min_score=s.min_score if min_score is None else min_score,
                filters=filters,
                vector_weight=s.vector_weight if vector_weight is None else vector_weight,
                expand_links=s.expand_links if expand_links is None else expand_links,
                max_links_per_direction=max_links_per_direction or s.max_links_per_direction,
                phrases=phrases,
                exclude_terms=exclude_terms,
                vector_search=vector_search,
            )

    def retrieve(
        self,
        query: str,
        limit: int = 10,
        budget_tokens: int | None = None,
        expand_links: bool = True,
        explain: bool = False,
    ) -> RetrieveResult:
        """Hits then their one-hop link targets, de-duplicated and cut to a token budget."""
        return run_retrieve(self, query, limit, budget_tokens, expand_links, explain)

    def links(self, path: str) -> dict[str, list[Neighbour]]:
        """Every outlink and inlink of an indexed file, with names and dangling marks."""
        rel = normalize_relpath(path)
        self.refresh_if_changed()
        with self.lock:
            if rel not in self.index.nodes:
                raise NotIndexed(f"{path}: not an indexed file of this workspace")
            return expand(self, rel, 1_000_000)

    def traverse(self, path: str, depth: int = 1, direction: str = "both") -> TraverseResult:
        """Breadth-first walk of the link graph from an indexed file (SPEC §9)."""
        rel = normalize_relpath(path)
        if depth < 0:
            raise RemeError(f"depth must be 0 or more, got {depth}")
        if direction not in ("both", "forward", "backward"):
            raise RemeError(f"direction must be both, forward or backward, got {direction!r}")
        self.refresh_if_changed()
        with self.lock:
            if rel not in self.index.nodes:
                raise NotIndexed(f"{path}: not an indexed file of this workspace")
            nodes, edges = self.index.graph.traverse(rel, depth, direction)
            return TraverseResult(
                rel,
                depth,
                direction,
                [
                    {
                        "path": n.path,
                        "name": self.index.nodes[n.path].name if n.indexed else "",
                        "description": self.index.nodes[n.path].description if n.indexed else "",
                        "depth": n.depth,
                        "indexed": n.indexed,
                    }
                    for n in nodes
                ],
                [
                    {"source": e.source, "target": e.target, "anchor": e.anchor, "depth": e.depth}
                    for e in edges
                ],
            )

    def chunks(self, path: str) -> list[FileChunk]:
        """How a file was chunked: ranges and text, in order."""
        rel = normalize_relpath(path)
        self.refresh_if_changed()
        with self.lock:
            file_id = self.index.file_ids.get(rel)
            if file_id is None:
                raise NotIndexed(f"{path}: not an indexed file of this workspace")
            return [
                FileChunk(rel, start, end, body, prefix, suffix, cid)
                for _, cid, start, end, prefix, body, suffix in self.store.file_chunks(file_id)
            ]

    # -- vectors (reme_core.vectors.vector_index) --------------------------------------------
    @property
    def vector_search(self) -> VectorSearch | None:
        """The vector branch of `search` while vector recall is on and healthy, else None."""
        vectors = self.vectors
        return vectors.search if vectors is not None and vectors.ready else None

    def vector_status(self) -> str:
        """One line for the header and the CLI: off, starting, embedding n/m, on, unavailable."""
        return self.vectors.status() if self.vectors is not None else "vectors off"

    def toggle_vectors(self, enabled: bool | None = None) -> str:
        """Turn vector recall on or off at run time (None flips it); returns the new status.

        Turning it on runs the health check here (it may load a model), so call it off a UI
        thread; on an unavailable provider it checks again, resuming the backfill.
        """
        if enabled is None:
            enabled = self.vectors is None
        if not enabled and self.vectors is not None:
            self.vectors.close()
            self.vectors = None
        elif enabled and self.vectors is None:
            vectors = VectorIndex(self)
            vectors.start(check_now=True)
            self.vectors = vectors
        elif enabled and self.vectors is not None:
            self.vectors.retry()
        self.config.vectors.enabled = enabled
        return self.vector_status()

    def wait_for_vectors(
        self, timeout: float | None = None, progress: ProgressFn | None = None
    ) -> bool:
        """Block until every live chunk has a vector; False when off, unavailable or late."""
        return self.vectors.wait(timeout, progress) if self.vectors is not None else False

    # -- maintenance --------------------------------------------------------------------------
    def optimize(self) -> OptimizeReport:
        """Compact tombstones and vocabulary, rewrite the persisted state, report before/after."""
        with self.write_lock:
            return run_optimize(self)

    def stats(self) -> dict[str, Any]:
        """Counts for the header and `reme-tui stats`."""
        self.refresh_if_changed()
        with self.lock:
            return index_stats(self)

    # -- link-safe file operations (reme_core.file_ops) ---------------------------------------
    def move(
        self, src: str, dst: str, rewrite_links: bool = True, dry_run: bool = False
    ) -> file_ops.MoveReport:
        """Move a file and rewrite the wikilinks that point at it, all or nothing."""
        return file_ops.move(self, src, dst, rewrite_links, dry_run)

    def delete(self, path: str) -> file_ops.DeleteReport:
        """Delete a file; the report lists the inbound links left dangling."""
        return file_ops.delete(self, path)

    def create(
        self,
        path: str,
        name: str,
        description: str,
        metadata: dict[str, Any] | None = None,
        body: str = "",
    ) -> Path:
        """Write a new note with frontmatter and index it."""
        return file_ops.create(self, path, name, description, metadata, body)
