"""Links as columns: parallel int arrays over one interned string table, and row groups.

Loaded and rebuilt links stay in this form (200k `FileLink` objects were a third of opening a
50k-file workspace); `Grouped` finds a key's rows, `Grouped.gather` many keys' rows at once.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from reme_core.models import FileLink


@dataclass(slots=True)
class LinkColumns:
    """Links as parallel columns, strings interned in `strings`; each source's in source order."""

    strings: Sequence[str]  # a list, or a snapshot's `JoinedStrings`
    source: np.ndarray  # int32 ids into `strings`
    target: np.ndarray
    anchor: np.ndarray
    alias: np.ndarray
    raw: np.ndarray
    line: np.ndarray  # int32
    embed: np.ndarray  # bool

    def __len__(self) -> int:
        return len(self.source)

    def link(self, i: int) -> FileLink:
        """Link `i` as an object."""
        s = self.strings
        return FileLink(
            s[self.source[i]],
            s[self.target[i]],
            s[self.anchor[i]],
            int(self.line[i]),
            s[self.alias[i]],
            bool(self.embed[i]),
            s[self.raw[i]],
        )

    def select(self, keep: np.ndarray) -> LinkColumns:
        """The links where `keep` is true (same string table)."""
        return LinkColumns(
            self.strings,
            self.source[keep],
            self.target[keep],
            self.anchor[keep],
            self.alias[keep],
            self.raw[keep],
            self.line[keep],
            self.embed[keep],
        )


class LinkColumnsBuilder:
    """Links appended as interned string ids in flat int arrays (no object per link)."""

    def __init__(self, strings: Sequence[str] = ("",)) -> None:
        """``strings`` starts the string table ("" first), e.g. that of loaded columns."""
        self._ids: dict[str, int] = dict(zip(strings, range(len(strings))))
        self._cols = [array("i") for _ in range(6)]  # source, target, anchor, alias, raw, line
        self._embed = array("b")

    def add(self, links: Iterable[tuple[str, str, str, int, str, bool, str]]) -> None:
        """Append (source, target, anchor, line, alias, embed, raw) tuples."""
        ids = self._ids
        intern = ids.setdefault
        source, target, anchor, alias, raw, lines = self._cols
        embeds = self._embed
        for src, tgt, anc, line, als, embed, rw in links:
            source.append(intern(src, len(ids)))
            target.append(intern(tgt, len(ids)))
            anchor.append(intern(anc, len(ids)))
            alias.append(intern(als, len(ids)))
            raw.append(intern(rw, len(ids)))
            lines.append(line)
            embeds.append(bool(embed))

    def add_file(self, source: str, links: Sequence[FileLink]) -> None:
        """Append one file's parsed links (as `add` would take them, without the tuples)."""
        if not links:
            return
        ids = self._ids
        intern = ids.setdefault
        sources, target, anchor, alias, raw, lines = self._cols
        sid = intern(source, len(ids))
        for link in links:
            sources.append(sid)
            target.append(intern(link.target_path, len(ids)))
            anchor.append(intern(link.target_anchor, len(ids)))
            alias.append(intern(link.alias, len(ids)))
            raw.append(intern(link.raw_target, len(ids)))
            lines.append(link.line)
            self._embed.append(link.embed)

    def add_columns(
        self,
        sources: Sequence[str],
        targets: Sequence[str],
        anchors: Sequence[str],
        lines: Sequence[int],
        aliases: Sequence[str],
        embeds: Sequence[bool],
        raws: Sequence[str],
    ) -> None:
        """Append links given as one column per field (as `add` would take them as tuples;
        a string's id may differ, its text never does)."""
        ids = self._ids
        source, target, anchor, alias, raw, line = self._cols
        for column, strings in (
            (source, sources),
            (target, targets),
            (anchor, anchors),
            (alias, aliases),
            (raw, raws),
        ):
            new = [s for s in dict.fromkeys(strings) if s not in ids]
            ids.update(zip(new, range(len(ids), len(ids) + len(new))))
            column.extend(map(ids.__getitem__, strings))
        line.extend(lines)
        self._embed.extend(map(bool, embeds))

    def finish(self) -> LinkColumns:
        """The columns of every link added; "" is string 0."""
        source, target, anchor, alias, raw, lines = (
            np.frombuffer(c, dtype=np.int32).copy() if len(c) else np.zeros(0, np.int32)
            for c in self._cols
        )
        embed = np.frombuffer(self._embed, dtype=np.int8).astype(bool)
        return LinkColumns(list(self._ids), source, target, anchor, alias, raw, lines, embed)


def link_columns(links: Iterable[tuple[str, str, str, int, str, bool, str]]) -> LinkColumns:
    """Columns of (source, target, anchor, line, alias, embed, raw) tuples; "" is string 0."""
    builder = LinkColumnsBuilder()
    builder.add(links)
    return builder.finish()


# A grouping answers this many look-ups by scanning its key column before it sorts: a cold
# search reads the links of ten hits, which costs far less than sorting 200k links.
_SCANS_BEFORE_SORT = 8


class Grouped:
    """Row numbers of `LinkColumns` grouped by one column (stable: source order kept).

    The order is made on first need: a column already grouped (links by source, as loaded)
    needs no sort, and the first few look-ups scan the column instead (`_SCANS_BEFORE_SORT`).
    """

    def __init__(self, key: np.ndarray, n_keys: int) -> None:
        self._key: np.ndarray | None = key
        self._n_keys = n_keys
        self._order: np.ndarray | None = None
        self._ptr: np.ndarray | None = None
        self._scans = 0
        self._is_ascending: bool | None = None
        self._starts: np.ndarray | None = None  # `first_rows` of an ascending key column

    @classmethod
    def from_ptr(cls, ptr: np.ndarray) -> Grouped:
        """Rows already grouped: key `k` owns rows ``ptr[k]:ptr[k + 1]`` (a CSR)."""
        grouped = cls.__new__(cls)
        grouped._key, grouped._n_keys, grouped._scans = None, len(ptr) - 1, 0
        grouped._is_ascending, grouped._starts = True, None
        grouped._order = np.arange(int(ptr[-1]) if len(ptr) else 0)
        grouped._ptr = ptr
        return grouped

    @property
    def order(self) -> np.ndarray:
        """The rows, key by key."""
        return self._sorted()[0]

    @property
    def ptr(self) -> np.ndarray:
        """Key `k` owns ``order[ptr[k]:ptr[k + 1]]``."""
        return self._sorted()[1]

    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        if self._order is None or self._ptr is None:
            key = self._key
            assert key is not None
            if len(key) < 2 or bool(np.all(key[1:] >= key[:-1])):
                order = np.arange(len(key))
            else:
                order = np.argsort(key, kind="stable")
            self._ptr = np.searchsorted(key[order], np.arange(self._n_keys + 1))
            self._order = order
        return self._order, self._ptr

    def _scanning(self) -> bool:
        if self._order is not None:
            return False
        self._scans += 1
        return self._scans <= _SCANS_BEFORE_SORT

    def rows_of(self, key: int) -> np.ndarray:
        """The rows of one key, in order. A key column already in order (a file's chunks,
        as loaded) answers by a binary search, with no grouping made at all."""
        if self._order is None and self._ascending():
            assert self._key is not None
            lo, hi = np.searchsorted(self._key, (key, key + 1)).tolist()
            return np.arange(lo, hi)
        if self._scanning():
            assert self._key is not None
            return np.flatnonzero(self._key == key)
        order, ptr = self._sorted()
        return order[ptr[key] : ptr[key + 1]]

    def _ascending(self) -> bool:
        if self._is_ascending is None:
            key = self._key
            assert key is not None
            self._is_ascending = len(key) < 2 or bool(np.all(key[1:] >= key[:-1]))
        return self._is_ascending

    def rows(self, key: int) -> list[int]:
        if self._scanning():
            assert self._key is not None
            return np.flatnonzero(self._key == key).tolist()
        order, ptr = self._sorted()
        return order[ptr[key] : ptr[key + 1]].tolist()

    def gather(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows of every key at once, each key's in order, and the position in ``keys``
        each row belongs to: one gather for a search's hits instead of one slice per hit."""
        if self._scanning():
            return self._scan_gather(np.asarray(keys))
        order, ptr = self._sorted()
        lo = ptr[keys]
        counts = ptr[keys + 1] - lo
        owner = np.repeat(np.arange(len(keys)), counts)
        starts = np.cumsum(counts) - counts
        rows = order[np.arange(len(owner)) + np.repeat(lo - starts, counts)]
        return rows, owner

    def first_rows(self, keys: np.ndarray) -> np.ndarray:
        """Each key's first row (-1 for a key with none): where the key column is in order
        (a file's chunks, as loaded) from each key's start, found once for all keys by one
        binary search (a search's look-ups, one binary search each over a column no longer
        in the processor's cache, were a tenth of its ranking at 50k files); else from one
        `gather`."""
        if self._order is None and self._ascending():
            assert self._key is not None
            if self._starts is None:
                self._starts = np.searchsorted(self._key, np.arange(self._n_keys + 1))
            lo = self._starts[keys]
            return np.where(self._starts[keys + 1] > lo, lo, -1)
        rows, owner = self.gather(keys)
        out = np.full(len(keys), -1, dtype=np.int64)
        owners, first = np.unique(owner, return_index=True)
        out[owners] = rows[first]
        return out

    def _scan_gather(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`gather` by one pass over the key column (a key given twice gets its rows twice)."""
        assert self._key is not None
        found = np.flatnonzero(np.isin(self._key, keys, kind="sort"))  # few keys: sort them
        by_key = np.argsort(keys, kind="stable")
        sorted_keys = keys[by_key]
        row_keys = self._key[found]
        lo = np.searchsorted(sorted_keys, row_keys, "left")
        counts = np.searchsorted(sorted_keys, row_keys, "right") - lo
        rows = np.repeat(found, counts)
        within = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
        owner = by_key[np.repeat(lo, counts) + within]
        at = np.lexsort((rows, owner))
        return rows[at], owner[at]
