"""Parsed batches into rows: what the indexer and the rebuild both hand to the store.

Also the "racily clean" rule both apply to a file read moments after it was written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from reme_core.store.database import BatchWrite

if TYPE_CHECKING:
    from reme_core.parse.parsing import ParsedBatch, TermSpaces

# A file read within RACY_SECONDS of its mtime could still change within the same timestamp
# tick without changing its size (git's "racily clean" problem). Such files are stored with
# RACY_MTIME, so the next start-up diff confirms them by content hash instead of trusting them.
RACY_SECONDS = 2.0
RACY_MTIME = -1.0


def mark_racy(batch: ParsedBatch, now: float) -> None:
    """Store files read within RACY_SECONDS of their mtime with RACY_MTIME."""
    mtimes = batch.parsed.mtimes
    for i, mtime in enumerate(mtimes):
        if now - mtime < RACY_SECONDS:
            mtimes[i] = RACY_MTIME


def batch_writes(
    batches: Sequence[ParsedBatch], spaces: TermSpaces, origin_of: Callable[[str], str]
) -> list[BatchWrite]:
    """Each batch's rows: CSR pointers over its chunks' vocabulary ids, each file's origin."""
    writes = []
    for batch in batches:
        ids = spaces.ids(batch)
        ptr = np.zeros(len(batch.doc_nterms) + 1, dtype=np.int64)
        np.cumsum(batch.doc_nterms, out=ptr[1:])
        origins = list(map(origin_of, batch.parsed.paths))
        writes.append(BatchWrite(batch.parsed, origins, ptr, ids, batch.tfs))
    return writes
