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

    strings: list[str]
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


class Grouped:
    """Row numbers of `LinkColumns` grouped by one column (stable: source order kept)."""

    def __init__(self, key: np.ndarray, n_keys: int) -> None:
        self.order = np.argsort(key, kind="stable")
        self.ptr = np.searchsorted(key[self.order], np.arange(n_keys + 1))

    @classmethod
    def from_ptr(cls, ptr: np.ndarray) -> Grouped:
        """Rows already grouped: key `k` owns rows ``ptr[k]:ptr[k + 1]`` (a CSR)."""
        grouped = cls.__new__(cls)
        grouped.order = np.arange(int(ptr[-1]) if len(ptr) else 0)
        grouped.ptr = ptr
        return grouped

    def rows(self, key: int) -> list[int]:
        return self.order[self.ptr[key] : self.ptr[key + 1]].tolist()

    def gather(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows of every key at once, each key's in order, and the position in ``keys``
        each row belongs to: one gather for a search's hits instead of one slice per hit."""
        lo = self.ptr[keys]
        counts = self.ptr[keys + 1] - lo
        owner = np.repeat(np.arange(len(keys)), counts)
        starts = np.cumsum(counts) - counts
        rows = self.order[np.arange(len(owner)) + np.repeat(lo - starts, counts)]
        return rows, owner
