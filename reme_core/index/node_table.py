"""The node table of the in-memory index: nodes built from the loaded columns on first access."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from reme_core.index.index_columns import FileColumns
from reme_core.index.link_columns import Grouped, LinkColumns, LinkColumnsBuilder
from reme_core.index.stored_text import PickedRows
from reme_core.models import FileNode
from reme_core.text.joined_strings import as_list


class NodeTable(Mapping[str, FileNode]):
    """Indexed files by path; a `FileNode` is built from the loaded columns on first access."""

    def __init__(self, files: FileColumns | None = None, links: LinkColumns | None = None) -> None:
        self._files = files
        self._links = links
        self._base: dict[str, int] = {}
        # string id of each link string and the links grouped by source: made when a node is
        # first built (an open that only searches never needs them)
        self._by_source: tuple[dict[str, int], Grouped] | None = None
        if files is not None:
            self._base = dict(zip(files.paths, range(len(files.paths))))
        # The live paths in insertion order, like a dict's keys; None while they are exactly
        # the loaded ones (`_base`'s keys): a second 50k-entry dict is made at the first change.
        self._live: dict[str, None] | None = None
        self._built: dict[str, FileNode] = {}
        # (name, description) of paths labelled from the loaded columns, until `put` or
        # `discard` changes them: link expansion labels ~180 neighbours a search on notes
        # with 4-20 links, mostly the same notes again
        self._labels: dict[str, tuple[str, str]] = {}

    def __getitem__(self, path: str) -> FileNode:
        node = self._built.get(path)
        if node is None:
            if path not in self:
                raise KeyError(path)
            node = self._built[path] = self._build(path)
        return node

    def __contains__(self, path: object) -> bool:
        return path in (self._base if self._live is None else self._live)

    def __iter__(self) -> Iterator[str]:
        return iter(self._base if self._live is None else self._live)

    def __len__(self) -> int:
        return len(self._base if self._live is None else self._live)

    def put(self, node: FileNode) -> None:
        """Add or replace a file's node."""
        self._changing()[node.path] = None
        self._built[node.path] = node
        self._labels.pop(node.path, None)

    def discard(self, path: str) -> None:
        """Forget a file (its columns are never used again)."""
        self._changing().pop(path, None)
        self._built.pop(path, None)
        self._base.pop(path, None)
        self._labels.pop(path, None)

    def _changing(self) -> dict[str, None]:
        """The live paths as a dict of their own, to be changed."""
        if self._live is None:
            self._live = dict.fromkeys(self._base)
        return self._live

    def frontmatter(self, path: str) -> dict[str, Any]:
        """A live file's frontmatter without building its node."""
        node = self._built.get(path)
        if node is not None or self._files is None:
            return node.frontmatter if node is not None else {}
        return self._files.frontmatter[self._base[path]]

    def inline_tags(self, path: str) -> list[str]:
        """A live file's inline `#tags` without building its node."""
        node = self._built.get(path)
        if node is not None or self._files is None:
            return node.inline_tags if node is not None else []
        tags = self._files.tags
        return tags[self._base[path]] if tags else []

    def labels(self, paths: Sequence[str]) -> list[tuple[str, str] | None]:
        """(name, description) of each path as its `FileNode` gives them, None for a path
        not indexed, without building a node: link expansion labels every neighbour of
        every hit, so the labels met before come from one look-up in C."""
        memo = self._labels
        out: list[tuple[str, str] | None] = list(map(memo.get, paths))
        if None not in out:
            return out
        built, base = self._built, self._base
        fms = self._files.frontmatter if self._files is not None else []
        for k, label in enumerate(out):
            if label is not None:
                continue
            path = paths[k]
            node = built.get(path)
            if node is not None:
                out[k] = (node.name, node.description)
                continue
            i = base.get(path)  # loaded, not changed since (`put` and `discard` keep it so)
            if i is None:
                continue
            fm = fms[i]
            name, description = fm.get("name"), fm.get("description")
            out[k] = memo[path] = (
                "" if name is None else str(name),
                "" if description is None else str(description),
            )
        return out

    def stat_columns(
        self, slot_of: Callable[[str], int | None], n_slots: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(live, mtime, size) per file slot, what the start-up diff compares. A loaded file's
        slot is its row in the loaded columns (`FileTable.from_columns`), so those are copied
        as arrays; only changed files are looked up."""
        live = np.zeros(n_slots, dtype=bool)
        mtimes = np.full(n_slots, np.nan)
        sizes = np.full(n_slots, -1, dtype=np.int64)
        if self._files is not None and self._base:
            rows = np.fromiter(self._base.values(), np.int64, len(self._base))
            live[rows] = True
            mtimes[rows] = np.asarray(self._files.mtimes)[rows]
            sizes[rows] = np.asarray(self._files.sizes)[rows]
        for path, node in self._built.items():
            slot = slot_of(path)
            if slot is not None:
                live[slot], mtimes[slot], sizes[slot] = True, node.st_mtime, node.size
        return live, mtimes, sizes

    def columns(
        self, paths: Sequence[str], origins: Sequence[str], dates: np.ndarray
    ) -> tuple[FileColumns, LinkColumns]:
        """The file columns of live ``paths`` (in that order) and their literal links, each
        file's in source order: loaded files stay columns, changed ones come from their nodes.
        """
        mtimes, sizes, hashes, fms, warns, tags = self._file_values(paths)
        return (
            FileColumns(
                ids=np.zeros(0, np.int64),
                paths=list(paths),
                mtimes=np.asarray(mtimes, dtype=np.float64),
                sizes=np.asarray(sizes, dtype=np.int64),
                hashes=hashes,
                frontmatter=fms,
                warnings=warns,
                origins=list(origins),
                dates=np.asarray(dates, dtype=np.int32),
                tags=tags,
            ),
            self._link_columns(paths),
        )

    def _file_values(self, paths: Sequence[str]) -> tuple[Sequence[Any], ...]:
        """(mtimes, sizes, hashes, frontmatter, warnings, tags) of ``paths``, one column
        each: a loaded file's from the columns (its JSON rows picked, not decoded), a changed
        one's from its node."""
        files = self._files
        mtimes: list[float] = []
        sizes: list[int] = []
        hashes: list[str] = []
        fms = PickedRows(files.frontmatter if files is not None else None)
        warns = PickedRows(files.warnings if files is not None else None)
        tags = PickedRows(files.tags if files is not None and files.tags else None)
        file_hashes = as_list(files.hashes) if files is not None else []  # split once
        for path in paths:
            node = self._built.get(path)
            if node is None:
                assert files is not None
                i = self._base[path]
                mtimes.append(files.mtimes[i])
                sizes.append(files.sizes[i])
                hashes.append(file_hashes[i])
                fms.pick(i)
                warns.pick(i)
                if tags.source is not None:
                    tags.pick(i)
                else:
                    tags.own([])
            else:
                mtimes.append(node.st_mtime)
                sizes.append(node.size)
                hashes.append(node.content_hash)
                fms.own(node.frontmatter)
                warns.own(node.warnings)
                tags.own(node.inline_tags)
        return mtimes, sizes, hashes, fms, warns, tags

    def _link_columns(self, paths: Sequence[str]) -> LinkColumns:
        """The literal links of ``paths``, grouped by file in that order, each file's in
        source order: the loaded rows of files still as loaded, then the changed files'."""
        base = self._links
        rank = dict(zip(paths, range(len(paths))))
        builder = LinkColumnsBuilder(base.strings if base is not None else ("",))
        owners: list[int] = []
        for path, node in self._built.items():
            builder.add_file(path, node.links)
            owners.extend([rank[path]] * len(node.links))
        extra = builder.finish()
        parts = [extra]
        owner = np.asarray(owners, dtype=np.int64)
        if base is not None and len(base):
            # Loaded links of files still as loaded (not rebuilt, not removed), in stored order.
            rank_of_sid = np.full(len(base.strings), -1, dtype=np.int64)
            for path, sid in self._link_rows()[0].items():
                if path in self._base and path not in self._built:
                    rank_of_sid[sid] = rank[path]
            kept = rank_of_sid[base.source]
            parts.insert(0, base.select(kept >= 0))
            owner = np.concatenate([kept[kept >= 0], owner])
        order = np.argsort(owner, kind="stable")
        return _compacted(
            extra.strings,
            *(np.concatenate([getattr(c, name) for c in parts])[order] for name in _LINK_FIELDS),
        )

    def _link_rows(self) -> tuple[dict[str, int], Grouped]:
        if self._by_source is None:
            strings = self._links.strings if self._links is not None else [""]
            source = self._links.source if self._links is not None else np.zeros(0, np.int32)
            self._by_source = (
                dict(zip(strings, range(len(strings)))),
                Grouped(source, len(strings)),
            )
        return self._by_source

    def _build(self, path: str) -> FileNode:
        files = self._files
        assert files is not None
        i = self._base[path]
        node = FileNode(
            path=path,
            st_mtime=float(files.mtimes[i]),
            size=int(files.sizes[i]),
            frontmatter=files.frontmatter[i],
            content_hash=files.hashes[i],
            warnings=files.warnings[i],
            inline_tags=files.tags[i] if files.tags else [],
        )
        if self._links is not None:
            sids, by_source = self._link_rows()
            sid = sids.get(path)
            if sid is not None:
                node.links = [self._links.link(j) for j in by_source.rows(sid)]
        return node


_LINK_FIELDS = ("source", "target", "anchor", "alias", "raw", "line", "embed")


def _compacted(strings: Sequence[str], *cols: np.ndarray) -> LinkColumns:
    """Link columns keeping only the strings they use ("" stays string 0)."""
    source, target, anchor, alias, raw, line, embed = cols
    ints = (source, target, anchor, alias, raw)
    used = np.zeros(len(strings), dtype=bool)
    used[0] = True
    for col in ints:
        used[col] = True
    new_id = np.cumsum(used) - 1
    kept = [strings[i] for i in np.flatnonzero(used).tolist()]
    source, target, anchor, alias, raw = (new_id[c].astype(np.int32) for c in ints)
    return LinkColumns(
        kept, source, target, anchor, alias, raw, line.astype(np.int32), embed.astype(bool)
    )
