"""A numpy snapshot of the BM25 postings, stamped with the stored rows it was built from.

Sorting every posting into term order is the bulk of loading the index at open. The snapshot
(``metadata/bm25-postings.npz``: plain arrays, and ``np.load`` refuses pickles) replaces that
sort when its stamp matches the rows just read in the same read transaction: the database
generation, the counts of chunks, postings and terms, and sums of term ids and frequencies.
Anything else (missing, stale, damaged, unwritable) means the postings are built as before.
"""

from __future__ import annotations

import contextlib
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from reme_core.store import ChunkArrays

SNAPSHOT_NAME = "bm25-postings.npz"
_VERSION = 1
Postings = tuple[np.ndarray, np.ndarray, np.ndarray]


def stamp(generation: int, chunks: ChunkArrays, n_terms: int) -> np.ndarray:
    """What a snapshot must match to stand for these rows."""
    return np.array(
        [
            _VERSION,
            generation,
            len(chunks.doc_ptr) - 1,
            len(chunks.term_ids),
            n_terms,
            int(chunks.term_ids.sum(dtype=np.int64)),
            int(chunks.tfs.sum(dtype=np.int64)),
        ],
        dtype=np.int64,
    )


def load(path: Path, expected: np.ndarray) -> Postings | None:
    """The snapshot's (ptr, docs, tfs) when its stamp is `expected`, else None."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if not np.array_equal(data["stamp"], expected):
                return None
            return data["ptr"], data["docs"], data["tfs"]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None


def save(path: Path, current: np.ndarray, postings: Postings) -> None:
    """Write a snapshot atomically (temporary file, then rename); errors are ignored."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            ptr, docs, tfs = postings
            np.savez(fh, stamp=current, ptr=ptr, docs=docs, tfs=tfs)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def remove_stale(path: Path, alive: Callable[[int], bool]) -> None:
    """Delete temporary snapshot files left by processes killed between write and rename."""
    for leftover in path.parent.glob(f"{path.name}.*.tmp"):
        pid = leftover.name[len(path.name) + 1 : -len(".tmp")]
        if pid.isdigit() and not alive(int(pid)):
            with contextlib.suppress(OSError):
                leftover.unlink()
