"""The facade a program uses: open a workspace, keep it fresh, search, read and traverse it.

`Workspace` composes the pieces: a `LiveIndex` (store and in-memory index, kept in step with
other processes), an `Indexer` (diff and apply), a `Rebuild` for `--reindex`, and the query
and edit functions, each handed the collaborators it needs.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from reme_core.config import Config, load_config
from reme_core.edit.journal_files import journals_left, tidy_state
from reme_core.errors import RemeError
from reme_core.files.paths import normalize_relpath, state_dir_name
from reme_core.files.scan_ahead import ScanAhead
from reme_core.files.scanner import scopes_for
from reme_core.index.memory_index import MemoryIndex
from reme_core.index.posting_lists import DamagedPostings
from reme_core.indexing.indexer import BatchReport, Changes, Indexer
from reme_core.indexing.live_index import IndexPlace, LiveIndex
from reme_core.indexing.opening import open_live_index
from reme_core.indexing.state_lock import StateLock
from reme_core.models import FileChunk, FileLink, FileNode
from reme_core.parse.settings import ParseSettings
from reme_core.parts import WorkspaceParts
from reme_core.ports import edit_index, retrievable, search_index, vector_host
from reme_core.progress import ProgressFn
from reme_core.query import notes
from reme_core.query.chunk_check import ChunkCheck
from reme_core.query.graph_results import NoteLinks, TraverseResult
from reme_core.query.query_language import parse_query
from reme_core.query.reading import ReadResult, read_lines
from reme_core.query.request import SearchRequest
from reme_core.query.results import SearchResult
from reme_core.query.retrieve import RetrieveResult, run_retrieve
from reme_core.query.samples import FilterSamples, filter_samples
from reme_core.query.search import run_search
from reme_core.text.tokenizer import Tokenizer, has_cjk, tokenizer_for
from reme_core.vectors.state import OFF, VectorStatus
from reme_core.vectors.switch import switched
from reme_core.vectors.vector_index import VectorIndex, VectorSearch
from reme_core.workspace_warning import WorkspaceWarning

if TYPE_CHECKING:
    # The edit, rebuild and maintenance modules (and through them the parsers) are imported
    # by the methods that use them: a program that only searches (a cold `reme-tui search`)
    # does not load them.
    from reme_core.edit.file_ops import DeleteReport, MoveReport
    from reme_core.edit.recovery_notes import RecoveryNote
    from reme_core.edit.undo import UndoReport
    from reme_core.edit.write import WriteReport
    from reme_core.indexing.change_feed import ChangeFeed
    from reme_core.indexing.maintenance import IndexCounts, IndexStats, OptimizeReport
    from reme_core.indexing.rebuild import ReindexSummary


class Workspace:
    """An indexed folder of Markdown. Thread-safe: one writer at a time, searches in between."""

    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self.config = config
        self.mode_choice, self.watch_scope, self.rebuild_scope = scopes_for(root, config)
        self.mode = self.mode_choice.mode  # "memory" or "vault"; `mode_choice` says why
        self.link_resolution = config.resolved_link_resolution(self.mode)
        self.warnings: list[WorkspaceWarning] = []
        self.recovery: list[RecoveryNote] = []  # what a crash left and the open did about it
        self.settings = ParseSettings.from_config(config, self.link_resolution == "obsidian")
        state_dir = root / state_dir_name(self.mode)
        fingerprint = repr((self.mode, self.link_resolution, self.settings))
        self.place = IndexPlace(root, self.mode, state_dir, self.link_resolution, fingerprint)
        self.state_lock = StateLock(state_dir)
        self._parts: WorkspaceParts  # the live index and its indexer: reached through ports
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
        walk: ScanAhead | None = None,
        while_walking: Callable[[Workspace], object] | None = None,
    ) -> Workspace:
        """Open (and if needed build) the index of a folder, then catch up with the files.

        ``walk``: the start-up diff's walk as `walk_ahead(path, overrides)` started it
        (before this process imported the index modules); otherwise it starts here.
        ``while_walking(ws)``: work that does not depend on the start-up diff (a query's
        warm-up: what its first search builds) done while that walk finishes on another
        core, before the diff waits for it. Its result is not kept: what it reads may be
        older than the files.
        """
        root = Path(path).expanduser()
        if not root.is_dir():
            ScanAhead.drop(walk)
            raise RemeError(f"{root}: not a folder")
        ws = cls(root.resolve(), load_config(root, overrides))
        # The start-up diff's walk runs on another core while the index loads.
        ahead = ScanAhead.reuse(walk, ws.root, ws.watch_scope) if sync else ScanAhead.drop(walk)
        try:

            def build(live: LiveIndex) -> None:
                ws._attach(live)
                ws.reindex(progress)

            ws._attach(open_live_index(ws.place, ws.state_lock, build, ws.warn))
            recovered = ws._recover()  # a move or undo a crash interrupted
            if sync:
                fresh_walk = ws.last_reindex is not None or recovered
                walking = not fresh_walk and ahead is not None and ahead.forked
                if while_walking is not None and walking:
                    while_walking(ws)
                ws.sync(progress, None if fresh_walk else ahead)
        finally:
            ScanAhead.drop(ahead)
        if ws.config.vectors.enabled:
            ws.vectors = VectorIndex(vector_host(ws))
            ws.vectors.start()
        return ws

    def _recover(self) -> bool:
        """Finish or roll back what a crash interrupted (`file_ops.recover`), if a journal
        was left; True when files changed."""
        for line in tidy_state(self.state_dir):
            self.warn(line)
        return journals_left(self.state_dir) and _file_ops().recover(edit_index(self))

    def _attach(self, live: LiveIndex) -> None:
        old = getattr(self, "_parts", None)
        if old is not None and old.live is live:
            return
        scopes = (self.watch_scope, self.rebuild_scope)
        indexer = Indexer(live, *scopes, self.settings, self.config.workers, self.warn)
        indexer.listeners.extend(old.indexer.listeners if old is not None else [])
        self._parts = WorkspaceParts(live, indexer)

    def warn(self, warning: WorkspaceWarning) -> None:
        """Record a warning once (the CLI prints them, the browser shows them)."""
        if warning not in self.warnings:
            self.warnings.append(warning)

    @property
    def state_dir(self) -> Path:
        """The folder of derived state (index, snapshot, journals): never notes.

        `metadata/` in memory mode (ReMe's layer); a hidden `.reme-tui/` in a vault, whose own
        `metadata/` folder is notes like any other (SPEC §13).
        """
        return self.place.state_dir

    @property
    def db_path(self) -> Path | str:
        """The database file, or ":memory:" when the state folder cannot be used."""
        return self.place.db_path

    # -- keeping fresh (reme_core.indexing) ---------------------------------------------------
    def refresh_if_changed(self) -> bool:
        """Reload when another process committed (generation moved or the file was replaced)."""
        return self._parts.live.refresh_if_changed()

    @contextmanager
    def _fresh(self) -> Iterator[MemoryIndex]:
        """The index under its lock, reloaded first when another process committed."""
        self.refresh_if_changed()
        with self._parts.lock:
            yield self._parts.index

    def diff(self, ahead: ScanAhead | None = None) -> Changes:
        """What differs between the files on disk and the index."""
        return self._parts.indexer.diff(ahead)

    def sync(
        self, progress: ProgressFn | None = None, ahead: ScanAhead | None = None
    ) -> BatchReport:
        """The start-up diff: bring the index up to date with the files, one transaction."""
        return self._parts.indexer.sync(progress, ahead)

    def apply(
        self,
        changes: Changes,
        *,
        progress: ProgressFn | None = None,
        pool_from: int | None = None,
    ) -> BatchReport:
        """Parse changed files, commit them in one transaction, then update memory
        (``pool_from``: parse in the process pool from this many files; None: large jobs)."""
        return self._parts.indexer.apply(changes, progress=progress, pool_from=pool_from)

    def rebuilt_elsewhere(self) -> bool:
        """Whether another process rebuilt the index since this one last looked (once each):
        the caller should diff again, since that copy replaced what this process committed."""
        return self._parts.indexer.rebuilt_elsewhere()

    def reindex(self, progress: ProgressFn | None = None) -> ReindexSummary:
        """Drop derived state and rebuild from the files (built aside, then copied in at once).

        One rebuild at a time across processes (the state folder's lock).
        """
        from reme_core.indexing.rebuild import Rebuild

        with self._parts.write_lock, self.state_lock.held():
            rebuild = Rebuild(
                self._parts.live, self.rebuild_scope, self.settings, self.config.workers, self.warn
            )
            self.last_reindex = rebuild.run(progress)
            return self.last_reindex

    def close(self) -> None:
        """Write a stale snapshot, then release the database."""
        if self.vectors is not None:
            self.vectors.close()
        self._parts.live.close()

    def change_feed(self) -> ChangeFeed:
        """Every change committed from now on, by this process or any other, read with
        `ChangeFeed.poll` (what `watch` prints)."""
        from reme_core.indexing.change_feed import ChangeFeed

        return ChangeFeed(self._parts.live)

    def add_listener(self, fn: Callable[[BatchReport], None]) -> None:
        """Call `fn` after every applied batch (the TUI refreshes its panes from it)."""
        self._parts.indexer.listeners.append(fn)

    # -- reading ------------------------------------------------------------------------------
    def read(
        self, path: str, start_line: int | None = None, end_line: int | None = None
    ) -> ReadResult:
        """Lines of a workspace file, 1-based inclusive and clamped (SPEC §9)."""
        return read_lines(self.root, path, start_line, end_line, self.config)

    def node(self, path: str) -> FileNode | None:
        """The indexed node of a path, or None."""
        with self._parts.lock:
            return self._parts.index.nodes.get(normalize_relpath(path))

    def require_node(self, path: str) -> FileNode:
        """The indexed node of a path; NotIndexed with a clear message otherwise."""
        with self._parts.lock:
            return self._parts.index.nodes[notes.indexed_path(self._parts.index, path)]

    def files(self) -> list[str]:
        """Indexed paths, sorted."""
        with self._parts.lock:
            return sorted(self._parts.index.nodes)

    def note_times(self, paths: Sequence[str] | None = None) -> dict[str, float]:
        """Each indexed note's modified time (every note's, or those of `paths` that are
        indexed): what the browser's files tree sorts by."""
        with self._parts.lock:
            return notes.note_times(self._parts.index, paths)

    def frontmatters(self) -> dict[str, dict[str, Any]]:
        """Each indexed file's frontmatter, by path in sorted order, without building its node
        (the quick switcher reads every note's names: ~60 us a file through `node()`)."""
        with self._parts.lock:
            nodes = self._parts.index.nodes
            return {path: nodes.frontmatter(path) for path in sorted(nodes)}

    # -- searching ----------------------------------------------------------------------------
    @property
    def tokenizer(self) -> Tokenizer:
        """The tokenizer shared by documents and queries."""
        return tokenizer_for(self.config.use_jieba, self.config.stemmer)

    def warm_up_segmenter(self) -> bool:
        """Load the Han segmenter now when the index holds Han, kana or Hangul terms (a
        fifth of a second or more, with the interpreter held): the first such query then
        does not wait, and a workspace without them never loads it. True when loaded."""
        with self._parts.lock:
            terms = self._parts.index.vocab.joined()
        return has_cjk(terms) and self.tokenizer.warm_up()

    def search(
        self,
        query: SearchRequest | str,
        limit: int | None = None,
        *,
        expand_links: bool | None = None,
        group: bool | None = None,
    ) -> SearchResult:
        """Search chunks (SPEC §8); never raises for an empty or punctuation-only query.

        ``query``: a `SearchRequest` (`parse_query(line).request(...)`), or a finished query
        line, parsed the same way (words, "phrases", -word, path:, tag:, [prop] ...).
        ``limit``, ``expand_links``, ``group``: when given, they replace the request's
        options of those names (the one-liners: `ws.search("x", 5)`).
        """
        request = parse_query(query, typing=False).request() if isinstance(query, str) else query
        o = request.options
        if limit is not None or expand_links is not None or group is not None:
            o = dataclasses.replace(
                o,
                limit=o.limit if limit is None else limit,
                expand_links=o.expand_links if expand_links is None else expand_links,
                group=o.group if group is None else group,
            )
        s = self.config.search
        filters = request.filters
        strict = s.strict_date_filter if filters.strict_dates is None else filters.strict_dates
        filters = dataclasses.replace(filters, strict_dates=strict or self.mode == "vault")
        options = o.resolved(s)
        text = request.ranking_text
        vectors = self.vectors.prepare(text) if self.vectors is not None else None
        self.refresh_if_changed()
        run = functools.partial(
            run_search, search_index(self), text, options, filters, request.checks, vectors
        )
        with self._parts.lock:
            try:
                return run()
            except DamagedPostings:  # a snapshot's postings are checked as they are read
                self._parts.live.reload_damaged()
                return run()

    def retrieve(
        self,
        query: str,
        limit: int = 10,
        budget_tokens: int | None = None,
        expand_links: bool = True,
        explain: bool = False,
    ) -> RetrieveResult:
        """Hits then their one-hop link targets, de-duplicated and cut to a token budget."""
        return run_retrieve(retrievable(self), query, limit, budget_tokens, expand_links, explain)

    def filter_samples(self) -> FilterSamples:
        """Real values for filter examples (a top folder, the dates the notes span)."""
        with self._fresh() as index:
            return filter_samples(index)

    def links(self, path: str) -> NoteLinks:
        """Every outlink and inlink of an indexed file, with names and dangling marks."""
        with self._fresh() as index:
            return notes.note_links(index, path)

    def outlinks(self, path: str) -> list[FileLink]:
        """The links written in an indexed file, in order, each with the path it resolves to
        (`target_path`: in a vault, `[[Note]]` -> `folder/Note.md`) beside its written target
        (`raw_target`), so a reader can follow every link the links pane shows."""
        with self._fresh() as index:
            return notes.outlinks(index, path)

    def traverse(self, path: str, depth: int = 1, direction: str = "both") -> TraverseResult:
        """Breadth-first walk of the link graph from an indexed file (SPEC §9); `direction`
        is both, forward (outlinks) or backward (inlinks)."""
        with self._fresh() as index:
            return notes.traverse(index, path, depth, direction)

    def chunks(self, path: str) -> list[FileChunk]:
        """How a file was chunked: ranges and text (as on disk), in order."""
        with self._fresh() as index:
            check = ChunkCheck(self.root, self.config, index.checked_rows)
            return notes.note_chunks(index, self._parts.store, check, path)

    # -- vectors (reme_core.vectors.vector_index) --------------------------------------------
    @property
    def vector_search(self) -> VectorSearch | None:
        """The vector branch of `search` while vector recall is on and healthy, else None."""
        vectors = self.vectors
        return vectors.search if vectors is not None and vectors.ready else None

    def vector_status(self) -> VectorStatus:
        """Where vector recall stands (`VectorState`: off, starting, embedding with its
        progress, on, unavailable with why); `reme_tui.text.vectors` says it in words."""
        return self.vectors.status() if self.vectors is not None else OFF

    def toggle_vectors(self, enabled: bool | None = None) -> VectorStatus:
        """Turn vector recall on or off at run time (None flips it); returns the new status.

        Turning it on runs the health check here (it may load a model), so call it off a UI
        thread; on an unavailable provider it checks again, resuming the backfill.
        """
        self.vectors = switched(vector_host(self), self.vectors, enabled)
        return self.vector_status()

    def wait_for_vectors(
        self, timeout: float | None = None, progress: ProgressFn | None = None
    ) -> bool:
        """Block until every live chunk has a vector; False when off, unavailable or late."""
        return self.vectors.wait(timeout, progress) if self.vectors is not None else False

    # -- maintenance --------------------------------------------------------------------------
    def optimize(self) -> OptimizeReport:
        """Compact tombstones and vocabulary, rewrite the persisted state, report before/after."""
        from reme_core.indexing.maintenance import run_optimize

        with self._parts.write_lock:
            return run_optimize(self._parts.live)

    def stats(self) -> IndexStats:
        """Everything `reme-tui stats` prints (links and skipped files counted: see `counts`)."""
        from reme_core.indexing.maintenance import index_stats

        with self._fresh():
            return index_stats(self._parts.live, self.mode_choice.reason.value)

    def counts(self) -> IndexCounts:
        """Files, chunks and tombstones, cheaply: for a header refreshed after every batch
        (`stats` counts dangling links and skipped files: 1.8-3 s at 50k notes, load 6)."""
        from reme_core.indexing.maintenance import index_counts

        with self._fresh():
            return index_counts(self._parts.live)

    # -- link-safe file operations (reme_core.edit.file_ops) ---------------------------------------
    def move(
        self, src: str, dst: str, rewrite_links: bool = True, dry_run: bool = False
    ) -> MoveReport:
        """Move a file and rewrite the wikilinks that point at it, all or nothing."""
        return _file_ops().move(edit_index(self), src, dst, rewrite_links, dry_run)

    def delete(self, path: str, permanent: bool = False) -> DeleteReport:
        """Move a file to `.trash/` (`permanent`: remove it); the report lists the inbound
        links left dangling."""
        return _file_ops().delete(edit_index(self), path, permanent)

    def undo(self) -> UndoReport:
        """Revert the last delete or move made through reme, by any process (`UndoRefused`
        when nothing can be, or the files changed since)."""
        return _file_ops().undo_last(edit_index(self))

    def create(
        self,
        path: str,
        name: str | None = None,
        description: str | None = None,
        metadata: dict[str, Any] | None = None,
        body: str = "",
    ) -> Path:
        """Write a new note and index it (its frontmatter: `edit.file_ops.new_note_fields`)."""
        return _file_ops().create(edit_index(self), path, name, description, metadata, body)

    def make_folder(self, path: str) -> str:
        """Make an empty folder (a new note's path rules apply); its normalised path."""
        from reme_core.edit.new_folder import make_folder

        return make_folder(edit_index(self), path)

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
        from reme_core.edit.write import write

        return write(edit_index(self), path, content, name, description, metadata)


def _file_ops() -> ModuleType:
    """`reme_core.edit.file_ops`, imported when first needed (see the imports above)."""
    from reme_core.edit import file_ops

    return file_ops
