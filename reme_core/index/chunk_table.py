"""The chunk table: per BM25 doc id, the chunk's store rowid, file slot and line range.

Columns are numpy arrays indexed by doc id, so a search gathers every hit's place in one
fancy-index per column (numpy scalar reads cost more than the rest of a search). A file's
removal tombstones its docs in BM25 and drops them from `docs_of`; their rows here stay as
they were, so a stale doc id (a vector hit from before the removal) still reads in bounds and
finds no stored text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

import numpy as np

from reme_core.index.growth import grown
from reme_core.index.link_columns import Grouped

_NO_DOCS = np.empty(0, dtype=np.int64)


class ChunkPlaces(NamedTuple):
    """Where some chunks are, one entry per doc asked for (plain ints, ready to use)."""

    rowids: list[int]
    slots: list[int]
    starts: list[int]
    ends: list[int]


class ChunkColumns(NamedTuple):
    """The same, as numpy columns (for snapshots)."""

    rowids: np.ndarray  # int64
    slots: np.ndarray  # int32
    starts: np.ndarray  # int32
    ends: np.ndarray  # int32


class ChunkTable:
    """Per doc id: rowid, file slot, start and end line; and each file's doc ids."""

    def __init__(self) -> None:
        # capacity grows by doubling; rows past the last doc: slot -1
        self._rowid = np.zeros(0, dtype=np.int64)
        self._slot = np.zeros(0, dtype=np.int32)
        self._start = np.zeros(0, dtype=np.int32)
        self._end = np.zeros(0, dtype=np.int32)
        self._docs = FileDocs()

    @classmethod
    def from_columns(
        cls,
        paths: Sequence[str],
        slots: np.ndarray,
        rowids: np.ndarray,
        starts: np.ndarray,
        ends: np.ndarray,
        slot_of: Callable[[str], int | None],
    ) -> ChunkTable:
        """The table of loaded chunks, doc i for row i; ``paths`` are the file slots' paths,
        ``slot_of`` the file table's look-up of a path's slot."""
        table = cls()
        table._slot = np.asarray(slots, dtype=np.int32)
        table._rowid = np.asarray(rowids, dtype=np.int64)
        table._start = np.asarray(starts, dtype=np.int32)
        table._end = np.asarray(ends, dtype=np.int32)
        table._docs = FileDocs(paths, table._slot, slot_of)
        return table

    def ends_within(self, sizes: np.ndarray) -> bool:
        """Every chunk ends at most one line past its file's last (``sizes`` per slot)."""
        return not (len(self._end) and bool(np.any(self._end > sizes[self._slot] + 1)))

    # -- lookups ------------------------------------------------------------------------------
    def places(self, docs: np.ndarray) -> ChunkPlaces:
        """The rowid, slot and line range of each doc: one gather per column."""
        return ChunkPlaces(
            self._rowid[docs].tolist(),
            self._slot[docs].tolist(),
            self._start[docs].tolist(),
            self._end[docs].tolist(),
        )

    def columns(self, docs: np.ndarray) -> ChunkColumns:
        """The rows of ``docs`` as numpy columns."""
        return ChunkColumns(self._rowid[docs], self._slot[docs], self._start[docs], self._end[docs])

    def rowids(self, docs: np.ndarray | Sequence[int]) -> np.ndarray:
        """The store rowid of each doc."""
        return self._rowid[docs]

    def slots(self, docs: np.ndarray) -> np.ndarray:
        """The file slot of each doc."""
        return self._slot[docs]

    def doc_mask(self, slot_mask: np.ndarray) -> np.ndarray:
        """Bool per doc id (the table's capacity): its file's slot is set in ``slot_mask``."""
        mask = np.zeros(len(self._slot), dtype=bool)
        valid = self._slot >= 0
        mask[valid] = slot_mask[self._slot[valid]]
        return mask

    def docs_of(self, path: str) -> np.ndarray | None:
        """The doc ids of a live file's chunks, in order; None for a file with none."""
        return self._docs.get(path)

    def first_docs(self, slots: np.ndarray, path_of: Callable[[int], str]) -> np.ndarray:
        """Each file's first doc id (-1 for a file with none), by file slot (``path_of``:
        the file table's path of a slot): a search adds a name match to the first chunk of
        each note it did not rank otherwise (found by slot: a path per note was most of the
        name fields' share)."""
        return self._docs.first(slots, path_of)

    def live_docs(self) -> np.ndarray:
        """Every live doc id, ascending."""
        parts = [d for d in self._docs.values() if len(d)]
        return np.sort(np.concatenate(parts)).astype(np.int64) if parts else _NO_DOCS

    # -- changes ------------------------------------------------------------------------------
    def add(
        self,
        paths: Sequence[str],
        counts: Sequence[int],
        docs: np.ndarray,
        file_slots: np.ndarray,
        rowids: np.ndarray,
        starts: np.ndarray,
        ends: np.ndarray,
    ) -> None:
        """New docs of files (``counts`` chunks each, in file order; ``docs`` ascending)."""
        bounds = np.zeros(len(paths) + 1, dtype=np.int64)
        np.cumsum(counts, out=bounds[1:])
        for path, a, z in zip(paths, bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            if z > a:
                self._docs[path] = docs[a:z]
        need = int(docs[-1]) + 1
        if need > len(self._rowid):
            self._rowid = grown(self._rowid, need, 0)
            self._slot = grown(self._slot, need, -1)
            self._start = grown(self._start, need, 0)
            self._end = grown(self._end, need, 0)
        self._rowid[docs] = rowids
        self._slot[docs] = np.repeat(file_slots, counts)
        self._start[docs] = starts
        self._end[docs] = ends

    def remove_file(self, path: str) -> np.ndarray | None:
        """Forget a file's docs (their rows stay); the docs it had, for BM25 to tombstone."""
        return self._docs.pop(path)


class FileDocs:
    """BM25 doc ids of each file's chunks; the loaded ones stay one sorted array until changed.

    A loaded file's docs are found by its slot (the file table's look-up, ``slot_of``), not
    by a dict of its own: a cold search asks for a few dozen of them, and a 50k-entry dict
    and the grouping of every doc were a tenth of its time.
    """

    def __init__(
        self,
        paths: Sequence[str] = (),
        doc_slot: np.ndarray | None = None,
        slot_of: Callable[[str], int | None] | None = None,
    ) -> None:
        self._grouped: Grouped | None = None
        self._paths = paths  # the loaded files, slot by slot
        self._slot_of = slot_of
        if doc_slot is not None and len(doc_slot) and slot_of is not None:
            self._grouped = Grouped(doc_slot, len(paths))
        self._gone: set[str] = set()  # loaded files removed or given docs of their own
        self._own: dict[str, np.ndarray] = {}

    def get(self, path: str) -> np.ndarray | None:
        docs = self._own.get(path)
        if docs is not None or self._grouped is None or path in self._gone:
            return docs
        assert self._slot_of is not None
        slot = self._slot_of(path)
        if slot is None or slot >= len(self._paths):
            return None
        docs = self._grouped.rows_of(slot)
        return docs if len(docs) else None

    def first(self, slots: np.ndarray, path_of: Callable[[int], str]) -> np.ndarray:
        """`get(path)[0]` of each slot's path (-1: none), the loaded files' in one gather; a
        loaded file not changed since is found by its slot (its row in the loaded columns)."""
        slots = np.asarray(slots, dtype=np.int64)
        out = np.full(len(slots), -1, dtype=np.int64)
        n = len(self._paths) if self._grouped is not None else 0
        loaded = slots < n
        if self._gone and loaded.any():
            at = np.flatnonzero(loaded)
            paths, gone = self._paths, self._gone
            moved = [paths[slot] in gone for slot in slots[at].tolist()]
            loaded[at[np.asarray(moved, dtype=bool)]] = False
        if self._grouped is not None and loaded.any():
            out[loaded] = self._grouped.first_rows(slots[loaded])
        for i in np.flatnonzero(~loaded).tolist():
            docs = self._own.get(path_of(int(slots[i])))
            if docs is not None and len(docs):
                out[i] = int(docs[0])
        return out

    def pop(self, path: str) -> np.ndarray | None:
        docs = self.get(path)
        self._own.pop(path, None)
        self._gone.add(path)
        return docs

    def __setitem__(self, path: str, docs: np.ndarray) -> None:
        self._gone.add(path)
        self._own[path] = docs

    def items(self) -> Iterator[tuple[str, np.ndarray]]:
        if self._grouped is not None:
            order, ptr = self._grouped.order, self._grouped.ptr
            for slot in np.flatnonzero(np.diff(ptr)).tolist():
                path = self._paths[slot]
                if path not in self._gone:
                    yield path, order[ptr[slot] : ptr[slot + 1]]
        yield from list(self._own.items())

    def values(self) -> Iterator[np.ndarray]:
        return (docs for _, docs in self.items())
