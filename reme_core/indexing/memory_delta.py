"""A committed batch's change to the in-memory index, built before the readers' lock.

The indexer builds a `MemoryDelta` from its rows while the transaction runs (the nodes, the
chunks' line arrays), and applies it under the lock after the COMMIT: readers wait for the
apply alone (one tombstoning of every replaced chunk, the adds, the relink), never for the
parsing, the rows or the disk.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from reme_core.models import FileNode

if TYPE_CHECKING:
    from reme_core.index.memory_index import MemoryIndex
    from reme_core.store.database import BatchWrite


@dataclass(frozen=True, slots=True)
class _Added:
    """One write's files as `MemoryIndex.add_files` takes them (ids come with the commit)."""

    write: BatchWrite
    nodes: list[FileNode]
    starts: np.ndarray
    ends: np.ndarray


class MemoryDelta:
    """What one batch removes and adds; `apply` puts it in (caller holds the lock)."""

    def __init__(self, removed: Iterable[str], writes: Sequence[BatchWrite]) -> None:
        self.removed = sorted(removed)
        self.added: list[_Added] = []
        for write in writes:
            files = write.parsed.files()
            chunks = [c for pf in files for c in pf.chunks]
            self.added.append(
                _Added(
                    write,
                    [pf.node for pf in files],
                    np.fromiter((c.start_line for c in chunks), np.int32, count=len(chunks)),
                    np.fromiter((c.end_line for c in chunks), np.int32, count=len(chunks)),
                )
            )

    def apply(
        self,
        index: MemoryIndex,
        results: Sequence[tuple[list[int], np.ndarray]],
        relink_all: bool,
    ) -> None:
        """Tombstone the removed and replaced files at once, add the new versions with the
        ids the commit gave them (``results``, one per write), then relink."""
        index.remove_files([*self.removed, *(n.path for a in self.added for n in a.nodes)])
        for added, (file_ids, rowids) in zip(self.added, results, strict=True):
            write = added.write
            index.add_files(
                added.nodes,
                file_ids,
                write.origins,
                write.parsed.chunk_counts,
                rowids,
                added.starts,
                added.ends,
                write.doc_ptr,
                write.term_ids,
                write.tfs,
            )
        if index.resolver is not None and relink_all:
            index.relink_all()
        else:
            index.relink(path for a in self.added for path in a.write.parsed.paths)
