"""A numpy snapshot of the in-memory index, stamped with the stored state it was built from.

Reading every stored row (files, 200k links, chunk term blobs) and sorting every posting was
nearly all of opening a large workspace. The snapshot (``metadata/bm25-postings.npz``: plain
arrays and JSON text, and ``np.load`` refuses pickles) holds the BM25 postings, the
per-chunk and per-file columns, the links, the vocabulary and, when it was built, the Latin
name field. Its members are mapped, not read: the arrays are views of a private
copy-on-write map (the file is only ever replaced by a rename, never rewritten in place). It
is used when its stamp matches the database read in the same read transaction: the
generation, and counts and sums of the files, chunks, links and terms (cheap aggregate
queries, no row is read). `MemoryIndex.load` still checks that the arrays fit together.
Anything else (missing, stale, damaged, unwritable) means the index is built from the rows
as before, and the snapshot written again.

A snapshot is derived state a workspace may bring from anywhere, so it is never trusted:
only a regular file is opened (not a FIFO, a device or a symlink), every member must be
stored uncompressed (nothing is inflated: what is read is at most the file's size) with the
dtype and shape the stamp's row counts give, and `MemoryIndex.load` checks the arrays'
invariants.
"""

from __future__ import annotations

import contextlib
import math
import mmap
import os
import struct
import threading
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any

import numpy as np

from reme_core.files.state_files import NEW_FILE, open_regular
from reme_core.index.found_links import FoundLinks
from reme_core.index.index_columns import FileColumns, IndexColumns
from reme_core.index.link_columns import LinkColumns
from reme_core.index.name_field import NameColumns
from reme_core.index.posting_lists import term_major
from reme_core.index.stored_text import (
    JsonRows,
    is_mapping,
    is_text_list,
    pack_json,
    pack_rows,
    pack_strings,
    unpack_json,
    unpack_strings,
    unpack_table,
)

SNAPSHOT_NAME = "bm25-postings.npz"
# 3: strings NUL-joined, per-file JSON rows, postings checked per term; 4: no sums;
# 5: file dates by SPEC §14 (a date in the file name, any folder, `created`)
_VERSION = 5
_SAVING = threading.Lock()  # one writer per process: the temporary file is named by pid


def stamp(generation: int, state: tuple[float, ...]) -> np.ndarray:
    """What a snapshot must match to stand for this stored state (`Store.state`)."""
    values = [_VERSION, generation]
    for v in state:  # floats by their bits: equal sums of the same rows are bit-identical
        values.append(int(np.float64(v).view(np.int64)) if isinstance(v, float) else int(v))
    return np.array(values, dtype=np.int64)


# Each member's dtype and shape: each dimension names a count of the stamp (`_sizes`), or
# "postings" (the same in both members that have it), or None (JSON text: any length).
_I8, _I4 = np.dtype("<i8"), np.dtype("<i4")
_MEMBERS: dict[str, tuple[np.dtype, tuple[str | None, ...]]] = {
    "stamp": (_I8, ("stamp",)),
    "ptr": (_I8, ("terms+1",)),
    "docs": (_I4, ("postings",)),
    "tfs": (_I4, ("postings",)),
    "doc_lengths": (_I8, ("chunks",)),
    "doc_rowid": (_I8, ("chunks",)),
    "doc_file": (_I8, ("chunks",)),
    "doc_start": (_I4, ("chunks",)),
    "doc_end": (_I4, ("chunks",)),
    "vocab": (np.dtype("u1"), (None,)),
    "file_ids": (_I8, ("files",)),
    "file_mtimes": (np.dtype("<f8"), ("files",)),
    "file_sizes": (_I8, ("files",)),
    "file_dates": (_I4, ("files",)),
    "file_paths": (np.dtype("u1"), (None,)),
    "file_hashes": (np.dtype("u1"), (None,)),
    "file_origins": (np.dtype("u1"), (None,)),
    "file_frontmatter": (np.dtype("u1"), (None,)),
    "file_warnings": (np.dtype("u1"), (None,)),
    "file_tags": (np.dtype("u1"), (None,)),
    "link_strings": (np.dtype("u1"), (None,)),
    "link_ints": (_I4, ("six", "links")),
    "link_embed": (np.dtype("?"), ("links",)),
}
# The Latin name field (`NameColumns`): all of these or none (a snapshot written before the
# field was built); "names" is the same length in both members that have it.
_NAME_MEMBERS: dict[str, tuple[np.dtype, tuple[str | None, ...]]] = {
    "name_ptr": (_I8, ("files+1",)),
    "name_terms": (_I4, ("names",)),
    "name_tfs": (_I4, ("names",)),
    "name_vocab": (np.dtype("u1"), (None,)),
}
# The Latin property field, likewise (all or none, independent of the name field).
_PROP_MEMBERS: dict[str, tuple[np.dtype, tuple[str | None, ...]]] = {
    "prop_ptr": (_I8, ("files+1",)),
    "prop_terms": (_I4, ("props",)),
    "prop_tfs": (_I4, ("props",)),
    "prop_vocab": (np.dtype("u1"), (None,)),
}
# Each field's term-major postings (`NameColumns.postings`): optional, all or none, and
# only beside their field; the pointers' length is checked against the field's vocabulary.
_NAME_POSTINGS: dict[str, tuple[np.dtype, tuple[str | None, ...]]] = {
    "name_tptr": (_I8, (None,)),
    "name_tdocs": (_I4, ("names",)),
    "name_ttfs": (_I4, ("names",)),
}
_PROP_POSTINGS: dict[str, tuple[np.dtype, tuple[str | None, ...]]] = {
    "prop_tptr": (_I8, (None,)),
    "prop_tdocs": (_I4, ("props",)),
    "prop_ttfs": (_I4, ("props",)),
}
# A vault's links as resolved, and the attachments among which (`FoundLinks`): optional too.
_FOUND_MEMBERS: dict[str, tuple[np.dtype, tuple[str | None, ...]]] = {
    "found_target": (_I4, ("links",)),
    "found_head": (np.dtype("u1"), (None,)),
}
_OPTIONAL = (_NAME_MEMBERS, _PROP_MEMBERS, _NAME_POSTINGS, _PROP_POSTINGS, _FOUND_MEMBERS)
_SHARED = ("postings", "names", "props")  # dimensions fixed by the first member having them
# Not checksummed (nine tenths of the file): `PostingLists` checks each term's postings when
# a search first reads them, so an open maps them without touching a page.
_UNCHECKED = frozenset({"docs", "tfs"})


# A zip member's local header: signature ... file name length, extra field length.
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")


def _sizes(expected: np.ndarray) -> dict[str, int]:
    """The lengths the stamp's counts fix (`Store.state`: files, max id, chunks, max rowid,
    links, terms after the version and generation)."""
    counts = expected.tolist()
    return {
        "stamp": len(counts),
        "files": counts[2],
        "chunks": counts[4],
        "links": counts[6],
        "terms+1": counts[7] + 1,
        "files+1": counts[2] + 1,
        "six": 6,
    }


def _read_members(fh: IO[bytes], expected: np.ndarray) -> dict[str, np.ndarray] | None:
    """Every member as an array over a private map of the file, or None when the stamp is
    not `expected` or a member is not what a snapshot of this stamp holds.

    Sizes are checked before anything is touched: members are stored, not compressed,
    inside the file; each header's dtype and shape must be the expected ones and its data
    exactly that long; each member's CRC must hold. The arrays are views of a copy-on-write
    map (no read into fresh memory: ~0.3 s of a 50k open), writable without touching the
    file. The stamp is read first, so a stale snapshot costs little more than its directory.
    """
    want = _sizes(expected)
    size = os.fstat(fh.fileno()).st_size
    with zipfile.ZipFile(fh) as archive:
        infos = sorted(archive.infolist(), key=lambda info: info.filename != "stamp.npy")
    members: dict[str, tuple[np.dtype, tuple[str | None, ...]]] = {}
    for group in (_MEMBERS, *_OPTIONAL):
        members.update(group)
    names = {i.filename for i in infos}
    required = {f"{key}.npy" for key in _MEMBERS}
    # every required member, and each optional group whole or not at all
    if len(names) != len(infos) or not required <= names:
        return None
    rest = names - required
    for group in _OPTIONAL:
        keys = {f"{key}.npy" for key in group}
        if keys & rest and not keys <= rest:
            return None
        rest -= keys
    if rest:
        return None
    view = memoryview(mmap.mmap(fh.fileno(), size, access=mmap.ACCESS_COPY))
    out: dict[str, np.ndarray] = {}
    shared: dict[str, int] = {}
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
            return None
        key = info.filename[: -len(".npy")]
        arr = _read_member(fh, view, info, *members[key], want, shared, key not in _UNCHECKED)
        if arr is None or (key == "stamp" and not np.array_equal(arr, expected)):
            return None
        out[key] = arr
    return out


def _read_member(
    fh: IO[bytes],
    view: memoryview,
    info: zipfile.ZipInfo,
    dtype: np.dtype,
    dims: tuple[str | None, ...],
    want: dict[str, int],
    shared: dict[str, int],
    checksum: bool = True,
) -> np.ndarray | None:
    """One stored `.npy` member, mapped only once its header says what `dtype` and `dims`
    expect and that its data ends where the member does."""
    size = len(view)
    fh.seek(info.header_offset)
    local = fh.read(_LOCAL_HEADER.size)
    if len(local) != _LOCAL_HEADER.size or local[:4] != b"PK\x03\x04":
        return None
    name_len, extra_len = _LOCAL_HEADER.unpack(local)[-2:]
    start = info.header_offset + _LOCAL_HEADER.size + name_len + extra_len
    if start + info.file_size > size:
        return None
    fh.seek(start)
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, fortran, found = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, fortran, found = np.lib.format.read_array_header_2_0(fh)
    else:
        return None
    if fortran or found != dtype or len(shape) != len(dims):
        return None
    for n, dim in zip(shape, dims, strict=True):
        if dim in _SHARED:
            if shared.setdefault(dim, n) != n:
                return None
        elif dim is not None and n != want[dim]:
            return None
    header = fh.tell() - start
    count = math.prod(shape)
    if header + count * dtype.itemsize != info.file_size:
        return None
    end = start + info.file_size
    if checksum and zlib.crc32(view[start:end]) != info.CRC:
        return None
    return np.frombuffer(view, dtype, count, start + header).reshape(shape)


def load(path: Path, expected: np.ndarray) -> IndexColumns | None:
    """The snapshot's columns when its stamp is `expected`, else None."""
    fh = open_regular(path)
    if fh is None:
        return None
    try:
        with fh:
            data = _read_members(fh, expected)
            if data is None:
                return None
            link_ints = data["link_ints"]
            if link_ints.ndim != 2 or link_ints.shape[0] != 6:
                return None
            return IndexColumns(
                vocab=unpack_table(data["vocab"], len(data["ptr"]) - 1),
                postings=(data["ptr"], data["docs"], data["tfs"]),
                doc_lengths=data["doc_lengths"],
                doc_rowid=data["doc_rowid"],
                doc_file=data["doc_file"],
                doc_start=data["doc_start"],
                doc_end=data["doc_end"],
                files=_files(data),
                links=LinkColumns(
                    unpack_table(data["link_strings"]),
                    link_ints[0],
                    link_ints[1],
                    link_ints[2],
                    link_ints[3],
                    link_ints[4],
                    line=link_ints[5],
                    embed=data["link_embed"],
                ),
                names=_names(data, "name"),
                props=_names(data, "prop"),
                found=_found(data),
                postings_checked=False,
            )
    except (OSError, ValueError, KeyError, TypeError, EOFError, RecursionError, MemoryError):
        return None
    except zipfile.BadZipFile:
        return None


def _files(data: dict[str, np.ndarray]) -> FileColumns:
    n = len(data["file_ids"])
    return FileColumns(
        ids=data["file_ids"],
        paths=unpack_strings(data["file_paths"], n),
        mtimes=data["file_mtimes"],
        sizes=data["file_sizes"],
        hashes=unpack_table(data["file_hashes"], n),
        frontmatter=JsonRows(data["file_frontmatter"], n, is_mapping, dict),
        warnings=JsonRows(data["file_warnings"], n, is_text_list, list),
        origins=unpack_table(data["file_origins"], n),
        dates=data["file_dates"],
        tags=JsonRows(data["file_tags"], n, is_text_list, list),
    )


def _names(data: dict[str, np.ndarray], prefix: str) -> NameColumns | None:
    """The stored name (``prefix`` "name") or property ("prop") field, or None (absent, or
    not of the expected shape: then it is built again on first use;
    `NameField.from_columns` checks the rest)."""
    if f"{prefix}_ptr" not in data:
        return None
    head = unpack_json(data[f"{prefix}_vocab"])
    if not isinstance(head, dict):
        return None
    vocab, cjk_free = head.get("vocab"), head.get("cjk_free")
    if not isinstance(vocab, list) or not all(isinstance(t, str) for t in vocab):
        return None
    if not isinstance(cjk_free, bool):
        return None
    ptr, terms, tfs = (data[f"{prefix}_{key}"] for key in ("ptr", "terms", "tfs"))
    postings = None
    if f"{prefix}_tptr" in data:
        postings = (data[f"{prefix}_tptr"], data[f"{prefix}_tdocs"], data[f"{prefix}_ttfs"])
    return NameColumns(ptr, terms, tfs, vocab, cjk_free, postings)


def save(path: Path, current: np.ndarray, cols: IndexColumns) -> None:
    """Write a snapshot atomically (temporary file, then rename); errors are ignored."""
    with _SAVING:
        _save(path, current, cols)


def _save(path: Path, current: np.ndarray, cols: IndexColumns) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    files, links = cols.files, cols.links
    try:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        # A new file of our own: never written through a symlink or into a FIFO left there.
        with os.fdopen(os.open(tmp, NEW_FILE, 0o644), "wb") as fh:
            ptr, docs, tfs = cols.postings
            np.savez(
                fh,
                stamp=current,
                ptr=ptr,
                docs=docs,
                tfs=tfs,
                doc_lengths=cols.doc_lengths,
                doc_rowid=cols.doc_rowid,
                doc_file=cols.doc_file,
                doc_start=cols.doc_start,
                doc_end=cols.doc_end,
                vocab=pack_strings(cols.vocab),
                file_ids=files.ids,
                file_mtimes=files.mtimes,
                file_sizes=files.sizes,
                file_dates=files.dates,
                file_paths=pack_strings(files.paths),
                file_hashes=pack_strings(files.hashes),
                file_origins=pack_strings(files.origins),
                file_frontmatter=pack_rows(files.frontmatter),
                file_warnings=pack_rows(files.warnings),
                file_tags=pack_rows(files.tags or [[] for _ in files.paths]),
                link_strings=pack_strings(links.strings),
                link_ints=np.stack(
                    [links.source, links.target, links.anchor, links.alias, links.raw, links.line]
                ).astype(np.int32),
                link_embed=links.embed,
                **_name_members(cols.names, "name"),
                **_name_members(cols.props, "prop"),
                **_found_member(cols.found),
            )
        os.replace(tmp, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            tmp.unlink()


def _name_members(names: NameColumns | None, prefix: str) -> dict[str, Any]:
    if names is None:
        return {}
    ptr = np.asarray(names.ptr, dtype=np.int64)
    terms = np.asarray(names.term_ids, dtype=np.int32)
    tfs = np.asarray(names.tfs, dtype=np.int32)
    t_ptr, t_docs, t_tfs = term_major(ptr, terms, tfs, len(names.vocab))
    return {
        f"{prefix}_ptr": ptr,
        f"{prefix}_terms": terms,
        f"{prefix}_tfs": tfs,
        f"{prefix}_vocab": pack_json({"vocab": names.vocab, "cjk_free": names.cjk_free}),
        f"{prefix}_tptr": np.asarray(t_ptr, dtype=np.int64),
        f"{prefix}_tdocs": t_docs,
        f"{prefix}_ttfs": t_tfs,
    }


def _found_member(found: FoundLinks | None) -> dict[str, Any]:
    if found is None:
        return {}
    return {"found_target": found.target.astype(np.int32), "found_head": found.head()}


def _found(data: dict[str, np.ndarray]) -> FoundLinks | None:
    if "found_target" not in data:
        return None
    return FoundLinks.unpack(data["found_target"], data["found_head"])
