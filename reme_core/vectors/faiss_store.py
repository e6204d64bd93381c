"""Approximate search with faiss `IndexHNSWFlat` (inner product on unit vectors).

HNSW cannot delete, so faiss ids are insertion positions, mapped to doc ids here; removed or
replaced docs are tombstoned positions, excluded during the graph search by an
`IDSelectorBitmap` and dropped for good when `optimize()` rebuilds the index from live vectors.
A filtered graph walk sees only a fraction of the nodes it visits, so its beam (efSearch) is
widened by the inverse of the eligible fraction; when few vectors are eligible (a narrow
filter, many tombstones) the walk would cost more than a scan and can miss them, so such
searches, and any search that comes back short, are answered exactly from the flat storage
that HNSW keeps anyway.
"""

from __future__ import annotations

import math
import os
import threading
from typing import Any

import numpy as np

from reme_core.index.bm25 import top_k
from reme_core.vectors.store import (
    check_batch,
    check_query,
    empty_result,
    grown,
    mask_over,
    remap,
)

_faiss: Any = None


def _import_faiss() -> Any:
    """Import faiss on first use and cap its OpenMP threads (a UI shares the machine)."""
    global _faiss
    if _faiss is None:
        import faiss

        faiss.omp_set_num_threads(max(1, min(2, os.cpu_count() or 1)))
        _faiss = faiss
    return _faiss


class FaissHNSWStore:
    """HNSW graph over unit vectors, same interface as `ExactVectorStore`."""

    def __init__(
        self,
        dim: int,
        m: int = 32,
        ef_search: int = 64,
        ef_construction: int = 80,
        brute_force_below: int = 2048,
        min_graph_fraction: float = 0.25,
    ) -> None:
        if dim <= 0:
            raise ValueError(f"dim must be positive, got {dim}")
        self.dim = dim
        self.m = m
        self.ef_search = ef_search
        self.ef_construction = ef_construction
        self.brute_force_below = brute_force_below
        self.min_graph_fraction = min_graph_fraction
        self._faiss = _import_faiss()
        self._lock = threading.RLock()
        self._reset()

    def _reset(self) -> None:
        faiss = self._faiss
        self._index = faiss.IndexHNSWFlat(self.dim, self.m, faiss.METRIC_INNER_PRODUCT)
        self._index.hnsw.efConstruction = self.ef_construction
        self._index.hnsw.efSearch = self.ef_search
        self._pos_doc = np.zeros(0, dtype=np.int64)  # faiss position -> doc id
        self._pos_dead = np.zeros(0, dtype=bool)  # tombstoned positions
        self._doc_pos = np.zeros(0, dtype=np.int64)  # doc id -> live position, -1 = none
        self._n_dead = 0

    def __len__(self) -> int:
        return int(self._index.ntotal) - self._n_dead

    @property
    def n_tombstones(self) -> int:
        return self._n_dead

    def _stored(self) -> np.ndarray:
        """Zero-copy (ntotal, dim) view of the vectors inside the index; valid until `add`."""
        n = int(self._index.ntotal)
        if n == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        flat = self._faiss.downcast_index(self._index.storage)
        return self._faiss.rev_swig_ptr(flat.get_xb(), n * self.dim).reshape(n, self.dim)

    def _tombstone(self, doc_ids: np.ndarray) -> int:
        ids = doc_ids[doc_ids < self._doc_pos.size]
        pos = self._doc_pos[ids]
        pos = np.unique(pos[pos >= 0])
        self._pos_dead[pos] = True
        self._doc_pos[ids] = -1
        self._n_dead += pos.size
        return int(pos.size)

    def add(self, doc_ids: np.ndarray, vectors: np.ndarray) -> None:
        """Insert or replace (the old position of a replaced doc becomes a tombstone)."""
        ids, vecs = check_batch(doc_ids, vectors, self.dim)
        if ids.size == 0:
            return
        with self._lock:
            self._tombstone(ids)
            start = int(self._index.ntotal)
            self._index.add(vecs)
            end = start + ids.size
            self._pos_doc = grown(self._pos_doc, end, -1)
            self._pos_dead = grown(self._pos_dead, end, False)
            self._doc_pos = grown(self._doc_pos, int(ids.max()) + 1, -1)
            self._pos_doc[start:end] = ids
            self._doc_pos[ids] = np.arange(start, end)

    def remove(self, doc_ids: np.ndarray) -> int:
        ids = np.asarray(doc_ids, dtype=np.int64).reshape(-1)
        with self._lock:
            return self._tombstone(ids[ids >= 0])

    def search(
        self, query_vec: np.ndarray, k: int, mask: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k live (and unmasked) docs by inner product, best first (approximate)."""
        q = check_query(query_vec, self.dim)
        with self._lock:
            n = int(self._index.ntotal)
            if k <= 0 or n == self._n_dead:
                return empty_result()
            allowed: np.ndarray | None = None
            if self._n_dead:
                allowed = ~self._pos_dead[:n]
            allowed_docs = mask_over(mask, self._doc_pos.size)
            if allowed_docs is not None:
                by_pos = allowed_docs[self._pos_doc[:n]]
                allowed = by_pos if allowed is None else allowed & by_pos
            n_allowed = n if allowed is None else int(np.count_nonzero(allowed))
            if n_allowed == 0:
                return empty_result()
            fraction = n_allowed / n
            if n_allowed > self.brute_force_below and fraction >= self.min_graph_fraction:
                docs, scores = self._graph_search(q, k, allowed, fraction)
                if docs.size >= min(k, n_allowed):
                    return top_k(docs, scores, k)
            return self._exact_search(q, k, allowed)

    def _graph_search(
        self, q: np.ndarray, k: int, allowed: np.ndarray | None, fraction: float
    ) -> tuple[np.ndarray, np.ndarray]:
        faiss = self._faiss
        params = faiss.SearchParametersHNSW()
        # a beam of 2k keeps recall up for large candidate lists; filtered-out nodes use
        # beam slots without yielding results, hence the division by the eligible fraction
        beam = math.ceil(max(self.ef_search, 2 * k) / fraction)
        params.efSearch = max(k, min(beam, int(self._index.ntotal)))
        if allowed is not None:
            # `bits` and `selector` are locals, so they outlive the search that reads them
            bits = np.packbits(allowed, bitorder="little")
            selector = faiss.IDSelectorBitmap(allowed.size, faiss.swig_ptr(bits))
            params.sel = selector
        scores, positions = self._index.search(q.reshape(1, -1), k, params=params)
        found = positions[0] >= 0
        pos = positions[0][found]
        return self._pos_doc[pos], scores[0][found]

    def _exact_search(
        self, q: np.ndarray, k: int, allowed: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        stored = self._stored()
        if allowed is None:
            return top_k(self._pos_doc[: stored.shape[0]], stored @ q, k)
        pos = np.flatnonzero(allowed)
        scores = stored[pos] @ q if 8 * pos.size < allowed.size else (stored @ q)[pos]
        return top_k(self._pos_doc[pos], scores, k)

    def doc_ids(self) -> np.ndarray:
        with self._lock:
            return np.flatnonzero(self._doc_pos >= 0).astype(np.int64)

    def optimize(self, doc_map: np.ndarray | None = None) -> dict[str, int]:
        """Rebuild the graph from live vectors, renumbered through `doc_map` (old -> new, -1 =
        gone). Costs a full HNSW build, so run it off the UI thread."""
        with self._lock:
            live = self.doc_ids()
            new_ids, keep = remap(live, doc_map)
            vecs = self._stored()[self._doc_pos[live[keep]]].copy()
            report = {
                "live_before": len(self),
                "tombstones_removed": self._n_dead,
                "dropped": int(live.size - keep.sum()),
            }
            self._reset()
            self.add(new_ids[keep], vecs)
            report["live_after"] = len(self)
            return report
