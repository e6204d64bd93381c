"""The file table: one slot per path ever indexed in this process, with its id, date and origin.

A slot is a file's number in the per-file numpy columns (dates here; the name field, filters
and the chunk table's slot column elsewhere). Slots are only appended: a removed file keeps its
slot (its id and origin go, so it is not live), and a file indexed again gets its old slot back.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from itertools import repeat

import numpy as np

from reme_core.dates import NO_DATE, date_ordinal
from reme_core.index.growth import grown
from reme_core.index.index_columns import FileColumns


class FileTable:
    """Path <-> slot, and per slot the date; per live path its store id and origin."""

    def __init__(self) -> None:
        self._slot_of: dict[str, int] = {}
        self._paths: list[str] = []
        self._dates = np.zeros(0, dtype=np.int32)  # capacity grows by doubling
        self._id_dict: dict[str, int] = {}
        self._origin_dict: dict[str, str] = {}
        # The loaded ids and origins, slot by slot, until a look-up needs them by path: a
        # cold search never does (two 50k-entry dicts were a tenth of its load).
        self._loaded: tuple[np.ndarray, Sequence[str]] | None = None
        self._sorted: tuple[int, list[str], np.ndarray] | None = None  # (slots, paths, order)

    @classmethod
    def from_columns(cls, files: FileColumns) -> FileTable:
        """The table of loaded columns, slot i for row i; ValueError for a repeated path."""
        table = cls()
        table._paths = list(files.paths)
        n = len(table._paths)
        table._slot_of = dict(zip(table._paths, range(n)))
        if len(table._slot_of) != n:
            raise ValueError("duplicate paths")
        table._dates = np.asarray(files.dates, dtype=np.int32).copy()
        table._loaded = (np.asarray(files.ids, dtype=np.int64), files.origins)
        return table

    @property
    def _ids(self) -> dict[str, int]:
        """Live path -> store id (made from the loaded columns on first use)."""
        if self._loaded is not None:
            self._by_path()
        return self._id_dict

    @property
    def _origins(self) -> dict[str, str]:
        """Live path -> origin (made from the loaded columns on first use)."""
        if self._loaded is not None:
            self._by_path()
        return self._origin_dict

    def _by_path(self) -> None:
        assert self._loaded is not None
        ids, origins = self._loaded
        self._loaded = None
        n = len(ids)
        self._id_dict = dict(zip(self._paths[:n], ids.tolist()))
        self._origin_dict = dict(zip(self._paths[:n], origins))

    # -- one file -----------------------------------------------------------------------------
    def __len__(self) -> int:
        """The number of slots (live or not): the length of every per-slot mask."""
        return len(self._paths)

    def slot(self, path: str) -> int | None:
        """The path's slot, None when it never had one."""
        return self._slot_of.get(path)

    def path(self, slot: int) -> str:
        return self._paths[slot]

    def id(self, path: str) -> int | None:
        """The store's file id of a live path, None for a path not indexed now."""
        return self._ids.get(path)

    def origin(self, path: str) -> str | None:
        return self._origins.get(path)

    def put(self, path: str, file_id: int, origin: str, date: int) -> int:
        """Make ``path`` live with this id, origin and date ordinal; its slot (new ones last)."""
        self._ids[path] = file_id
        self._origins[path] = origin
        slot = self._slot_of.get(path)
        if slot is None:
            slot = self._slot_of[path] = len(self._paths)
            self._paths.append(path)
            if len(self._paths) > len(self._dates):  # grow by doubling, not per file
                self._dates = grown(self._dates, len(self._paths), NO_DATE)
        self._dates[slot] = date
        return slot

    def remove(self, path: str) -> None:
        """The path is no longer indexed (its slot stays, not live)."""
        self._ids.pop(path, None)
        self._origins.pop(path, None)

    # -- many files ---------------------------------------------------------------------------
    @property
    def paths(self) -> Sequence[str]:
        """The path of each slot, in slot order (read only)."""
        return self._paths

    def slots(self, paths: Sequence[str]) -> np.ndarray:
        """The slots of paths that have one (KeyError otherwise), as int64."""
        slot_of = self._slot_of
        return np.fromiter((slot_of[p] for p in paths), np.int64, count=len(paths))

    def slots_or_none(self, paths: Sequence[str]) -> np.ndarray:
        """The slots of ``paths`` as int64, -1 for a path that never had one."""
        get = self._slot_of.get
        return np.fromiter(map(get, paths, repeat(-1)), np.int64, count=len(paths))

    def origins(self) -> dict[str, str]:
        """Each live path's origin (a copy: the caller may read it outside the index lock)."""
        return dict(self._origins)

    def live_by_id(self) -> list[str]:
        """The live paths in store id order (the order a load of the stored rows gives)."""
        return sorted(self._ids, key=self._ids.__getitem__)

    def ids(self, paths: Iterable[str]) -> np.ndarray:
        """The store ids of live paths (KeyError otherwise), as int64."""
        return np.fromiter((self._ids[p] for p in paths), np.int64)

    def origins_of(self, paths: Iterable[str]) -> list[str]:
        return [self._origins[p] for p in paths]

    def dates_of(self, paths: Sequence[str]) -> np.ndarray:
        """The date ordinals of paths that have a slot, as int32."""
        return self._dates[self.slots(paths)]

    def slot_ids(self) -> np.ndarray:
        """The store id of each slot's file, -1 where it is not live."""
        ids = self._ids
        return np.fromiter((ids.get(p, -1) for p in self._paths), np.int64)

    def slots_of_ids(self, file_ids: np.ndarray) -> np.ndarray:
        """Each store id's slot, for loaded ids (ascending, as `check_columns` makes sure,
        so the dense map is bounded); ValueError for an id of no file."""
        if self._loaded is not None:  # as loaded: row i is slot i
            ids, slots = self._loaded[0], np.arange(len(self._loaded[0]))
        else:
            ids = np.fromiter(self._ids.values(), np.int64, count=len(self._ids))
            slots = self.slots(list(self._ids))
        slot_of_file = np.full(int(ids.max()) + 1 if len(ids) else 1, -1, dtype=np.int32)
        slot_of_file[ids] = slots
        file_ids = np.asarray(file_ids, dtype=np.int64)
        if len(file_ids) and (file_ids.min() < 0 or file_ids.max() >= len(slot_of_file)):
            raise ValueError("chunks of unknown files")
        slots = slot_of_file[file_ids]
        if len(slots) and slots.min() < 0:
            raise ValueError("chunks of unknown files")
        return slots

    # -- masks over slots ---------------------------------------------------------------------
    def date_mask(self, start: str | None, end: str | None, strict: bool) -> np.ndarray:
        """Bool per slot: its date is within [start, end] (`YYYY-MM-DD`, either may be None);
        an undated file passes unless ``strict``."""
        n = len(self._paths)
        dates = self._dates[:n]
        lo = date_ordinal(start) if start else None
        hi = date_ordinal(end) if end else None
        undated = dates == NO_DATE
        ok = np.ones(n, dtype=bool)
        if lo is not None:
            ok &= dates >= lo
        if hi is not None:
            ok &= dates <= hi
        return ok & ~undated if strict else ok | undated

    def prefix_mask(self, prefixes: Sequence[str]) -> np.ndarray:
        """Bool per slot: its path starts with one of ``prefixes`` (bisect, no scan)."""
        paths, order = self._sorted_paths()
        mask = np.zeros(len(self._paths), dtype=bool)
        for prefix in prefixes:
            lo = bisect_left(paths, prefix)
            after = _after_prefix(prefix)
            hi = len(paths) if after is None else bisect_left(paths, after)
            mask[order[lo:hi]] = True
        return mask

    def _sorted_paths(self) -> tuple[list[str], np.ndarray]:
        """Every slot's path sorted, and the slot of each; kept until a slot is added."""
        n = len(self._paths)
        if self._sorted is None or self._sorted[0] != n:
            order = sorted(range(n), key=self._paths.__getitem__)
            paths = [self._paths[i] for i in order]
            self._sorted = (n, paths, np.asarray(order, dtype=np.int64))
        return self._sorted[1], self._sorted[2]


def _after_prefix(prefix: str) -> str | None:
    """The least string above every string that starts with ``prefix`` (None: there is none)."""
    stem = prefix.rstrip("\U0010ffff")
    return stem[:-1] + chr(ord(stem[-1]) + 1) if stem else None
