"""What every vector store offers, and the input checks and top-k selection they share.

Doc ids are the dense ints of the BM25 index, so both branches of a hybrid search talk about
the same documents and a BM25 compaction (`optimize() -> old->new map`) can be followed here.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from reme_core.vectors.codec import l2_normalize

_NO_IDS = np.empty(0, dtype=np.int64)
_NO_SCORES = np.empty(0, dtype=np.float32)


@runtime_checkable
class VectorStore(Protocol):
    """In-memory nearest-neighbour index over unit vectors keyed by doc id (thread-safe)."""

    dim: int

    def add(self, doc_ids: np.ndarray, vectors: np.ndarray) -> None:
        """Insert or replace the vectors of `doc_ids` (rows are normalised on the way in)."""

    def remove(self, doc_ids: np.ndarray) -> int:
        """Tombstone these docs (unknown ids are ignored); returns how many were live."""

    def search(
        self, query_vec: np.ndarray, k: int, mask: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k live docs by cosine: (int64 doc ids, float32 scores), best first.

        `mask` is a boolean array indexed by doc id; only docs whose entry is True (and lies
        inside the array) can be returned.
        """

    def optimize(self, doc_map: np.ndarray | None = None) -> dict[str, int]:
        """Drop tombstones and renumber docs through `doc_map` (old id -> new id, -1 = gone)."""

    def doc_ids(self) -> np.ndarray:
        """Live doc ids, ascending."""

    def __len__(self) -> int: ...

    @property
    def n_tombstones(self) -> int: ...


def empty_result() -> tuple[np.ndarray, np.ndarray]:
    """The (ids, scores) pair of a search that found nothing."""
    return _NO_IDS.copy(), _NO_SCORES.copy()


def check_batch(
    doc_ids: np.ndarray, vectors: np.ndarray, dim: int
) -> tuple[np.ndarray, np.ndarray]:
    """Validate an `add` batch; a doc id listed twice keeps its last vector."""
    ids = np.asarray(doc_ids, dtype=np.int64).reshape(-1)
    vecs = np.asarray(vectors, dtype=np.float32)
    if vecs.ndim == 1 and ids.size == 1:
        vecs = vecs.reshape(1, -1)
    if vecs.ndim != 2 or vecs.shape != (ids.size, dim):
        raise ValueError(f"expected vectors of shape ({ids.size}, {dim}), got {vecs.shape}")
    if ids.size and ids.min() < 0:
        raise ValueError("doc ids must be non-negative")
    if not np.isfinite(vecs).all():
        raise ValueError("vectors contain NaN or infinity")
    _, last_from_end = np.unique(ids[::-1], return_index=True)
    if last_from_end.size != ids.size:
        keep = np.sort(ids.size - 1 - last_from_end)
        ids, vecs = ids[keep], vecs[keep]
    return ids, l2_normalize(vecs)


def check_query(query_vec: np.ndarray, dim: int) -> np.ndarray:
    """A query as a contiguous (dim,) float32 vector."""
    q = np.ascontiguousarray(query_vec, dtype=np.float32).reshape(-1)
    if q.shape != (dim,):
        raise ValueError(f"expected a query vector of length {dim}, got shape {q.shape}")
    return q


def mask_over(mask: np.ndarray | None, n: int) -> np.ndarray | None:
    """`mask` as a boolean array of exactly `n` entries (missing entries are False)."""
    if mask is None:
        return None
    m = np.asarray(mask, dtype=bool).reshape(-1)
    if m.size >= n:
        return m[:n]
    out = np.zeros(n, dtype=bool)
    out[: m.size] = m
    return out


def remap(doc_ids: np.ndarray, doc_map: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """New ids for `doc_ids` under `doc_map`, and which of them survive (map >= 0)."""
    if doc_map is None:
        return doc_ids, np.ones(doc_ids.size, dtype=bool)
    dm = np.asarray(doc_map, dtype=np.int64).reshape(-1)
    new = np.full(doc_ids.size, -1, dtype=np.int64)
    inside = doc_ids < dm.size
    new[inside] = dm[doc_ids[inside]]
    keep = new >= 0
    if np.unique(new[keep]).size != int(keep.sum()):
        raise ValueError("doc_map sends two live docs to the same new id")
    return new, keep


def grown(array: np.ndarray, need: int, fill: int | bool) -> np.ndarray:
    """`array` with room for at least `need` rows, doubling so that appends are amortised O(1)."""
    if need <= array.shape[0]:
        return array
    cap = max(need, 2 * array.shape[0], 64)
    out = np.full((cap, *array.shape[1:]), fill, dtype=array.dtype)
    out[: array.shape[0]] = array
    return out
