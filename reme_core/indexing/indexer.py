"""Keeping the index fresh: diff the files against it, parse changes in a process pool,
and commit each batch in one transaction.

`Indexer` works on a `LiveIndex` (reme_core.indexing.live_index), which it is handed; the
rebuild (`--reindex`) is reme_core.indexing.rebuild.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from reme_core.errors import RemeError
from reme_core.files.paths import TOO_DEEP, regular_inside, resolve_inside, shortened
from reme_core.files.scan_ahead import ScanAhead
from reme_core.files.scanner import list_files_cached
from reme_core.files.scope import FileStat, Listing, Scope
from reme_core.files.text_decode import UNDECODABLE_NAME
from reme_core.indexing.batch_writes import RACY_MTIME, RACY_SECONDS, batch_writes, mark_racy
from reme_core.indexing.live_index import LiveIndex
from reme_core.indexing.memory_delta import MemoryDelta
from reme_core.models import FileNode, content_hash
from reme_core.parse.settings import ParseSettings
from reme_core.progress import ProgressFn, counting
from reme_core.store.database import BatchWrite, retry_busy
from reme_core.workspace_warning import Warn, WorkspaceWarning

if TYPE_CHECKING:
    from reme_core.index.memory_index import MemoryIndex

    # The parsers are imported when there is something to parse: a start-up diff that finds
    # every file unchanged (a cold search, usually) never loads them.
    from reme_core.indexing.maintenance import OptimizeReport
    from reme_core.parse.parsing import ParsedBatch

ChangeKind = Literal["added", "modified", "deleted"]
# Where a stored file came from: the watched folders, or only a rebuild's wider scope.
Origin = Literal["watch", "reindex"]
_COMMIT_ATTEMPTS = 5


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
    kind: ChangeKind
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


class _WalkSlots:
    """The slots of a walk's paths, looked up part by part as a scan ahead sends them: most
    of them while it is still walking (at 50k files the look-ups were 20 ms after it)."""

    def __init__(self, live: LiveIndex) -> None:
        self.live = live
        self._parts: dict[int, np.ndarray] = {}
        self._stats: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._looked_in: list[MemoryIndex] = []

    def look_up(self, part: Listing, offset: int) -> None:
        """A part of the walk from file ``offset`` on (offset 0 starts afresh)."""
        if offset == 0:
            self._parts.clear()
            self._stats.clear()
        self._stats[offset] = (np.asarray(part.mtimes), np.asarray(part.sizes, dtype=np.int64))
        with self.live.lock:
            self._looked_in.append(self.live.memory)
            self._parts[offset] = self.live.memory.files.slots_or_none(part.paths)

    def stats(self, disk: Listing) -> tuple[np.ndarray, np.ndarray]:
        """The walk's mtimes and sizes as arrays (made part by part as they came)."""
        parts = [self._stats[k] for k in sorted(self._stats)]
        if sum(len(m) for m, _ in parts) != len(disk.paths):
            return np.asarray(disk.mtimes), np.asarray(disk.sizes, dtype=np.int64)
        if not parts:
            return np.zeros(0), np.zeros(0, dtype=np.int64)
        return np.concatenate([m for m, _ in parts]), np.concatenate([z for _, z in parts])

    def slots(self, memory: MemoryIndex, disk: Listing) -> np.ndarray:
        """Every path's slot in ``memory`` (-1: none); looked up again if it was reloaded."""
        if any(m is not memory for m in self._looked_in):
            return memory.files.slots_or_none(disk.paths)
        parts = [self._parts[k] for k in sorted(self._parts)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


class Indexer:
    """Diffs the files against a `LiveIndex` and applies the changes, one batch at a time."""

    def __init__(
        self,
        live: LiveIndex,
        watch_scope: Scope,
        rebuild_scope: Scope,
        settings: ParseSettings,
        workers: int,
        warn: Warn,
    ) -> None:
        self.live = live
        self.root: Path = live.place.root
        self.watch_scope = watch_scope
        self.rebuild_scope = rebuild_scope
        self.settings = settings
        self.workers = workers
        self.warn = warn
        self.listeners: list[Callable[[BatchReport], None]] = []

    # -- keeping fresh ------------------------------------------------------------------------
    def diff(self, ahead: ScanAhead | None = None) -> Changes:
        """Compare the files on disk with the index (mtime and size; `apply` confirms by hash).

        ``ahead`` is a walk started before the index was loaded; a file it lacks may have been
        created (and indexed by another process) since, so such a file is looked at again.
        """
        slots_of = _WalkSlots(self.live)
        if ahead is not None:
            disk = ahead.result(slots_of.look_up)
        else:
            disk = list_files_cached(self.root, self.watch_scope)
            slots_of.look_up(disk, 0)
        for name in disk.undecodable:  # left out by the walk: no path of it can be stored
            self.warn(WorkspaceWarning("not_indexed", name, UNDECODABLE_NAME))
        for name in disk.too_deep:
            self.warn(WorkspaceWarning("not_indexed", shortened(name), TOO_DEEP))
        changes = Changes()
        with self.live.lock:  # arrays, not an object per file: 50k files in a few ms
            memory = self.live.memory
            slots = slots_of.slots(memory, disk)
            live, mtimes, sizes = memory.stat_columns()
            indexed = slots >= 0
            indexed[indexed] = live[slots[indexed]]
            seen = np.zeros(len(live), dtype=bool)
            seen[slots[indexed]] = True
            unseen = np.flatnonzero(live & ~seen).tolist()
            gone = sorted((memory.files.path(s), float(mtimes[s]), int(sizes[s])) for s in unseen)
            origins = {path: memory.files.origin(path) for path, _, _ in gone}
        at = slots[indexed]
        disk_mtimes, disk_sizes = slots_of.stats(disk)
        moved = np.zeros(len(slots), dtype=bool)
        moved[indexed] = (mtimes[at] != disk_mtimes[indexed]) | (sizes[at] != disk_sizes[indexed])
        changes.added = [disk.paths[i] for i in np.flatnonzero(~indexed).tolist()]
        changes.modified = [disk.paths[i] for i in np.flatnonzero(moved).tolist()]
        # One lstat per gone path (its folder resolved once), not a resolve of each: a store
        # with 300k rows of files that do not exist took minutes here.
        present = set(regular_inside(self.root, [path for path, _, _ in gone]))
        for path, mtime, size in gone:
            stat = None
            if path not in present:
                pass
            elif origins.get(path) == "reindex" and not self.rebuild_scope.ignores(path):
                # Taken by a rebuild from outside the watched folders: keep it while it exists.
                stat = self._stat(path) if self.rebuild_scope.covers(path) else None
            if stat is None and path in present and ahead is not None:
                stat = self._stat(path) if self.watch_scope.covers(path) else None
            if stat is None:
                changes.deleted.append(path)
            elif stat.mtime != mtime or stat.size != size:
                changes.modified.append(path)
        changes.added.sort()
        changes.modified.sort()
        return changes

    def _stat(self, relpath: str) -> FileStat | None:
        try:
            path = resolve_inside(self.root, relpath)
            st = path.stat()
        except (OSError, RuntimeError, RemeError):
            return None
        return FileStat(st.st_mtime, st.st_size) if path.is_file() else None

    def rebuilt_elsewhere(self) -> bool:
        """Whether another process rebuilt the index since this one last looked (reloading
        it now). Its copy replaced whatever this process committed while it ran, so the
        caller should diff again: the files are the truth. True once per rebuild."""
        self.live.refresh_if_changed()
        return self.live.take_rebuilt_elsewhere()

    def sync(
        self, progress: ProgressFn | None = None, ahead: ScanAhead | None = None
    ) -> BatchReport:
        """The start-up diff: bring the index up to date with the files, one transaction."""
        self.live.refresh_if_changed()
        self.live.check_attachments()  # the snapshot's, adopted at open: now, off the screen
        changes = self.diff(ahead)
        if not changes:
            return BatchReport(generation=self.live.generation)
        return self.apply(changes, progress=progress)

    def apply(
        self,
        changes: Changes,
        *,
        progress: ProgressFn | None = None,
        pool_from: int | None = None,
    ) -> BatchReport:
        """Parse changed files, commit them in one transaction, then update memory.

        ``pool_from``: parse in the process pool from this many files (None: the pool's own
        threshold, for a large job); the live watcher asks sooner, to leave the GIL to the
        process's UI."""
        with self.live.write_lock:
            report = self._apply(changes, progress, pool_from)
        if report.changes or report.touched:
            for fn in self.listeners:
                fn(report)
        return report

    def _apply(
        self, changes: Changes, progress: ProgressFn | None, pool_from: int | None
    ) -> BatchReport:
        from reme_core.parse.parsing import VANISHED

        started = time.perf_counter()
        # What another process committed first (a `write`, the MCP server) is then known as
        # it is: its file is no change to parse and commit again (nor to report twice).
        self.live.refresh_if_changed()
        candidates = sorted(set(changes.added) | set(changes.modified))
        unfit = set(candidates).difference(regular_inside(self.root, candidates))
        to_parse, touched = self._split_touched([p for p in candidates if p not in unfit])
        batches, refused = self._parse(to_parse, progress, pool_from)
        vanished = {p for p, reason in refused if reason == VANISHED}
        skipped = [(p, reason) for p, reason in refused if reason != VANISHED]
        gone = set(changes.deleted) | unfit | vanished | {p for p, _ in skipped}
        # No readers' lock here: `_commit` takes it only for the term ids and the swap.
        report = retry_busy(
            lambda: self._commit(batches, gone, skipped, touched), _COMMIT_ATTEMPTS, step=0.05
        )
        report.skipped = skipped
        report.seconds = time.perf_counter() - started
        return report

    def _commit(
        self,
        batches: Sequence[ParsedBatch],
        gone: set[str],
        skipped: list[tuple[str, str]],
        touched: list[tuple[str, float, str]],
    ) -> BatchReport:
        """One transaction. Term ids are assigned inside it, after catching up with any other
        writer, so two processes never hand out the same id for different terms.

        Readers wait only for the term ids and the swap of the memory delta (`lock`), never
        for the transaction: it runs on `LiveIndex.committing`'s connection.
        """
        from reme_core.parse.parsing import TermSpaces

        live = self.live
        with live.lock:
            live.refresh_if_changed()
            live.check_postings()  # nothing is built on postings a snapshot left unchecked
            if not (batches or skipped or touched or gone & set(live.memory.nodes)):
                return BatchReport(generation=live.generation)
        try:
            with live.committing() as store:
                with store.transaction():
                    with live.lock:  # the vocabulary grows: readers never see it half-built
                        if live.shared() and store.generation() != live.generation:
                            live.load()  # another process committed since we last looked
                        known = set(live.memory.nodes)
                        stored = _stored_as_parsed(batches, live.memory.nodes)
                        vocab = live.memory.vocab
                        writes = batch_writes(batches, TermSpaces(vocab), self.origin_of)
                        new_terms = [vocab.term(i) for i in range(live.persisted_terms, len(vocab))]
                    store.add_terms(live.persisted_terms, new_terms)
                    store.delete_files(sorted(gone))
                    for path, mtime, _ in touched:
                        store.touch_file(path, mtime)
                    results = [store.write_files(w) for w in writes]
                    store.record_skipped(skipped)
                    store.put_meta({"fingerprint": live.place.fingerprint})
                    generation = store.bump_generation()
                    changes = _changes(gone & known, writes, known, stored)
                    store.changes.record(generation, ((c.kind, c.path, c.chunks) for c in changes))
                    delta = MemoryDelta(gone & known, writes)
                with live.lock:  # committed: readers see the batch from the swap on
                    report = self._swap_in(delta, results, changes, touched)
                    report.generation = live.generation = generation
        except Exception:
            with live.lock:
                retry_busy(live.load)
            raise
        live.snapshot_soon()
        return report

    def _swap_in(
        self,
        delta: MemoryDelta,
        results: Sequence[tuple[list[int], np.ndarray]],
        changes: list[FileChange],
        touched: list[tuple[str, float, str]],
    ) -> BatchReport:
        """A committed batch into memory (caller holds `lock`): its prepared delta, and the
        new mtimes of files whose bytes did not change."""
        live = self.live
        live.persisted_terms = len(live.memory.vocab)
        delta.apply(live.memory, results, any(c.kind != "modified" for c in changes))
        report = BatchReport(changes)
        for path, mtime, digest in touched:
            node = live.memory.nodes.get(path)
            if node is not None and node.content_hash == digest:
                node.st_mtime = mtime
                report.touched.append(path)
        return report

    def _split_touched(
        self, paths: Sequence[str]
    ) -> tuple[list[str], list[tuple[str, float, str]]]:
        """Separate files whose content hash is unchanged (only their mtime moved)."""
        with self.live.lock:
            nodes = {p: self.live.memory.nodes.get(p) for p in paths}
        parse: list[str] = []
        touched: list[tuple[str, float, str]] = []
        for path in paths:
            node = nodes[path]
            mtime = self._same_content(path, node.size, node.content_hash) if node else None
            if node is None or mtime is None:
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
        if content_hash(data) != digest:
            return None
        return RACY_MTIME if time.time() - after.st_mtime < RACY_SECONDS else after.st_mtime

    def origin_of(self, path: str) -> Origin:
        """A file's stored origin: "watch" inside the watched folders, else "reindex" (kept
        while it exists, though no watcher sees it)."""
        return "watch" if self.watch_scope.covers(path) else "reindex"

    def _parse(
        self, paths: Sequence[str], progress: ProgressFn | None, pool_from: int | None = None
    ) -> tuple[list[ParsedBatch], list[tuple[str, str]]]:
        from reme_core.parse.parse_pool import POOL_THRESHOLD, parse_many

        tick = counting(progress, len(paths))
        batches = []
        for batch in parse_many(
            self.root,
            paths,
            self.settings,
            self.workers,
            tick,
            self.warn,
            pool_from=POOL_THRESHOLD if pool_from is None else pool_from,
        ):
            mark_racy(batch, time.time())
            batches.append(batch)
        return batches, [item for batch in batches for item in batch.skipped]


def _stored_as_parsed(batches: Sequence[ParsedBatch], nodes: Mapping[str, FileNode]) -> set[str]:
    """Parsed files whose bytes the index already holds: another process committed them
    between our parse and our commit (a CLI `move` the watcher also saw). Their rows are
    written again, but they are no change to report."""
    return {
        path
        for batch in batches
        for path, digest in zip(batch.parsed.paths, batch.parsed.hashes, strict=True)
        if (node := nodes.get(path)) is not None and node.content_hash == digest
    }


def _changes(
    removed: set[str], writes: Sequence[BatchWrite], known: set[str], stored: set[str]
) -> list[FileChange]:
    """What a commit does to each file, as its report says and the store's change log keeps
    (`stored`: files it rewrites with the bytes the index held already: none)."""
    out = [FileChange(path, "deleted", 0) for path in sorted(removed)]
    for write in writes:
        for path, n in zip(write.parsed.paths, write.parsed.chunk_counts, strict=True):
            if path in stored:
                continue
            kind: ChangeKind = "modified" if path in known else "added"
            out.append(FileChange(path, kind, n))
    return out
