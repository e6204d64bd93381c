"""The in-memory search structures: BM25 postings, per-chunk places, nodes and the link graph.

Built at open from columns (a numpy snapshot, or the store's rows), then kept in step with each
committed batch. Files and links stay columns until asked for: a `FileNode` is built on first
access, and the link graph answers from index arrays (see reme_core.link_graph).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np

from reme_core.bm25 import BM25Index, PostingsBuilder
from reme_core.link_graph import (
    Grouped,
    LinkColumns,
    LinkColumnsBuilder,
    LinkGraph,
    link_columns,
)
from reme_core.link_resolution import ObsidianResolver
from reme_core.models import FileLink, FileNode, frontmatter_tags
from reme_core.store import BatchWrite, ChunkArrays, FileRow
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


@dataclass(slots=True)
class FileColumns:
    """Stored files as parallel columns, in file id order."""

    ids: np.ndarray  # int64
    paths: list[str]
    mtimes: np.ndarray  # float64
    sizes: np.ndarray  # int64
    hashes: list[str]
    frontmatter: list[dict[str, Any]]
    warnings: list[list[str]]
    origins: list[str]
    dates: np.ndarray  # int32 `file_date` of each file


@dataclass(slots=True)
class IndexColumns:
    """Everything `MemoryIndex.load` needs, as a snapshot or the store's rows give it."""

    vocab: list[str]
    postings: tuple[np.ndarray, np.ndarray, np.ndarray]  # term-major (ptr, docs, tfs)
    doc_lengths: np.ndarray  # int64 per chunk
    doc_rowid: np.ndarray  # int64 per chunk, in rowid order
    doc_file: np.ndarray  # int64 file id per chunk
    doc_start: np.ndarray  # int32
    doc_end: np.ndarray  # int32
    files: FileColumns
    links: LinkColumns  # literal targets, as written


def columns_from_rows(
    files: Sequence[FileRow],
    links: dict[int, list[tuple]],
    vocab: list[str],
    chunks: ChunkArrays,
) -> IndexColumns:
    """The columns of stored rows (when no snapshot matches): postings sorted here."""
    bm25 = BM25Index.from_arrays(chunks.doc_ptr, chunks.term_ids, chunks.tfs, len(vocab))
    n = len(files)
    path_of = {r.id: r.path for r in files}
    return IndexColumns(
        vocab=vocab,
        postings=bm25.postings(),
        doc_lengths=bm25.doc_lengths(),
        doc_rowid=chunks.rowids,
        doc_file=chunks.file_ids.astype(np.int64),
        doc_start=chunks.starts,
        doc_end=chunks.ends,
        files=FileColumns(
            ids=np.fromiter((r.id for r in files), np.int64, count=n),
            paths=[r.path for r in files],
            mtimes=np.fromiter((r.mtime for r in files), np.float64, count=n),
            sizes=np.fromiter((r.size for r in files), np.int64, count=n),
            hashes=[r.hash for r in files],
            frontmatter=[r.frontmatter for r in files],
            warnings=[r.warnings for r in files],
            origins=[r.origin for r in files],
            dates=np.fromiter((file_date(r.path, r.frontmatter) for r in files), np.int32, n),
        ),
        links=link_columns(
            (path_of[file_id], *row)
            for file_id, rows in links.items()
            if file_id in path_of
            for row in rows
        ),
    )


class ColumnsBuilder:
    """The columns of a rebuild, accumulated batch by batch as flat arrays (no object per file).

    `finish` sorts the postings once (see `PostingsBuilder`): the rebuild hands the result to
    `MemoryIndex.load` and writes it as the snapshot, like an open from the stored rows.
    """

    def __init__(self) -> None:
        self._postings = PostingsBuilder()
        self._links = LinkColumnsBuilder()
        self._ids = array("q")
        self._paths: list[str] = []
        self._mtimes = array("d")
        self._sizes = array("q")
        self._hashes: list[str] = []
        self._frontmatter: list[dict[str, Any]] = []
        self._warnings: list[list[str]] = []
        self._origins: list[str] = []
        self._dates = array("i")
        self._doc_rowid: list[np.ndarray] = []
        self._doc_file: list[np.ndarray] = []
        self._doc_start = array("i")
        self._doc_end = array("i")

    def add(self, write: BatchWrite, file_ids: Sequence[int], rowids: np.ndarray) -> None:
        """One committed batch: its files, their chunks' places and CSR, and their links."""
        counts = []
        for pf, file_id, origin in zip(write.files, file_ids, write.origins, strict=True):
            node = pf.node
            self._ids.append(file_id)
            self._paths.append(node.path)
            self._mtimes.append(node.st_mtime)
            self._sizes.append(node.size)
            self._hashes.append(node.content_hash)
            self._frontmatter.append(node.frontmatter)
            self._warnings.append(node.warnings)
            self._origins.append(origin)
            self._dates.append(file_date(node.path, node.frontmatter))
            counts.append(len(pf.chunks))
            self._doc_start.extend(c.start_line for c in pf.chunks)
            self._doc_end.extend(c.end_line for c in pf.chunks)
            self._links.add_file(node.path, node.links)
        self._doc_rowid.append(np.asarray(rowids, dtype=np.int64))
        self._doc_file.append(np.repeat(np.asarray(file_ids, dtype=np.int64), counts))
        self._postings.add(write.doc_ptr, write.term_ids, write.tfs)

    def finish(self, vocab: list[str]) -> IndexColumns:
        """Everything added, as `MemoryIndex.load` and the snapshot take it."""
        postings, doc_lengths = self._postings.finish(len(vocab))

        def ints(values: array, dtype: type) -> np.ndarray:
            return np.frombuffer(values, dtype=dtype).copy() if len(values) else np.zeros(0, dtype)

        def joined(parts: list[np.ndarray]) -> np.ndarray:
            return np.concatenate(parts) if parts else np.zeros(0, np.int64)

        return IndexColumns(
            vocab=vocab,
            postings=postings,
            doc_lengths=doc_lengths,
            doc_rowid=joined(self._doc_rowid),
            doc_file=joined(self._doc_file),
            doc_start=ints(self._doc_start, np.int32),
            doc_end=ints(self._doc_end, np.int32),
            files=FileColumns(
                ids=ints(self._ids, np.int64),
                paths=self._paths,
                mtimes=ints(self._mtimes, np.float64),
                sizes=ints(self._sizes, np.int64),
                hashes=self._hashes,
                frontmatter=self._frontmatter,
                warnings=self._warnings,
                origins=self._origins,
                dates=ints(self._dates, np.int32),
            ),
            links=self._links.finish(),
        )


class NodeTable(Mapping[str, FileNode]):
    """Indexed files by path; a `FileNode` is built from the loaded columns on first access."""

    def __init__(self, files: FileColumns | None = None, links: LinkColumns | None = None) -> None:
        self._files = files
        self._links = links
        self._base: dict[str, int] = {}
        self._sid: dict[str, int] = {}
        self._by_source: Grouped | None = None
        if files is not None:
            self._base = dict(zip(files.paths, range(len(files.paths))))
        if links is not None:
            self._sid = dict(zip(links.strings, range(len(links.strings))))
            self._by_source = Grouped(links.source, len(links.strings))
        self._live: dict[str, None] = dict.fromkeys(self._base)  # insertion order, like a dict
        self._built: dict[str, FileNode] = {}

    def __getitem__(self, path: str) -> FileNode:
        node = self._built.get(path)
        if node is None:
            if path not in self._live:
                raise KeyError(path)
            node = self._built[path] = self._build(path)
        return node

    def __contains__(self, path: object) -> bool:
        return path in self._live

    def __iter__(self) -> Iterator[str]:
        return iter(self._live)

    def __len__(self) -> int:
        return len(self._live)

    def put(self, node: FileNode) -> None:
        """Add or replace a file's node."""
        self._live[node.path] = None
        self._built[node.path] = node

    def discard(self, path: str) -> None:
        """Forget a file (its columns are never used again)."""
        self._live.pop(path, None)
        self._built.pop(path, None)
        self._base.pop(path, None)

    def frontmatter(self, path: str) -> dict[str, Any]:
        """A live file's frontmatter without building its node."""
        node = self._built.get(path)
        if node is not None or self._files is None:
            return node.frontmatter if node is not None else {}
        return self._files.frontmatter[self._base[path]]

    def stats(self) -> dict[str, tuple[float, int]]:
        """(mtime, size) of every live file, what the start-up diff compares."""
        out: dict[str, tuple[float, int]] = {}
        files = self._files
        if files is not None:
            out = dict(zip(files.paths, zip(files.mtimes.tolist(), files.sizes.tolist())))
            out = {p: out[p] for p in self._base if p not in self._built}
        for path, node in self._built.items():
            out[path] = (node.st_mtime, node.size)
        return out

    def columns(
        self, paths: Sequence[str], origins: Sequence[str], dates: np.ndarray
    ) -> tuple[FileColumns, LinkColumns]:
        """The file columns of live ``paths`` (in that order) and their literal links, each
        file's in source order: loaded files stay columns, changed ones come from their nodes.
        """
        files, base = self._files, self._links
        mtimes, sizes, hashes, fms, warns = [], [], [], [], []
        for path in paths:
            node = self._built.get(path)
            if node is None:
                assert files is not None
                i = self._base[path]
                mtimes.append(files.mtimes[i])
                sizes.append(files.sizes[i])
                hashes.append(files.hashes[i])
                fms.append(files.frontmatter[i])
                warns.append(files.warnings[i])
            else:
                mtimes.append(node.st_mtime)
                sizes.append(node.size)
                hashes.append(node.content_hash)
                fms.append(node.frontmatter)
                warns.append(node.warnings)
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
            for path, sid in self._sid.items():
                if path in self._base and path not in self._built:
                    rank_of_sid[sid] = rank[path]
            kept = rank_of_sid[base.source]
            parts.insert(0, base.select(kept >= 0))
            owner = np.concatenate([kept[kept >= 0], owner])
        order = np.argsort(owner, kind="stable")
        links = _compacted(
            extra.strings,
            *(np.concatenate([getattr(c, name) for c in parts])[order] for name in _LINK_FIELDS),
        )
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
            ),
            links,
        )

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
        )
        sid = self._sid.get(path)
        if sid is not None and self._links is not None and self._by_source is not None:
            node.links = [self._links.link(j) for j in self._by_source.rows(sid)]
        return node


class FileDocs:
    """BM25 doc ids of each file's chunks; the loaded ones stay one sorted array until changed."""

    def __init__(self, paths: Sequence[str] = (), doc_slot: np.ndarray | None = None) -> None:
        self._slot: dict[str, int] = {}
        self._grouped: Grouped | None = None
        if doc_slot is not None and len(doc_slot):
            self._grouped = Grouped(doc_slot, len(paths))
            counts = np.diff(self._grouped.ptr)
            self._slot = {paths[i]: i for i in np.flatnonzero(counts).tolist()}
        self._own: dict[str, np.ndarray] = {}

    def get(self, path: str) -> np.ndarray | None:
        docs = self._own.get(path)
        if docs is None and path in self._slot and self._grouped is not None:
            slot = self._slot[path]
            docs = self._grouped.order[self._grouped.ptr[slot] : self._grouped.ptr[slot + 1]]
        return docs

    def pop(self, path: str, default: np.ndarray | None = None) -> np.ndarray | None:
        docs = self.get(path)
        self._own.pop(path, None)
        self._slot.pop(path, None)
        return default if docs is None else docs

    def __setitem__(self, path: str, docs: np.ndarray) -> None:
        self._slot.pop(path, None)
        self._own[path] = docs

    def items(self) -> Iterator[tuple[str, np.ndarray]]:
        for path in list(self._slot):
            docs = self.get(path)
            assert docs is not None
            yield path, docs
        yield from list(self._own.items())

    def values(self) -> Iterator[np.ndarray]:
        return (docs for _, docs in self.items())


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
        self.nodes = NodeTable()
        self.file_ids: dict[str, int] = {}
        self.origins: dict[str, str] = {}
        self.file_docs = FileDocs()
        self.slot_of: dict[str, int] = {}
        self.slot_paths: list[str] = []
        self.slot_dates = np.zeros(0, dtype=np.int32)
        self.doc_rowid = np.zeros(0, dtype=np.int64)
        self.doc_slot = np.zeros(0, dtype=np.int32)
        self.doc_start = np.zeros(0, dtype=np.int32)
        self.doc_end = np.zeros(0, dtype=np.int32)
        self.graph = LinkGraph(exists=exists)
        self.resolver: ObsidianResolver | None = ObsidianResolver([]) if obsidian else None
        self._list_attachments = attachments
        self._attachments: ObsidianResolver | None = None
        self._version = 0  # bumped by every change of a node: keys the filter caches
        self._cache: dict[str, tuple[int, Any]] = {}

    # -- building -----------------------------------------------------------------------------
    def load(self, cols: IndexColumns) -> None:
        """Fill every structure from columns: numpy and bulk dict builds, no object per row.

        ValueError when the columns do not fit together (a damaged snapshot).
        """
        files = cols.files
        n = len(files.paths)
        self.vocab = Vocabulary(cols.vocab)
        ptr, docs, tfs = cols.postings
        n_terms = max(len(cols.vocab), len(ptr) - 1)
        self.bm25 = BM25Index.from_postings(ptr, docs, tfs, cols.doc_lengths, n_terms)
        if not (
            len(files.ids) == len(files.mtimes) == len(files.sizes) == len(files.hashes) == n
            and len(files.frontmatter) == len(files.warnings) == len(files.origins) == n
            and len(files.dates) == n
            and len(cols.doc_lengths) == len(cols.doc_rowid) == len(cols.doc_file)
            and len(cols.doc_rowid) == len(cols.doc_start) == len(cols.doc_end)
        ):
            raise ValueError("file or chunk columns of different lengths")
        self.slot_paths = list(files.paths)
        self.slot_of = dict(zip(self.slot_paths, range(n)))
        if len(self.slot_of) != n:
            raise ValueError("duplicate paths")
        self.slot_dates = np.asarray(files.dates, dtype=np.int32).copy()
        ids = np.asarray(files.ids, dtype=np.int64)
        self.file_ids = dict(zip(self.slot_paths, ids.tolist()))
        self.origins = dict(zip(self.slot_paths, files.origins))
        slot_of_file = np.full(int(ids.max(initial=0)) + 1, -1, dtype=np.int32)
        slot_of_file[ids] = np.arange(n, dtype=np.int32)
        doc_file = np.asarray(cols.doc_file, dtype=np.int64)
        if len(doc_file) and (doc_file.min() < 0 or doc_file.max() >= len(slot_of_file)):
            raise ValueError("chunks of unknown files")
        self.doc_slot = slot_of_file[doc_file]
        if len(self.doc_slot) and self.doc_slot.min() < 0:
            raise ValueError("chunks of unknown files")
        self.doc_rowid = np.asarray(cols.doc_rowid, dtype=np.int64)
        self.doc_start = np.asarray(cols.doc_start, dtype=np.int32)
        self.doc_end = np.asarray(cols.doc_end, dtype=np.int32)
        self.file_docs = FileDocs(self.slot_paths, self.doc_slot)
        links = cols.links
        if not links.strings or links.strings[0] != "":
            raise ValueError("link strings must start with the empty string")
        ints = (links.source, links.target, links.anchor, links.alias, links.raw)
        lowest = min((int(c.min()) for c in ints if len(c)), default=0)
        highest = max((int(c.max()) for c in ints if len(c)), default=0)
        if len({len(c) for c in (*ints, links.line, links.embed)}) != 1 or not (
            lowest >= 0 and highest < len(links.strings)
        ):
            raise ValueError("link columns do not fit their strings")
        if not all(isinstance(fm, dict) for fm in files.frontmatter):
            raise ValueError("frontmatter is not a mapping")
        self.nodes = NodeTable(files, links)
        self._version += 1
        if self.resolver is not None:
            for path, fm in zip(self.slot_paths, files.frontmatter):
                self.resolver.add(path, _aliases(fm))
            links = self._resolved_columns(links)
        self.graph.load(self.slot_paths, links)

    def _resolved_columns(self, links: LinkColumns) -> LinkColumns:
        """Obsidian vaults: each literal target that is not a note, resolved as `_resolved` does."""
        strings = list(links.strings)
        sid = dict(zip(strings, range(len(strings))))
        target = links.target.copy()
        for i, t in enumerate(links.target.tolist()):
            literal = strings[t]
            if not literal or literal in self.nodes:
                continue
            source = strings[links.source[i]]
            raw = strings[links.raw[i]] or literal
            found = self.resolver.resolve(source, raw) if self.resolver is not None else None
            found = found or self._attachment(source, raw) or literal
            if found not in sid:
                sid[found] = len(strings)
                strings.append(found)
            target[i] = sid[found]
        return LinkColumns(
            strings,
            links.source,
            target,
            links.anchor,
            links.alias,
            links.raw,
            links.line,
            links.embed,
        )

    def _put_node(self, node: FileNode, file_id: int, origin: str) -> None:
        self._version += 1
        path = node.path
        self.nodes.put(node)
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
        if self.resolver is not None:
            self.resolver.add(path, _aliases(node.frontmatter))

    def remove_file(self, path: str) -> None:
        """Tombstone a file's chunks and drop its node and outgoing edges."""
        self._version += 1
        docs = self.file_docs.pop(path, None)
        if docs is not None and len(docs):
            self.bm25.remove_many(docs)
        self.nodes.discard(path)
        self.file_ids.pop(path, None)
        self.origins.pop(path, None)
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

    def columns(self) -> IndexColumns | None:
        """Everything as `load` takes it, as a load of the stored rows would give it (the
        snapshot after edits); None when the chunks are not in rowid order."""
        postings, doc_lengths = self.bm25.live_postings()
        ptr = postings[0]
        if len(ptr) - 1 < len(self.vocab):  # terms no chunk uses yet still count
            ptr = np.concatenate([ptr, np.full(len(self.vocab) + 1 - len(ptr), ptr[-1])])
            postings = (ptr, postings[1], postings[2])
        docs = self.bm25.live_docs()
        rowid = self.doc_rowid[docs]
        if len(rowid) > 1 and not bool(np.all(rowid[1:] > rowid[:-1])):
            return None
        ids = self.file_ids
        paths = sorted(self.nodes, key=ids.__getitem__)
        slot_file = np.fromiter((ids.get(p, -1) for p in self.slot_paths), np.int64)
        doc_file = slot_file[self.doc_slot[docs]] if len(docs) else np.zeros(0, np.int64)
        if len(doc_file) and doc_file.min() < 0:
            return None
        dates = self.slot_dates[[self.slot_of[p] for p in paths]]
        files, links = self.nodes.columns(paths, [self.origins[p] for p in paths], dates)
        files.ids = np.fromiter((ids[p] for p in paths), np.int64, count=len(paths))
        return IndexColumns(
            vocab=self.vocab.terms(),
            postings=postings,
            doc_lengths=doc_lengths,
            doc_rowid=rowid,
            doc_file=doc_file,
            doc_start=self.doc_start[docs],
            doc_end=self.doc_end[docs],
            files=files,
            links=links,
        )

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
        for path in self.nodes:
            for tag in {t.lower() for t in frontmatter_tags(self.nodes.frontmatter(path))}:
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
        node = self.nodes.get(path)
        links = node.links if node is not None else []
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


_LINK_FIELDS = ("source", "target", "anchor", "alias", "raw", "line", "embed")


def _compacted(strings: list[str], *cols: np.ndarray) -> LinkColumns:
    """Link columns keeping only the strings they use ("" stays string 0)."""
    source, target, anchor, alias, raw, line, embed = cols
    ints = (source, target, anchor, alias, raw)
    used = np.zeros(len(strings), dtype=bool)
    used[0] = True
    for col in ints:
        used[col] = True
    new_id = np.cumsum(used) - 1
    kept = [strings[i] for i in np.flatnonzero(used).tolist()]
    return LinkColumns(
        kept, *(new_id[c].astype(np.int32) for c in ints), line.astype(np.int32), embed.astype(bool)
    )


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
