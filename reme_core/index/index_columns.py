"""The columns `MemoryIndex.load` takes and the snapshot stores, from stored rows or a rebuild."""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from reme_core.dates import file_date
from reme_core.index.bm25 import BM25Index
from reme_core.index.found_links import FoundLinks
from reme_core.index.link_graph import LinkColumns, LinkColumnsBuilder, link_columns
from reme_core.index.name_field import NameColumns, NameRows
from reme_core.index.postings_builder import PostingsBuilder
from reme_core.index.stored_text import JsonRows, check_relative, is_mapping, is_text_list
from reme_core.parse.note_names import NameTerms
from reme_core.store.database import BatchWrite, ChunkArrays, FileRow
from reme_core.text.joined_strings import JoinedStrings

T = TypeVar("T")

# File ids are handed out one past the largest; this many past the file count is churn no
# workspace reaches, and it bounds the dense id -> slot map a load allocates.
_MAX_ID_GAP = 1 << 24


@dataclass(slots=True)
class FileColumns:
    """Stored files as parallel columns, in file id order."""

    ids: np.ndarray  # int64
    paths: list[str]
    mtimes: np.ndarray  # float64
    sizes: np.ndarray  # int64
    hashes: Sequence[str]  # a list, or `JoinedStrings` from a snapshot (cut out when read)
    # lists, or `JsonRows` from a snapshot (decoded, and checked, when first read)
    frontmatter: Sequence[dict[str, Any]]
    warnings: Sequence[list[str]]
    origins: Sequence[str]  # the same
    dates: np.ndarray  # int32 `file_date` of each file
    tags: Sequence[list[str]] = field(default_factory=list)  # inline tags of each file


@dataclass(slots=True)
class IndexColumns:
    """Everything `MemoryIndex.load` needs, as a snapshot or the store's rows give it."""

    vocab: Sequence[str]  # a list, or a snapshot's `JoinedStrings`
    postings: tuple[np.ndarray, np.ndarray, np.ndarray]  # term-major (ptr, docs, tfs)
    doc_lengths: np.ndarray  # int64 per chunk
    doc_rowid: np.ndarray  # int64 per chunk, in rowid order
    doc_file: np.ndarray  # int64 file id per chunk
    doc_start: np.ndarray  # int32
    doc_end: np.ndarray  # int32
    files: FileColumns
    links: LinkColumns  # literal targets, as written
    names: NameColumns | None = None  # the Latin name field, when it was built
    props: NameColumns | None = None  # the Latin property field, likewise
    found: FoundLinks | None = None  # a vault's links resolved (None: resolve them at load)
    # False for a snapshot's postings: `PostingLists` checks each term's when first read
    postings_checked: bool = True


def check_columns(cols: IndexColumns) -> None:
    """ValueError unless the columns keep the invariants of rows this program writes.

    Columns come from a snapshot or a database that may have been made anywhere: lengths
    agree, file ids and chunk rowids ascend, line ranges are 1 <= start <= end, postings
    point inside their arrays with positive term frequencies, string ids stay inside their
    tables, and every string is text (paths workspace-relative). Vectorised: one pass each.
    """
    files, links = cols.files, cols.links
    n, m = len(files.paths), len(cols.doc_rowid)
    if not (
        len(files.ids) == len(files.mtimes) == len(files.sizes) == len(files.hashes) == n
        and len(files.frontmatter) == len(files.warnings) == len(files.origins) == n
        and len(files.dates) == n
        and len(cols.doc_lengths) == len(cols.doc_file) == m
        and len(cols.doc_start) == len(cols.doc_end) == m
    ):
        raise ValueError("file or chunk columns of different lengths")
    _check_files(files)
    _check_chunks(cols)
    _check_links(links)


def _check_files(files: FileColumns) -> None:
    """The file columns: ascending bounded ids, workspace-relative text paths, text hashes
    and origins, and frontmatter, warnings and tags of the right types."""
    n = len(files.paths)
    ids = np.asarray(files.ids)
    if n and (ids[0] < 0 or ids[-1] >= n + _MAX_ID_GAP or np.any(ids[1:] <= ids[:-1])):
        raise ValueError("file ids are not ascending and bounded")
    check_relative(files.paths)
    _check_text(files.hashes, "hashes")
    _check_text(files.origins, "origins")
    if files.tags and len(files.tags) != n:
        raise ValueError("tags are not one list per file")
    # `JsonRows` check each row as it is decoded; lists are checked here.
    if isinstance(files.frontmatter, list) and set(map(type, files.frontmatter)) - {dict}:
        raise ValueError("frontmatter is not a mapping")  # map(type): no Python loop per file
    if isinstance(files.warnings, list) and set(map(type, files.warnings)) - {list}:
        raise ValueError("warnings are not lists")
    if isinstance(files.tags, list):
        if set(map(type, files.tags)) - {list}:
            raise ValueError("tags are not one list per file")
        _check_text(list(chain.from_iterable(files.tags)), "tags")


def _check_chunks(cols: IndexColumns) -> None:
    """The chunk columns: ascending rowids, 1 <= start <= end, postings inside their arrays."""
    m = len(cols.doc_rowid)
    rowid, start, end = cols.doc_rowid, cols.doc_start, cols.doc_end
    if m and (rowid[0] < 1 or np.any(rowid[1:] <= rowid[:-1])):
        raise ValueError("chunk rowids are not ascending")
    if m and (start.min() < 1 or np.any(end < start)):
        raise ValueError("chunk line ranges are not 1 <= start <= end")
    ptr, docs, tfs = cols.postings
    _check_text(cols.vocab, "terms")
    if not (
        len(ptr) == len(cols.vocab) + 1
        and ptr[0] == 0
        and ptr[-1] == len(docs) == len(tfs)
        and bool(np.all(ptr[1:] >= ptr[:-1]))
        and (
            not cols.postings_checked
            or not len(docs)
            or (docs.min() >= 0 and docs.max() < m and tfs.min() > 0)
        )
        and (not m or cols.doc_lengths.min() >= 0)
    ):
        raise ValueError("postings do not fit their terms and chunks")


def _check_links(links: LinkColumns) -> None:
    """The link columns: of one length, ids inside their string table, sources and targets."""
    _check_text(links.strings, "link strings")
    if not links.strings or links.strings[0] != "":
        raise ValueError("link strings must start with the empty string")
    ints = (links.source, links.target, links.anchor, links.alias, links.raw)
    if len({len(c) for c in (*ints, links.line, links.embed)}) != 1:
        raise ValueError("link columns of different lengths")
    if len(links) and (
        min(int(c.min()) for c in ints) < 0 or max(int(c.max()) for c in ints) >= len(links.strings)
    ):
        raise ValueError("link columns do not fit their strings")
    if len(links) and not (links.source.all() and links.target.all()):
        raise ValueError("a link without a source or a target")  # "" is string 0


def _check_text(values: Sequence[str], what: str) -> None:
    """ValueError unless every value is a str (`map(type)`: no Python loop per value). Lone
    surrogates cannot come from SQLite (it refuses to decode them) and a snapshot's JSON is
    checked for them before it is parsed (`snapshot._untext`)."""
    if isinstance(values, JoinedStrings):
        return  # decoded from UTF-8 and cut at NULs: text by construction
    if set(map(type, values)) - {str}:
        raise ValueError(f"{what} are not all text")


def columns_from_rows(
    files: Sequence[FileRow],
    links: dict[int, list[tuple]],
    vocab: list[str],
    chunks: ChunkArrays,
) -> IndexColumns:
    """The columns of stored rows (when no snapshot matches): postings sorted here.

    ValueError for term ids outside the vocabulary (the sort would size its pointers by the
    largest) or term frequencies that are not positive.
    """
    term_ids, tfs = chunks.term_ids, chunks.tfs
    if len(term_ids) and (term_ids.min() < 0 or term_ids.max() >= len(vocab) or tfs.min() < 1):
        raise ValueError("stored term ids or frequencies out of range")
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
            tags=[r.tags for r in files],
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

    def __init__(self, spill_dir: Path | None = None) -> None:
        self._postings = PostingsBuilder(spill_dir)
        self._links = LinkColumnsBuilder()
        self._names = NameRows()
        self._props = NameRows()
        self._ids = array("q")
        self._paths: list[str] = []
        self._mtimes = array("d")
        self._sizes = array("q")
        self._hashes: list[str] = []
        # As their rows hold them (JSON texts): loaded as a snapshot's are, written as they are.
        self._frontmatter: list[str] = []
        self._warnings: list[str] = []
        self._origins: list[str] = []
        self._dates = array("i")
        self._tags: list[str] = []
        self._doc_rowid: list[np.ndarray] = []
        self._doc_file: list[np.ndarray] = []
        self._doc_start = array("i")
        self._doc_end = array("i")

    def add(
        self,
        write: BatchWrite,
        file_ids: Sequence[int],
        rowids: np.ndarray,
        names: NameTerms | None = None,
        props: NameTerms | None = None,
    ) -> None:
        """One committed batch: its files, their chunks' places and CSR, their links, and
        their name and property terms when the pool sent them (the fields are then built
        from those)."""
        cols = write.parsed
        self._names.add(names, len(cols))
        self._props.add(props, len(cols))
        self._ids.extend(file_ids)
        self._paths += cols.paths
        self._mtimes.extend(cols.mtimes)
        self._sizes.extend(cols.sizes)
        self._hashes += cols.hashes
        self._frontmatter += write.frontmatter_json
        self._warnings += write.warnings_json
        self._origins += write.origins
        self._dates.extend(map(file_date, cols.paths, cols.frontmatter))
        self._tags += write.tags_json
        self._doc_start.extend(cols.chunk_starts)
        self._doc_end.extend(cols.chunk_ends)
        self._links.add_columns(
            cols.link_sources(),
            cols.link_targets,
            cols.link_anchors,
            cols.link_lines,
            cols.link_aliases,
            cols.link_embeds,
            cols.link_raws,
        )
        self._doc_rowid.append(np.asarray(rowids, dtype=np.int64))
        self._doc_file.append(np.repeat(np.asarray(file_ids, dtype=np.int64), cols.chunk_counts))
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
                frontmatter=_json_rows(self._frontmatter, is_mapping, dict),
                warnings=_json_rows(self._warnings, is_text_list, list),
                origins=self._origins,
                dates=ints(self._dates, np.int32),
                tags=_json_rows(self._tags, is_text_list, list),
            ),
            links=self._links.finish(),
            names=self._names.columns(len(self._paths)),
            props=self._props.columns(len(self._paths)),
        )


def _json_rows(
    texts: list[str], valid: Callable[[Any], bool], empty: Callable[[], T]
) -> Sequence[T]:
    """A rebuild's per-file JSON texts as rows decoded when read; decoded now when one holds
    a lone surrogate, which no stored text can (such rows keep the snapshot from saving)."""
    try:
        return JsonRows.of_texts(texts, valid, empty)
    except UnicodeEncodeError:
        return [value if valid(value := json.loads(text)) else empty() for text in texts]
