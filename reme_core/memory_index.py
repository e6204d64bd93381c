"""The in-memory search structures: BM25 postings, per-chunk places, nodes and the link graph.

Built from the store at open with numpy, then kept in step with each committed batch.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import Any

import numpy as np

from reme_core.bm25 import BM25Index
from reme_core.link_graph import LinkGraph
from reme_core.link_resolution import ObsidianResolver
from reme_core.models import FileLink, FileNode
from reme_core.store import ChunkArrays, FileRow
from reme_core.vocabulary import Vocabulary

_DATE_SEGMENT = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:\.[A-Za-z0-9]+)?$")
NO_DATE = -1


def date_ordinal(value: object) -> int:
    """Ordinal of a `YYYY-MM-DD` value, or NO_DATE when it is not a real date."""
    text = str(value).strip()[:10] if value is not None else ""
    m = _DATE_SEGMENT.match(text)
    if not m:
        return NO_DATE
    try:
        return date(int(m[1]), int(m[2]), int(m[3])).toordinal()
    except ValueError:
        return NO_DATE


def file_date(path: str, frontmatter: dict) -> int:
    """The note's date: a `YYYY-MM-DD` path segment after the layer, else frontmatter `date`."""
    for segment in path.split("/")[1:]:
        ordinal = date_ordinal(segment)
        if ordinal != NO_DATE:
            return ordinal
    return date_ordinal(frontmatter.get("date"))


class MemoryIndex:
    """Everything a search touches, held in memory; mutated only by the workspace's writer."""

    def __init__(
        self,
        obsidian: bool,
        exists: Callable[[str], bool],
        attachments: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        self.vocab = Vocabulary()
        self.bm25 = BM25Index()
        self.nodes: dict[str, FileNode] = {}
        self.file_ids: dict[str, int] = {}
        self.origins: dict[str, str] = {}
        self.file_docs: dict[str, np.ndarray] = {}
        self.slot_of: dict[str, int] = {}
        self.slot_paths: list[str] = []
        self.slot_dates = np.zeros(0, dtype=np.int32)
        self.doc_rowid = np.zeros(0, dtype=np.int64)
        self.doc_slot = np.zeros(0, dtype=np.int32)
        self.doc_start = np.zeros(0, dtype=np.int32)
        self.doc_end = np.zeros(0, dtype=np.int32)
        self.literal_links: dict[str, list[FileLink]] = {}
        self.graph = LinkGraph(exists=exists)
        self.resolver: ObsidianResolver | None = ObsidianResolver([]) if obsidian else None
        self._list_attachments = attachments
        self._attachments: ObsidianResolver | None = None
        self._version = 0  # bumped by every change of a node: keys the filter caches
        self._cache: dict[str, tuple[int, Any]] = {}

    # -- building -----------------------------------------------------------------------------
    def load(
        self,
        files: Sequence[FileRow],
        links: dict[int, list[tuple]],
        vocab: Sequence[str],
        chunks: ChunkArrays,
        postings: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """Fill every structure from stored rows, vectorised where it counts.

        ``postings`` (a snapshot of these rows' BM25 postings) spares sorting them.
        """
        self.vocab = Vocabulary(vocab)
        self.bm25 = BM25Index.from_arrays(
            chunks.doc_ptr, chunks.term_ids, chunks.tfs, len(vocab), postings=postings
        )
        by_id: dict[int, str] = {}
        for row in files:
            by_id[row.id] = row.path
            node = FileNode(
                path=row.path,
                st_mtime=row.mtime,
                size=row.size,
                frontmatter=row.frontmatter,
                content_hash=row.hash,
                warnings=row.warnings,
            )
            node.links = [
                FileLink(row.path, t, a, line, alias, bool(e), raw)
                for t, a, line, alias, e, raw in links.get(row.id, ())
            ]
            self._put_node(node, row.id, row.origin)
        slot_of_file = np.full(max(by_id, default=0) + 1, -1, dtype=np.int32)
        for file_id, path in by_id.items():
            slot_of_file[file_id] = self.slot_of[path]
        self.doc_rowid = chunks.rowids
        self.doc_slot = slot_of_file[chunks.file_ids] if len(chunks.file_ids) else self.doc_slot
        self.doc_start = chunks.starts
        self.doc_end = chunks.ends
        if len(self.doc_slot):
            order = np.argsort(self.doc_slot, kind="stable")
            bounds = np.flatnonzero(np.diff(self.doc_slot[order])) + 1
            for group in np.split(order, bounds):
                self.file_docs[self.slot_paths[self.doc_slot[group[0]]]] = group
        self.relink(self.nodes)

    def _put_node(self, node: FileNode, file_id: int, origin: str) -> None:
        self._version += 1
        path = node.path
        self.nodes[path] = node
        self.file_ids[path] = file_id
        self.origins[path] = origin
        ordinal = file_date(path, node.frontmatter)
        if path in self.slot_of:
            self.slot_dates[self.slot_of[path]] = ordinal
        else:
            self.slot_of[path] = len(self.slot_paths)
            self.slot_paths.append(path)
            if len(self.slot_paths) > len(self.slot_dates):  # grow by doubling, not per file
                self.slot_dates = _grown(self.slot_dates, len(self.slot_paths), NO_DATE)
            self.slot_dates[len(self.slot_paths) - 1] = ordinal
        self.literal_links[path] = node.links
        if self.resolver is not None:
            self.resolver.add(path, _aliases(node.frontmatter))

    def remove_file(self, path: str) -> None:
        """Tombstone a file's chunks and drop its node and outgoing edges."""
        self._version += 1
        docs = self.file_docs.pop(path, None)
        if docs is not None and len(docs):
            self.bm25.remove_many(docs)
        self.nodes.pop(path, None)
        self.file_ids.pop(path, None)
        self.origins.pop(path, None)
        self.literal_links.pop(path, None)
        self.graph.remove_file(path)
        if self.resolver is not None:
            self.resolver.remove(path)

    def add_files(
        self,
        nodes: Sequence[FileNode],
        file_ids: Sequence[int],
        origins: Sequence[str],
        counts: Sequence[int],
        rowids: np.ndarray,
        starts: np.ndarray,
        ends: np.ndarray,
        doc_ptr: np.ndarray,
        term_ids: np.ndarray,
        tfs: np.ndarray,
    ) -> None:
        """Add committed files (old versions removed first) with one BM25 ``add_many``.

        ``counts`` is each file's number of chunks; the chunk arrays and the CSR
        (``doc_ptr``, ``term_ids``, ``tfs``) cover all of them in file order.
        """
        for node, file_id, origin in zip(nodes, file_ids, origins, strict=True):
            self._put_node(node, file_id, origin)
        if not len(rowids):
            return
        docs = self.bm25.add_many(doc_ptr, term_ids, tfs)
        slots = np.fromiter((self.slot_of[n.path] for n in nodes), np.int32, count=len(nodes))
        bounds = np.zeros(len(nodes) + 1, dtype=np.int64)
        np.cumsum(counts, out=bounds[1:])
        for node, a, z in zip(nodes, bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            if z > a:
                self.file_docs[node.path] = docs[a:z]
        need = int(docs[-1]) + 1
        if need > len(self.doc_rowid):  # capacity doubles: adding n files copies O(n), not O(n²)
            self.doc_rowid = _grown(self.doc_rowid, need, 0)
            self.doc_slot = _grown(self.doc_slot, need, -1)
            self.doc_start = _grown(self.doc_start, need, 0)
            self.doc_end = _grown(self.doc_end, need, 0)
        self.doc_rowid[docs] = rowids
        self.doc_slot[docs] = np.repeat(slots, counts)
        self.doc_start[docs] = starts
        self.doc_end[docs] = ends

    # -- filters (cached per version: searches between batches reuse them) ------------------
    def _cached(self, key: str, build: Callable[[], Any]) -> Any:
        entry = self._cache.get(key)
        if entry is None or entry[0] != self._version:
            entry = self._cache[key] = (self._version, build())
        return entry[1]

    def live_slots(self) -> np.ndarray:
        """Bool per file slot: its file is indexed now."""
        return self._cached(
            "live",
            lambda: np.fromiter(
                (p in self.nodes for p in self.slot_paths), bool, count=len(self.slot_paths)
            ),
        )

    def prefix_slots(self, prefixes: Sequence[str]) -> np.ndarray:
        """Bool per file slot: its path starts with one of ``prefixes`` (bisect, no scan)."""
        paths, order = self._cached("sorted", self._sorted_slots)
        mask = np.zeros(len(self.slot_paths), dtype=bool)
        for prefix in prefixes:
            lo = bisect_left(paths, prefix)
            after = _after_prefix(prefix)
            hi = len(paths) if after is None else bisect_left(paths, after)
            mask[order[lo:hi]] = True
        return mask

    def tag_slots(self, tags: Iterable[str]) -> np.ndarray:
        """Bool per file slot: its file is indexed and has one of ``tags`` (lower case)."""
        by_tag = self._cached("tags", self._tag_index)
        mask = np.zeros(len(self.slot_paths), dtype=bool)
        for tag in tags:
            slots = by_tag.get(tag)
            if slots is not None:
                mask[slots] = True
        return mask

    def _sorted_slots(self) -> tuple[list[str], np.ndarray]:
        order = sorted(range(len(self.slot_paths)), key=self.slot_paths.__getitem__)
        return [self.slot_paths[i] for i in order], np.asarray(order, dtype=np.int64)

    def _tag_index(self) -> dict[str, np.ndarray]:
        by_tag: dict[str, list[int]] = {}
        for path, node in self.nodes.items():
            for tag in {t.lower() for t in node.tags}:
                by_tag.setdefault(tag, []).append(self.slot_of[path])
        return {tag: np.asarray(slots, dtype=np.int64) for tag, slots in by_tag.items()}

    def relink(self, paths: Iterable[str]) -> None:
        """(Re)resolve the given files' links into the graph."""
        for path in paths:
            self.graph.set_links(path, self._resolved(path))

    def relink_all(self) -> None:
        """Re-resolve every file's links (Obsidian resolution depends on the set of files)."""
        self._attachments = None
        self.relink(list(self.nodes))

    def _attachment(self, source: str, raw: str) -> str | None:
        """Obsidian finds `![[diagram.png]]` anywhere in the vault: look among non-notes, lazily."""
        if self._list_attachments is None:
            return None
        if self._attachments is None:
            others = (p for p in self._list_attachments() if p not in self.nodes)
            self._attachments = ObsidianResolver(others)
        return self._attachments.resolve(source, raw)

    def _resolved(self, path: str) -> list[FileLink]:
        links = self.literal_links.get(path, [])
        if self.resolver is None:
            return [link for link in links if link.target_path]
        out = []
        for link in links:
            if not link.target_path:
                continue
            target = link.target_path
            if target not in self.nodes:
                raw = link.raw_target or target
                target = self.resolver.resolve(path, raw) or self._attachment(path, raw) or target
            out.append(
                FileLink(
                    path,
                    target,
                    link.target_anchor,
                    link.line,
                    link.alias,
                    link.embed,
                    link.raw_target,
                )
            )
        return out

    def compact(self) -> dict[str, int]:
        """Fold tombstones out of BM25 and the doc arrays; drop terms no live chunk uses."""
        before_docs = self.bm25.n_total
        doc_map = self.bm25.optimize()
        keep = doc_map >= 0
        new_index = doc_map[keep]
        order = np.argsort(new_index)
        for name in ("doc_rowid", "doc_slot", "doc_start", "doc_end"):
            arr = getattr(self, name)[: len(doc_map)]
            setattr(self, name, arr[keep][order])
        for path, docs in list(self.file_docs.items()):
            self.file_docs[path] = doc_map[docs]
        return {"docs_before": before_docs, "docs_after": self.bm25.n_total}


def _after_prefix(prefix: str) -> str | None:
    """The least string above every string that starts with ``prefix`` (None: there is none)."""
    stem = prefix.rstrip("\U0010ffff")
    return stem[:-1] + chr(ord(stem[-1]) + 1) if stem else None


def _grown(arr: np.ndarray, need: int, fill: int) -> np.ndarray:
    """`arr` with room for at least `need` entries (capacity doubled), new ones set to `fill`."""
    out = np.full(max(need, 2 * len(arr), 1024), fill, dtype=arr.dtype)
    out[: len(arr)] = arr
    return out


def _aliases(frontmatter: dict) -> list[str]:
    raw = frontmatter.get("aliases") or frontmatter.get("alias")
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, list):
        return [str(a) for a in raw if a]
    return []
