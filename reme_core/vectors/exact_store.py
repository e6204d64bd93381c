"""Exact cosine search by one matrix-vector product: the default store.

Row `i` of the matrix is doc `i`, so there is no id map to keep in step with BM25, and a scan
of 50k × 512 floats takes a few milliseconds, which is fast enough for a personal workspace and
always exact.
"""

from __future__ import annotations

import threading

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

_EMPTY, _LIVE, _DEAD = 0, 1, 2


class ExactVectorStore:
    """Float32 matrix of unit vectors indexed by doc id, with tombstones."""

    def __init__(self, dim: int) -> None:
        if dim <= 0:
            raise ValueError(f"dim must be positive, got {dim}")
        self.dim = dim
        self._lock = threading.RLock()
        self._reset()

    def _reset(self) -> None:
        self._matrix = np.zeros((0, self.dim), dtype=np.float32)
        self._state = np.zeros(0, dtype=np.int8)
        self._span = 0  # 1 + the largest doc id ever added since the last optimize
        self._n_live = 0
        self._n_dead = 0

    def __len__(self) -> int:
        return self._n_live

    @property
    def n_tombstones(self) -> int:
        return self._n_dead

    def add(self, doc_ids: np.ndarray, vectors: np.ndarray) -> None:
        """Insert or replace; re-adding a tombstoned doc brings it back."""
        ids, vecs = check_batch(doc_ids, vectors, self.dim)
        if ids.size == 0:
            return
        with self._lock:
            need = int(ids.max()) + 1
            self._matrix = grown(self._matrix, need, 0)
            self._state = grown(self._state, need, _EMPTY)
            old = self._state[ids]
            self._n_live += int(np.count_nonzero(old != _LIVE))
            self._n_dead -= int(np.count_nonzero(old == _DEAD))
            self._matrix[ids] = vecs
            self._state[ids] = _LIVE
            self._span = max(self._span, need)

    def remove(self, doc_ids: np.ndarray) -> int:
        ids = np.asarray(doc_ids, dtype=np.int64).reshape(-1)
        with self._lock:
            ids = np.unique(ids[(ids >= 0) & (ids < self._span)])
            ids = ids[self._state[ids] == _LIVE]
            self._state[ids] = _DEAD
            self._n_live -= ids.size
            self._n_dead += ids.size
            return int(ids.size)

    def search(
        self, query_vec: np.ndarray, k: int, mask: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k live (and unmasked) docs by inner product, best first."""
        q = check_query(query_vec, self.dim)
        with self._lock:
            n = self._span
            if k <= 0 or self._n_live == 0:
                return empty_result()
            eligible = self._state[:n] == _LIVE
            allowed = mask_over(mask, n)
            if allowed is not None:
                eligible &= allowed
            docs = np.flatnonzero(eligible)
            if docs.size == 0:
                return empty_result()
            # gathering rows costs a few times more per row than a streaming scan, so only
            # a small subset is gathered; otherwise scan everything and pick
            few = 8 * docs.size < n
            scores = self._matrix[docs] @ q if few else (self._matrix[:n] @ q)[docs]
        return top_k(docs, scores, k)

    def doc_ids(self) -> np.ndarray:
        with self._lock:
            return np.flatnonzero(self._state[: self._span] == _LIVE).astype(np.int64)

    def optimize(self, doc_map: np.ndarray | None = None) -> dict[str, int]:
        """Compact: drop tombstones, renumber through `doc_map` (old -> new, -1 = gone).

        Live docs that the map sends to -1 (or that lie beyond it) are dropped and counted.
        """
        with self._lock:
            live = self.doc_ids()
            new_ids, keep = remap(live, doc_map)
            vecs = self._matrix[live[keep]]
            report = {
                "live_before": self._n_live,
                "tombstones_removed": self._n_dead,
                "dropped": int(live.size - keep.sum()),
            }
            self._reset()
            self.add(new_ids[keep], vecs)
            report["live_after"] = self._n_live
            return report
