"""A numpy snapshot of the in-memory index, stamped with the stored state it was built from.

Reading every stored row (files, 200k links, chunk term blobs) and sorting every posting was
nearly all of opening a large workspace. The snapshot (``metadata/bm25-postings.npz``: plain
arrays and JSON text, and ``np.load`` refuses pickles) holds the BM25 postings, the per-chunk
and per-file columns, the links and the vocabulary. It is used when its stamp matches the
database read in the same read transaction: the generation, and counts and sums of the files,
chunks, links and terms (cheap aggregate queries, no row is read). `MemoryIndex.load` still
checks that the arrays fit together. Anything else (missing, stale, damaged, unwritable)
means the index is built from the rows as before, and the snapshot written again.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from reme_core.index_columns import FileColumns, IndexColumns
from reme_core.link_graph import LinkColumns

SNAPSHOT_NAME = "bm25-postings.npz"
_VERSION = 2
_SAVING = threading.Lock()  # one writer per process: the temporary file is named by pid


def stamp(generation: int, state: tuple[float, ...]) -> np.ndarray:
    """What a snapshot must match to stand for this stored state (`Store.state`)."""
    values = [_VERSION, generation]
    for v in state:  # floats by their bits: equal sums of the same rows are bit-identical
        values.append(int(np.float64(v).view(np.int64)) if isinstance(v, float) else int(v))
    return np.array(values, dtype=np.int64)


def _text(value: Any) -> np.ndarray:
    # ensure_ascii: lone surrogates (undecodable bytes kept by the decoder) survive as escapes
    return np.frombuffer(json.dumps(value, default=str).encode("ascii"), dtype=np.uint8)


def _untext(arr: np.ndarray) -> Any:
    if arr.dtype != np.uint8:
        raise ValueError("text arrays are bytes")
    return json.loads(arr.tobytes())


def load(path: Path, expected: np.ndarray) -> IndexColumns | None:
    """The snapshot's columns when its stamp is `expected`, else None."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if not np.array_equal(data["stamp"], expected):
                return None
            files = _untext(data["files"])
            link_ints = data["link_ints"]
            strings = _untext(data["link_strings"])
            if link_ints.ndim != 2 or link_ints.shape[0] != 6 or not isinstance(strings, list):
                return None
            return IndexColumns(
                vocab=_untext(data["vocab"]),
                postings=(data["ptr"], data["docs"], data["tfs"]),
                doc_lengths=data["doc_lengths"],
                doc_rowid=data["doc_rowid"],
                doc_file=data["doc_file"],
                doc_start=data["doc_start"],
                doc_end=data["doc_end"],
                files=FileColumns(
                    ids=data["file_ids"],
                    paths=files["paths"],
                    mtimes=data["file_mtimes"],
                    sizes=data["file_sizes"],
                    hashes=files["hashes"],
                    frontmatter=files["frontmatter"],
                    warnings=files["warnings"],
                    origins=files["origins"],
                    dates=data["file_dates"],
                ),
                links=LinkColumns(
                    strings,
                    *(link_ints[i] for i in range(5)),
                    line=link_ints[5],
                    embed=data["link_embed"],
                ),
            )
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
        return None


def save(path: Path, current: np.ndarray, cols: IndexColumns) -> None:
    """Write a snapshot atomically (temporary file, then rename); errors are ignored."""
    with _SAVING:
        _save(path, current, cols)


def _save(path: Path, current: np.ndarray, cols: IndexColumns) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    files, links = cols.files, cols.links
    try:
        with open(tmp, "wb") as fh:
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
                vocab=_text(cols.vocab),
                file_ids=files.ids,
                file_mtimes=files.mtimes,
                file_sizes=files.sizes,
                file_dates=files.dates,
                files=_text(
                    {
                        "paths": files.paths,
                        "hashes": files.hashes,
                        "frontmatter": files.frontmatter,
                        "warnings": files.warnings,
                        "origins": files.origins,
                    }
                ),
                link_strings=_text(links.strings),
                link_ints=np.stack(
                    [links.source, links.target, links.anchor, links.alias, links.raw, links.line]
                ).astype(np.int32),
                link_embed=links.embed,
            )
        os.replace(tmp, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            tmp.unlink()


def remove_stale(path: Path, alive: Callable[[int], bool]) -> None:
    """Delete temporary snapshot files left by processes killed between write and rename."""
    for leftover in path.parent.glob(f"{path.name}.*.tmp"):
        pid = leftover.name[len(path.name) + 1 : -len(".tmp")]
        if pid.isdigit() and not alive(int(pid)):
            with contextlib.suppress(OSError):
                leftover.unlink()
