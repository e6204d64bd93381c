"""Term-major BM25 postings of a rebuild's doc-major batches, placed once by a counting sort."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import numpy as np

from reme_core.index.posting_lists import as_csr, term_keys

# A batch's term ids or counts: in memory, or (offset, length, dtype) in the spill file.
_Held = np.ndarray | tuple[int, int, str]


class PostingsBuilder:
    """Term-major postings of doc-major batches, built once at the end by a counting sort.

    A rebuild adds each parsed batch here instead of merging it into a live index, and the
    batches are scattered into place one by one in `finish`: no int64 sort key over every
    posting. Until then a batch's term ids and counts (counts in one byte nearly always) wait
    in a temporary file in ``spill_dir`` when one is given (a 50k rebuild holds 88 MB of them:
    page cache the system can reclaim, not the process's memory), else in memory.
    """

    def __init__(self, spill_dir: Path | None = None) -> None:
        self._spill = None
        if spill_dir is not None:
            import tempfile  # a rebuild's; a search never spills

            # Open until `finish` or `close`; no room or no right to write: keep them here.
            with contextlib.suppress(OSError):
                self._spill = tempfile.TemporaryFile(dir=spill_dir, prefix="reme-postings-")  # noqa: SIM115
        self._spilled = 0
        self._batches: list[tuple[np.ndarray, _Held, _Held]] = []  # (ptr, terms, tfs)
        self._counts = np.zeros(0, dtype=np.int64)  # postings per term id so far
        self._lengths: list[np.ndarray] = []
        self._n_docs = 0
        self._n_postings = 0

    @property
    def n_docs(self) -> int:
        """Documents added so far."""
        return self._n_docs

    def add(self, doc_ptr: np.ndarray, term_ids: np.ndarray, tfs: np.ndarray) -> None:
        """Append a CSR batch of documents (unique, non-negative term ids per document)."""
        doc_ptr, term_ids, tfs = as_csr(doc_ptr, term_ids, tfs)
        m = len(doc_ptr) - 1
        sums = np.zeros(len(tfs) + 1, dtype=np.int64)
        np.cumsum(tfs, out=sums[1:])
        self._lengths.append(sums[doc_ptr[1:]] - sums[doc_ptr[:-1]])
        if len(term_ids):
            counts = np.bincount(term_ids)
            if len(counts) > len(self._counts):
                self._counts = np.pad(self._counts, (0, len(counts) - len(self._counts)))
            self._counts[: len(counts)] += counts
        self._batches.append((doc_ptr, self._hold(term_ids), self._hold(_compact(tfs))))
        self._n_docs += m
        self._n_postings += len(term_ids)

    def finish(self, n_terms: int) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
        """The term-major ``(ptr, docs, tfs)`` and every document's length; empties the builder."""
        n_terms = max(n_terms, len(self._counts))
        ptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(self._counts, out=ptr[1 : len(self._counts) + 1])
        ptr[len(self._counts) + 1 :] = ptr[len(self._counts)]
        cursor = ptr[:-1].copy()
        out_docs = np.empty(self._n_postings, dtype=np.int32)
        out_tfs = np.empty(self._n_postings, dtype=np.int32)
        if self._spill is not None:
            self._spill.flush()
        batches, self._batches = self._batches, []
        batches.reverse()
        first = 0
        while batches:  # in batch order, so each term's documents stay ascending
            doc_ptr, held_terms, held_tfs = batches.pop()
            m = len(doc_ptr) - 1
            docs = np.repeat(np.arange(first, first + m, dtype=np.int32), np.diff(doc_ptr))
            first += m
            terms, tfs = self._fetch(held_terms), self._fetch(held_tfs)
            if not len(terms):
                continue
            order = term_keys(terms) & 0xFFFFFFFF  # a stable argsort by term, but faster
            sorted_terms = terms[order]
            starts = np.flatnonzero(np.r_[True, sorted_terms[1:] != sorted_terms[:-1]])
            sizes = np.diff(np.r_[starts, len(order)])
            rank = np.arange(len(order)) - np.repeat(starts, sizes)
            at = cursor[sorted_terms] + rank
            out_docs[at] = docs[order]
            out_tfs[at] = tfs[order]
            cursor[sorted_terms[starts]] += sizes
        lengths = np.concatenate(self._lengths) if self._lengths else np.zeros(0, np.int64)
        self._lengths, self._n_docs, self._n_postings = [], 0, 0
        self._counts = np.zeros(0, dtype=np.int64)
        self.close()
        return (ptr, out_docs, out_tfs), lengths

    def close(self) -> None:
        """Drop the spill file (it has no name: a crash leaves nothing behind either)."""
        if self._spill is not None:
            self._spill.close()
            self._spill, self._spilled = None, 0

    def _hold(self, values: np.ndarray) -> _Held:
        if self._spill is None:
            return values
        at = self._spilled
        self._spill.write(memoryview(np.ascontiguousarray(values).data).cast("B"))
        self._spilled += values.nbytes
        return at, len(values), values.dtype.str

    def _fetch(self, held: _Held) -> np.ndarray:
        if isinstance(held, np.ndarray):
            return held
        assert self._spill is not None
        at, n, dtype = held
        size = n * np.dtype(dtype).itemsize
        return np.frombuffer(os.pread(self._spill.fileno(), size, at), dtype=dtype)


def _compact(tfs: np.ndarray) -> np.ndarray:
    """Term counts in one byte, or two, when they fit (a 50k rebuild holds 17M of them)."""
    top = int(tfs.max()) if len(tfs) else 0
    for dtype in (np.uint8, np.uint16):
        if top <= np.iinfo(dtype).max:
            return tfs.astype(dtype)
    return tfs
