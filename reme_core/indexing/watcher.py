"""The live watcher: file events -> coalesced batches -> applied off the event loop (SPEC §10).

Events only say *which* paths to look at. What happened to each is decided by the disk when the
batch is applied, so temp-file-then-rename, delete-then-recreate and bursts of writes all end as
one change per file, and a file that vanished between its event and its read is simply deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

from watchfiles import Change

from reme_core.files.scanner import scan
from reme_core.files.scope import Scope
from reme_core.indexing.indexer import BatchReport, Changes
from reme_core.indexing.notifier import Notifier, NotifierError
from reme_core.ports import Facade, Watched, watched

# Idle wake-ups of the watch loop, which look for a rebuild by another process. The first
# batch (empty, once the watches are placed) triggers a catch-up diff (or the caller's,
# `on_placed`) for anything that changed between the open and the watches being in place.
_IDLE_MS = 1000
# When neither inotify nor polling can watch the folders (a name that is not UTF-8 stops
# the first, a self-referencing symlink the second), the disk is compared by the scanner's
# walk every _IDLE_MS for this long, then watching is tried again.
_WALK_SECONDS = 30.0


def coalesce(events: Iterable[tuple[Change, str]], indexed: Iterable[str] = ()) -> Changes:
    """Reduce raw events to one change per path (SPEC §10).

    gone -> deleted; only added -> added; anything else -> modified. With events in arrival
    order, a path added and then deleted is nothing (or deleted if it was indexed). An
    unordered set (what `awatch` yields) cannot tell delete-then-recreate from create-then-
    delete, so mixed kinds are `modified` and `settle` asks the disk.
    """
    ordered = not isinstance(events, (set, frozenset))
    kinds: dict[str, list[Change]] = {}
    for change, path in events:
        kinds.setdefault(path, []).append(change)
    known = set(indexed)
    out = Changes()
    for path, seen in sorted(kinds.items()):
        distinct = set(seen)
        if distinct == {Change.deleted}:
            out.deleted.append(path)
        elif distinct == {Change.added}:
            out.added.append(path)
        elif ordered and seen[-1] == Change.deleted:
            if seen[0] != Change.added or path in known:
                out.deleted.append(path)
        else:
            out.modified.append(path)
    return out


def settle(ws: Watched, changes: Changes) -> Changes:
    """Decide each path by the disk now: files are added/modified/deleted, folders expand.

    A deleted folder deletes every indexed file below it; an added folder (moved in, checked
    out) adds every file of the watched scope inside it.
    """
    scope = ws.watch_scope
    with ws.lock:
        indexed = set(ws.index.nodes)
    real_root = os.path.realpath(ws.root)
    out: dict[str, str] = {}

    def present(rel: str) -> None:
        out[rel] = "modified" if rel in indexed else "added"

    def kept(rel: str) -> bool:  # taken by a rebuild from outside the watched folders
        return rel in indexed and ws.rebuild_scope.covers(rel)

    def absent(rel: str) -> None:
        if rel in indexed:
            out[rel] = "deleted"

    for named in sorted({*changes.added, *changes.modified, *changes.deleted}):
        rel = _inside_path(ws.root, real_root, named)
        full = ws.root / rel
        real = os.path.realpath(full)
        inside = real == real_root or real.startswith(real_root + os.sep)
        if inside and os.path.isdir(full):
            below = set(scan(ws.root, Scope((rel,), scope.suffixes)))
            for path in below:
                if scope.covers(path):
                    present(path)
            for path in _below(indexed, rel):
                if path not in below:
                    absent(path)
        elif inside and os.path.isfile(full) and (scope.covers(rel) or kept(rel)):
            present(rel)
        else:
            absent(rel)
            for path in _below(indexed, rel):
                absent(path)
    result = Changes()
    for path, kind in sorted(out.items()):
        getattr(result, kind).append(path)
    return result


def _inside_path(root: Path, real_root: str, rel: str) -> str:
    """`rel`, or the same file's path inside when `rel` passes through a symlink that leaves
    the workspace (the walk never follows one; inotify names the workspace's own files through
    a link to a parent folder, e.g. `up/vault/c.md` for `c.md`)."""
    parts = rel.split("/")
    for i in range(1, len(parts)):
        link = root.joinpath(*parts[:i])
        if not link.is_symlink():
            continue
        target = os.path.realpath(link)
        if target == real_root or target.startswith(real_root + os.sep):
            continue
        real = os.path.realpath(root / rel)
        if real.startswith(real_root + os.sep):
            return Path(os.path.relpath(real, real_root)).as_posix()
        return rel
    return rel


def _below(indexed: Iterable[str], folder: str) -> list[str]:
    prefix = folder.rstrip("/") + "/"
    return [p for p in indexed if p.startswith(prefix)]


class WatchFilter:
    """Keeps events of the watched scope (and folders that may hold it); drops §1's ignores."""

    def __init__(self, root: Path, scope: Scope) -> None:
        self.root = str(root)
        self.scope = scope

    def relative(self, path: str) -> str | None:
        """The workspace-relative POSIX path of an event, or None outside the workspace."""
        if path == self.root or not path.startswith(self.root + os.sep):
            return None
        return path[len(self.root) + 1 :].replace(os.sep, "/")

    def __call__(self, change: Change, path: str) -> bool:
        rel = self.relative(path)
        if rel is None or self.scope.ignores(rel):
            return False
        if rel.endswith(self.scope.suffixes):
            return self.scope.covers(rel)
        # Not an indexed suffix: it may be a folder (created, moved, deleted) that holds some.
        return any(
            d == "" or rel == d or rel.startswith(d + "/") or d.startswith(rel + "/")
            for d in self.scope.dirs
        )


def watch_paths(ws: Watched) -> list[Path]:
    """The watched folders; the root itself when one is missing (so its creation is seen)."""
    dirs = [ws.root / d if d else ws.root for d in ws.watch_scope.dirs]
    if all(d.is_dir() for d in dirs):
        return dirs
    return [ws.root]


def needs_optimize(ws: Watched) -> bool:
    """Whether tombstones passed `optimize_tombstone_ratio` of all BM25 documents."""
    with ws.lock:
        bm25 = ws.index.bm25
        total, tombstones = bm25.n_total, bm25.n_tombstones
    return total > 0 and tombstones / total > ws.config.optimize_tombstone_ratio


async def watch_workspace(
    workspace: Facade,
    *,
    stop_event: asyncio.Event | None = None,
    quiet_ms: int | None = None,
    force_polling: bool | None = None,
    on_placed: Callable[[], object] | None = None,
) -> AsyncIterator[BatchReport]:
    """Keep `ws` fresh: yield one BatchReport per applied batch until `stop_event` is set.

    Parsing and the SQLite commit run in a worker thread, so the event loop (the TUI) never
    blocks. Compaction runs after a batch when tombstones pass the configured ratio.
    `on_placed` is called once the first watches are in place (or could not be placed),
    instead of the watcher's own catch-up diff: the caller catches up then (the browser
    does, with a progress bar), and the disk is walked once at start, not twice.
    """
    ws = watched(workspace)
    quiet = ws.config.watch.quiet_ms if quiet_ms is None else quiet_ms
    chosen = ws.config.watch.force_polling if force_polling is None else force_polling
    polling = chosen
    stop = stop_event if stop_event is not None else asyncio.Event()
    flt = WatchFilter(ws.root, ws.watch_scope)
    while not stop.is_set():
        paths = watch_paths(ws)
        catch_up = on_placed is None
        unnameable: list[BaseException] = []
        events = _notified(paths, flt, quiet, polling, unnameable)
        async with contextlib.aclosing(events):
            async for raw in _ticking(events, _IDLE_MS / 1000, stop):
                if on_placed is not None:  # the first batch: the watches are in place
                    on_placed()
                    on_placed = None
                rel = [(c, r) for c, p in raw if (r := flt.relative(p)) is not None]
                changes = coalesce(set(rel))
                # At the start, and after a rebuild by another process (whose copy replaced
                # what this one committed meanwhile), the disk is compared in full.
                if catch_up or await asyncio.to_thread(ws.rebuilt_elsewhere):
                    changes = _merge(changes, await asyncio.to_thread(ws.diff))
                    catch_up = False
                if changes:
                    report = await asyncio.to_thread(_apply, ws, changes)
                    if report.changes or report.skipped:
                        yield report
                if watch_paths(ws) != paths:
                    break  # a watched folder appeared or vanished: watch again, then catch up
        if unnameable and on_placed is not None:  # no watches to wait for: catch up now
            on_placed()
            on_placed = None
        if unnameable and not polling and _cannot_decode(unnameable[0]):
            polling = True  # inotify gives up on any name that is not UTF-8; polling does not
        elif unnameable:  # no way of watching works here now: walk, then try again
            async for report in _walking(ws, stop, _WALK_SECONDS):
                yield report
            polling = chosen
        if unnameable:
            await asyncio.sleep(quiet / 1000)


async def _walking(ws: Watched, stop: asyncio.Event, seconds: float) -> AsyncIterator[BatchReport]:
    """Compare the disk with the index by walks (the scanner leaves out what it cannot name
    or follow) every _IDLE_MS, for `seconds` or until `stop` is set."""
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while not stop.is_set() and loop.time() < until:
        changes = await asyncio.to_thread(ws.diff)
        if changes:
            report = await asyncio.to_thread(_apply, ws, changes)
            if report.changes or report.skipped:
                yield report
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), _IDLE_MS / 1000)


async def _ticking(
    events: AsyncIterator[set[tuple[Change, str]]], seconds: float, stop: asyncio.Event
) -> AsyncIterator[set[tuple[Change, str]]]:
    """The watcher's batches, and an empty one whenever `seconds` pass without one after the
    first (the watches are in place by then), until `stop` is set.

    The notifier wakes the loop only when an event passes the filter: events the filter drops
    (the state folder's own writes, another process's rebuild among them) would starve the
    idle checks for as long as they keep coming.
    """
    pending: asyncio.Future[set[tuple[Change, str]]] = asyncio.ensure_future(anext(events))
    stopping: asyncio.Future[object] = asyncio.ensure_future(stop.wait())
    timeout: float | None = None
    try:
        while True:
            either: set[asyncio.Future[Any]] = {pending, stopping}
            done, _ = await asyncio.wait(
                either, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if stopping in done:
                return
            if not done:
                yield set()
                continue
            try:
                raw = pending.result()
            except StopAsyncIteration:
                return
            pending = asyncio.ensure_future(anext(events))
            timeout = seconds
            yield raw
    finally:
        stopping.cancel()
        pending.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pending  # the generator under it must be idle before it is closed


async def _notified(
    paths: list[Path], flt: WatchFilter, quiet: int, polling: bool, failed: list[BaseException]
) -> AsyncGenerator[set[tuple[Change, str]], None]:
    """The notifier's batches that pass the filter; first an empty one, once its watches
    are in place (the catch-up diff follows it, so nothing changed before is missed).

    They end when the notifier fails (the error in `failed`): a path it cannot decode (a file
    name that is not UTF-8), a symlink loop or unreadable folder polling trips on, a child
    that could not start. The caller then watches again (or walks) and catches up by a
    diff, which leaves such names out with a warning."""
    notifier: Notifier | None = None
    try:
        notifier = await Notifier.start(
            paths, debounce=max(1600, 4 * quiet), step=max(1, quiet), force_polling=polling
        )
        await notifier.placed()
        yield set()
        async for raw in notifier.batches():
            changes = {(kind, path) for c, path in raw if flt(kind := Change(c), path)}
            if changes:
                yield changes
    except Exception as exc:
        failed.append(exc)
    finally:
        if notifier is not None:
            notifier.close()


def _cannot_decode(exc: BaseException) -> bool:
    # watchfiles does not export its Rust error type: known by name, not by a private import.
    return (
        isinstance(exc, NotifierError)
        and exc.kind == "WatchfilesRustInternalError"
        and "decode" in str(exc)
    )


def _apply(ws: Watched, changes: Changes) -> BatchReport:
    from reme_core.parse.parse_pool import WATCH_POOL_FROM

    report = ws.apply(settle(ws, changes), pool_from=WATCH_POOL_FROM)
    if report.changes and needs_optimize(ws):
        report.optimized = ws.optimize()
    return report


def _merge(a: Changes, b: Changes) -> Changes:
    return Changes(
        sorted({*a.added, *b.added}),
        sorted({*a.modified, *b.modified}),
        sorted({*a.deleted, *b.deleted}),
    )
