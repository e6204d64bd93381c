"""Every change committed to a workspace's index by any process, once, in commit order.

A process that watches a workspace sees the file events, but another process (an open
browser, the MCP server, `reme-tui write`) may have committed the change first: its own
apply then finds nothing to do. The store's change log (reme_core.store.change_rows) holds
what each commit did; `ChangeFeed` reads it from the generation it last saw on. A rebuild
by another process replaces the log (`Rebuilt`); a reader that fell further behind than the
log keeps learns of it (`Gap`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby
from typing import cast

from reme_core.indexing.indexer import ChangeKind, FileChange
from reme_core.indexing.live_index import REBUILD_KEY, LiveIndex
from reme_core.store.change_rows import KEPT_GENERATIONS
from reme_core.store.database import retry_busy


@dataclass(frozen=True, slots=True)
class Committed:
    """One commit's file changes: its generation and the process that made it."""

    generation: int
    pid: int
    changes: list[FileChange] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """Another process rebuilt the index: the feed goes on from the rebuilt one's generation
    (this process's watcher then compares the files in full and commits what differs)."""

    generation: int


@dataclass(frozen=True, slots=True)
class Gap:
    """Commits after ``after`` up to ``upto`` may have left the log (read too late)."""

    after: int
    upto: int


FeedEvent = Committed | Rebuilt | Gap


class ChangeFeed:
    """Reads the changes committed since the last read (the first: since it was made)."""

    def __init__(self, live: LiveIndex) -> None:
        self.live = live
        self.seen, self._rebuild = retry_busy(self._position)

    def _position(self) -> tuple[int, str]:
        with self.live.lock:
            store = self.live.store
            with store.reading():
                return store.generation(), store.meta(REBUILD_KEY)

    def poll(self) -> list[FeedEvent]:
        """The events since the last poll, oldest first."""
        return retry_busy(self._read)

    def _read(self) -> list[FeedEvent]:
        with self.live.lock:
            store = self.live.store
            with store.reading():
                generation, rebuild = store.generation(), store.meta(REBUILD_KEY)
                if rebuild != self._rebuild:
                    self.seen, self._rebuild = generation, rebuild
                    return [Rebuilt(generation)]
                if generation <= self.seen:
                    return []
                rows = store.changes.since(self.seen)
        events: list[FeedEvent] = []
        if generation - self.seen > KEPT_GENERATIONS:  # a commit since may have pruned some
            events.append(Gap(self.seen, generation - KEPT_GENERATIONS))
        for (gen, pid), group in groupby(rows, key=lambda r: (r[0], r[1])):
            changes = [  # the kinds are the ones `Indexer` records
                FileChange(path, cast("ChangeKind", kind), chunks)
                for _, _, kind, path, chunks in group
            ]
            events.append(Committed(gen, pid, changes))
        self.seen = generation
        return events
