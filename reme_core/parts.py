"""The parts a `Workspace` is built from, held behind its one private attribute.

The facade's public names are its API; the query, edit, vector and watch code reach these
parts only through the adapters of `reme_core.ports` (`read_index(ws)`, `edit_index(ws)`, …).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reme_core.index.memory_index import MemoryIndex
    from reme_core.indexing.indexer import Indexer
    from reme_core.indexing.live_index import LiveIndex
    from reme_core.store.database import Store


@dataclass(frozen=True)
class WorkspaceParts:
    """The live index (store, in-memory index, locks) and the indexer writing to it;
    replaced whole when a rebuild attaches a new live index."""

    live: LiveIndex
    indexer: Indexer

    @property
    def index(self) -> MemoryIndex:
        """The in-memory index searches answer from (read it under `lock`)."""
        return self.live.memory

    @property
    def store(self) -> Store:
        """The SQLite store of the index."""
        return self.live.store

    @property
    def lock(self) -> threading.RLock:
        """Held while reading or changing the in-memory index."""
        return self.live.lock

    @property
    def write_lock(self) -> threading.RLock:
        """One writer at a time: the indexer, a rebuild, optimize, the file operations."""
        return self.live.write_lock
