"""Vector <-> bytes for the SQLite store, and row normalisation shared by embedders and stores.

Vectors are stored as raw little-endian float32 so a workspace from someone else can be read
without pickle, and so a whole table loads into one matrix with a single `np.frombuffer`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

_LE_F32 = np.dtype("<f4")


def l2_normalize(matrix: np.ndarray) -> np.ndarray:
    """Float32 copy with unit-length rows (all-zero rows stay zero), so cosine = inner product."""
    out = np.array(matrix, dtype=np.float32, ndmin=2)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def vector_to_blob(vec: np.ndarray) -> bytes:
    """One vector as float32 little-endian bytes (4 · dim bytes)."""
    return np.ascontiguousarray(vec, dtype=_LE_F32).reshape(-1).tobytes()


def blob_to_vector(blob: bytes, dim: int) -> np.ndarray:
    """Inverse of `vector_to_blob`; a wrong length means a corrupt row or a changed model."""
    if len(blob) != 4 * dim:
        raise ValueError(f"vector blob has {len(blob)} bytes, expected {4 * dim} (dim {dim})")
    return np.frombuffer(blob, dtype=_LE_F32).astype(np.float32)


def blobs_to_matrix(blobs: Iterable[bytes], dim: int) -> np.ndarray:
    """Many blobs as one (n, dim) float32 matrix in a single copy (bulk load at open)."""
    data = b"".join(blobs)
    if len(data) % (4 * dim):
        raise ValueError(f"vector blobs total {len(data)} bytes, not a multiple of {4 * dim}")
    return np.frombuffer(data, dtype=_LE_F32).astype(np.float32).reshape(-1, dim)
