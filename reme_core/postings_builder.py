"""Term-major BM25 postings of a rebuild's doc-major batches, placed once by a counting sort."""

from __future__ import annotations

import numpy as np

from reme_core.bm25 import as_csr, term_keys


class PostingsBuilder:
    """Term-major postings of doc-major batches, built once at the end by a counting sort.

    A rebuild adds each parsed batch here instead of merging it into a live index: the batches
    are kept as they came (term ids int32, counts in the narrowest type that holds them: one
    byte nearly always) and scattered into place one by one in `finish`, so the peak is the
    finished postings plus the batches, with no int64 sort key over every posting.
    """

    def __init__(self) -> None:
        self._batches: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (ptr, terms, tfs)
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
        self._batches.append((doc_ptr, term_ids, _compact(tfs)))
        self._n_docs += m
        self._n_postings += len(term_ids)

    def finish(self, n_terms: int) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
        """The term-major ``(ptr, docs, tfs)`` and every document's length; empties the builder."""
        n_terms = max([n_terms] + [int(t.max()) + 1 for _, t, _ in self._batches if len(t)])
        counts = np.zeros(n_terms, dtype=np.int64)
        for _, terms, _ in self._batches:
            counts += np.bincount(terms, minlength=n_terms)
        ptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(counts, out=ptr[1:])
        cursor = ptr[:-1].copy()
        out_docs = np.empty(self._n_postings, dtype=np.int32)
        out_tfs = np.empty(self._n_postings, dtype=np.int32)
        batches, self._batches = self._batches, []
        batches.reverse()
        first = 0
        while batches:  # in batch order, so each term's documents stay ascending
            doc_ptr, terms, tfs = batches.pop()
            m = len(doc_ptr) - 1
            docs = np.repeat(np.arange(first, first + m, dtype=np.int32), np.diff(doc_ptr))
            first += m
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
        return (ptr, out_docs, out_tfs), lengths


def _compact(tfs: np.ndarray) -> np.ndarray:
    """Term counts in one byte, or two, when they fit (a 50k rebuild holds 17M of them)."""
    top = int(tfs.max()) if len(tfs) else 0
    for dtype in (np.uint8, np.uint16):
        if top <= np.iinfo(dtype).max:
            return tfs.astype(dtype)
    return tfs
