"""The facade a program uses: open a workspace, keep it fresh, search, read and traverse it.

Keeping it fresh (diff, apply) lives in reme_core.indexing.indexer and the rebuild in
reme_core.indexing.rebuild; `Workspace` inherits both.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reme_core.config import Config, config_to_dict, load_config
from reme_core.edit import file_ops
from reme_core.edit import write as edit_write
from reme_core.edit.undo import UndoReport
from reme_core.edit.write import WriteReport
from reme_core.errors import NotIndexed, RemeError
from reme_core.files.paths import METADATA_DIR, normalize_relpath, state_dir_name
from reme_core.files.scanner import ScanAhead, Scope, scan, scopes_for
from reme_core.gc_pause import bulk_objects
from reme_core.index import snapshot
from reme_core.index.index_columns import columns_from_rows
from reme_core.index.memory_index import MemoryIndex
from reme_core.indexing.indexer import (
    DB_NAME,
    REBUILD_KEY,
    BatchReport,
    Changes,
    FileChange,
    Indexer,
    ProgressFn,
    ReindexSummary,
    pid_alive,
)
from reme_core.indexing.maintenance import OptimizeReport, index_stats, run_optimize
from reme_core.indexing.state_lock import StateLock
from reme_core.models import FileChunk, FileLink
from reme_core.parse.parsing import ParseSettings, tokenizer_for
from reme_core.query.chunk_check import checked_chunks
from reme_core.query.reading import ReadResult, read_lines
from reme_core.query.retrieve import RetrieveResult, run_retrieve
from reme_core.query.search import Neighbour, SearchFilters, SearchResult, expand, run_search
from reme_core.store.database import Store, StoreError, is_busy, retry_busy
from reme_core.text.tokenizer import Tokenizer
from reme_core.vectors.vector_index import VectorIndex, VectorSearch

# Commits then this long without another: write the snapshot (`Workspace.save_snapshot`).
SNAPSHOT_QUIET_SECONDS = 2.0
# Workspaces whose snapshot is stale: written at exit too (a program may never close one).
_STALE: weakref.WeakSet[Workspace] = weakref.WeakSet()


@atexit.register
def _save_stale_snapshots() -> None:
    for ws in list(_STALE):
        ws.save_snapshot()


# Re-exported: callers import the batch types from here, as before the split.
__all__ = [
    "BatchReport",
    "Changes",
    "FileChange",
    "ReindexSummary",
    "TraverseResult",
    "Workspace",
]


@dataclass(slots=True)
class TraverseResult:
    """Nodes and edges reached breadth-first from `path` (SPEC §9)."""

    path: str
    depth: int
    direction: str
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]


class Workspace(Indexer):
    """An indexed folder of Markdown. Thread-safe: one writer at a time, searches in between."""

    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self.config = config
        self.mode, self.watch_scope, self.rebuild_scope = scopes_for(root, config)
        self._db_file = str(self.state_dir / DB_NAME)
        self.state_lock = StateLock(self.state_dir)
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
            stemmer=config.stemmer,
            markdown_links=self.link_resolution == "obsidian",
        )
        self.store: Store
        self.index: MemoryIndex
        self._generation = -1
        self._persisted_terms = 0
        self._db_ino = 0
        self._rebuild_id: str | None = None  # the rebuild that made the loaded database
        self._rebuilt_elsewhere = False
        self._listeners: list[Callable[[BatchReport], None]] = []
        # Set when this object rebuilt the index (e.g. `open` found none): `--reindex` reuses it.
        self.last_reindex: ReindexSummary | None = None
        self.vectors: VectorIndex | None = None  # vector recall, when on (see "vectors" below)
        self._snapshot_stale = False  # a commit of ours moved the database past the snapshot
        self._snapshot_timer: threading.Timer | None = None

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
        # The start-up diff's walk runs on another core while the index loads.
        ahead = ScanAhead(ws.root, ws.watch_scope) if sync else None
        try:
            ws._open_store(progress)
            recovered = file_ops.recover(ws)  # a move or undo a crash interrupted
            if sync:
                fresh_walk = ws.last_reindex is not None or recovered
                ws.sync(progress, None if fresh_walk else ahead)
        finally:
            if ahead is not None:
                ahead.close()
        if ws.config.vectors.enabled:
            ws.vectors = VectorIndex(ws)
            ws.vectors.start()
        return ws

    @property
    def state_dir(self) -> Path:
        """The folder of derived state (index, snapshot, journals): never notes.

        `metadata/` in memory mode (ReMe's layer); a hidden `.reme-tui/` in a vault, whose own
        `metadata/` folder is notes like any other (SPEC §13).
        """
        return self.root / state_dir_name(self.mode)

    @property
    def db_path(self) -> Path | str:
        meta = self.state_dir
        # Never followed when a symlink: it could lead to another program's files.
        if meta.is_symlink() or (meta.exists() and not meta.is_dir()):
            return ":memory:"
        return meta / DB_NAME

    def _fingerprint(self) -> str:
        return repr((self.mode, self.link_resolution, self.settings))

    def _open_store(self, progress: ProgressFn | None) -> None:
        state = self.state_dir.name
        db = self.db_path
        if db == ":memory:":
            what = "a symbolic link" if self.state_dir.is_symlink() else "a file, not a folder"
            self.warnings.append(f"{state} is {what}: the index is kept in memory only")
            self.store = Store(":memory:")
            self.reindex(progress)
            return
        assert isinstance(db, Path)
        try:
            self._make_state_dir()
            self._remove_stale_rebuilds(db)
            self.store = retry_busy(lambda: Store(db))
            if self._stale_reason() is not None:
                # Another process may be building it right now: wait, then use what it built.
                with self.state_lock.held(self._waiting):
                    reason = self._stale_reason()
                    if reason is not None:
                        if reason:
                            self.warnings.append(reason)
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
            self.warnings.append(f"cannot write {state}/ ({exc.strerror}): index in memory")
            self.store = Store(":memory:")
            self.reindex(progress)

    def _stale_reason(self) -> str | None:
        """None when the stored index is built with today's settings; else why it needs a
        build ("" for a database that has never been built)."""
        stored = retry_busy(lambda: self.store.meta("fingerprint"))
        if not stored:
            return ""
        if stored != self._fingerprint():
            return "index settings changed: rebuilding the index"
        return None

    def _waiting(self) -> None:
        self._warn("another process was building this index: waited for it")

    def _make_state_dir(self) -> None:
        """Create the state folder; in a vault, hidden and kept out of git, and an index that
        an older version left in the vault's `metadata/` is moved into it."""
        state = self.state_dir
        if self.mode == "vault" and not state.exists():
            moved = _adopt_vault_index(self.root / METADATA_DIR, state)
            if moved:
                self.warnings.append(
                    f"moved the index from {METADATA_DIR}/ to {state.name}/: in a vault, "
                    f"{METADATA_DIR}/ is notes like any other folder"
                )
        state.mkdir(parents=True, exist_ok=True)
        if self.mode == "vault":
            ignore = state / ".gitignore"
            if not ignore.exists():
                with contextlib.suppress(OSError):
                    ignore.write_text("# reme-tui's derived state: rebuilt from the notes\n*\n")

    def _load(self) -> None:
        """Rebuild the in-memory structures from the store (at open, or after another writer).

        A snapshot whose stamp matches the database (read in the same read transaction)
        stands for its rows; otherwise the rows are read and the snapshot written again.
        """
        try:
            with bulk_objects():
                index = self._new_index()
                snap = self._snapshot_path()
                if snap is not None:
                    snapshot.remove_stale(snap, pid_alive)
                with self.store.reading():  # one consistent view: the snapshot stamp relies on it
                    generation = self.store.generation()
                    rebuild_id = self.store.meta(REBUILD_KEY)
                    current = snapshot.stamp(generation, self.store.state())
                    cols = snapshot.load(snap, current) if snap is not None else None
                    if cols is not None:
                        try:
                            index.load(cols)
                        except ValueError:
                            index, cols = self._new_index(), None
                    if cols is None:
                        cols = columns_from_rows(
                            self.store.load_files(),
                            self.store.load_links(),
                            self.store.load_vocab(),
                            self.store.load_chunk_arrays(),
                        )
                        index.load(cols)
                        if snap is not None:
                            snapshot.save(snap, current, cols)
                    self._snapshot_stale = False
        except Exception as exc:  # a damaged database shows up here as many exception types
            if is_busy(exc):
                raise
            raise StoreError(f"cannot load the index ({exc.__class__.__name__}: {exc})") from None
        self.index = index
        self._generation = generation
        if self._rebuild_id is not None and rebuild_id != self._rebuild_id:
            self._rebuilt_elsewhere = True
        self._rebuild_id = rebuild_id
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

    def _new_index(self) -> MemoryIndex:
        """An empty in-memory index; Obsidian vaults may resolve links to any file (attachments)."""
        obsidian = self.link_resolution == "obsidian"
        every_file = Scope(("",), ("",), self.watch_scope.state_dir)
        lister = (lambda: scan(self.root, every_file)) if obsidian else None
        return MemoryIndex(obsidian, self._exists, lister)

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

    def _snapshot_soon(self) -> None:
        """After a commit: write the snapshot once commits have been quiet for a while."""
        if self._snapshot_path() is None:
            return
        with self.lock:
            self._snapshot_stale = True
            _STALE.add(self)
            if self._snapshot_timer is not None:
                self._snapshot_timer.cancel()
            timer = threading.Timer(SNAPSHOT_QUIET_SECONDS, self.save_snapshot)
            timer.daemon = True
            self._snapshot_timer = timer
            timer.start()

    def save_snapshot(self) -> bool:
        """Write the snapshot of the index when a commit of ours left it stale, so the next
        open loads columns instead of reading every row. False when nothing was written (not
        stale, another process committed since, or a private store)."""
        snap = self._snapshot_path() if self.store.conn is not None else None
        if snap is None or not self._snapshot_stale:
            return False
        with self.lock:
            if self.store.conn is None or not self._snapshot_stale:
                return False
            try:
                with bulk_objects(), self.store.reading():
                    generation = self.store.generation()
                    if generation != self._generation:
                        return False  # memory is behind: the next `_load` writes it
                    current = snapshot.stamp(generation, self.store.state())
                    cols = self.index.columns()
            except sqlite3.Error:
                return False
            self._snapshot_stale = False
            _STALE.discard(self)
        if cols is None:
            return False
        snapshot.save(snap, current, cols)
        return True

    def close(self) -> None:
        """Write a stale snapshot, then release the database."""
        if self.vectors is not None:
            self.vectors.close()
        timer = self._snapshot_timer
        if timer is not None:
            timer.cancel()
        self.save_snapshot()
        with self.lock:
            self.store.close()

    def add_listener(self, fn: Callable[[BatchReport], None]) -> None:
        """Call `fn` after every applied batch (the TUI refreshes its panes from it)."""
        self._listeners.append(fn)

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
        return tokenizer_for(self.config.use_jieba, self.config.stemmer)

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
        group: bool = False,
        exclude_tags: Sequence[str] = (),
    ) -> SearchResult:
        """Search chunks (SPEC §8); never raises for an empty or punctuation-only query.

        ``group``: one hit per note (its best chunk; `SearchHit.more` counts the others),
        as the browser shows them; ReMe's chunk list is the default.
        """
        s = self.config.search
        paths = [path] if isinstance(path, str) else list(path or ())
        filters = SearchFilters(
            start_date,
            end_date,
            paths,
            list(tags),
            list(exclude_paths),
            s.strict_dates,
            list(exclude_tags),
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
                group=group,
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

    def outlinks(self, path: str) -> list[FileLink]:
        """The links written in an indexed file, in order, each with the path it resolves to
        (`target_path`: in a vault, `[[Note]]` -> `folder/Note.md`) beside its written target
        (`raw_target`), so a reader can follow every link the links pane shows."""
        rel = normalize_relpath(path)
        self.refresh_if_changed()
        with self.lock:
            if rel not in self.index.nodes:
                raise NotIndexed(f"{path}: not an indexed file of this workspace")
            return list(self.index.graph.outlinks(rel))

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
            rows = checked_chunks(self, rel, self.store.file_chunks(file_id))  # as on disk
            return [
                FileChunk(rel, start, end, body, prefix, suffix, cid)
                for _, cid, start, end, prefix, body, suffix in rows
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

    # -- link-safe file operations (reme_core.edit.file_ops) ---------------------------------------
    def move(
        self, src: str, dst: str, rewrite_links: bool = True, dry_run: bool = False
    ) -> file_ops.MoveReport:
        """Move a file and rewrite the wikilinks that point at it, all or nothing."""
        return file_ops.move(self, src, dst, rewrite_links, dry_run)

    def delete(self, path: str, permanent: bool = False) -> file_ops.DeleteReport:
        """Move a file to `.trash/` (`permanent`: remove it); the report lists the inbound
        links left dangling."""
        return file_ops.delete(self, path, permanent)

    def undo(self) -> UndoReport:
        """Revert the last delete or move made through reme, by any process (`UndoRefused`
        when nothing can be, or the files changed since)."""
        return file_ops.undo_last(self)

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

    def write(
        self,
        path: str,
        content: str | None = None,
        name: str | None = None,
        description: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> WriteReport:
        """Create or replace a note's body and merge fields into its frontmatter, keeping the
        keys it does not name; written atomically and indexed at once (seed 003)."""
        return edit_write.write(self, path, content, name, description, metadata)


_LEGACY_STATE = ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "bm25-postings.npz")


def _adopt_vault_index(legacy: Path, state: Path) -> bool:
    """Move our index out of a vault's `metadata/` (where versions before 0.2 kept it) into
    the hidden state folder; True when moved. Only a real folder holding a database with our
    meta table counts: a user's own `metadata/index.sqlite` is left alone. A killed rebuild's
    copy goes along, to be removed by the open as any other."""
    db = legacy / DB_NAME
    try:
        if legacy.is_symlink() or not db.is_file() or db.is_symlink():
            return False
        conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
        try:
            conn.execute("PRAGMA trusted_schema=OFF")
            ours = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        return False
    if not ours:
        return False
    try:
        state.mkdir(parents=True, exist_ok=True)
        for name in _LEGACY_STATE:
            if (legacy / name).is_file():
                os.replace(legacy / name, state / name)
    except OSError:
        return False
    for leftover in legacy.glob(f"{DB_NAME}.rebuild-*"):  # a killed rebuild's copy
        with contextlib.suppress(OSError):
            os.replace(leftover, state / leftover.name)
    with contextlib.suppress(OSError):
        legacy.rmdir()  # only when empty: anything else in it is the owner's
    return True
