"""Capacity growth for numpy columns that rows are added to one batch at a time."""

from __future__ import annotations

import numpy as np


def grown(arr: np.ndarray, need: int, fill: int) -> np.ndarray:
    """`arr` with room for at least `need` entries (capacity doubled), new ones set to `fill`:
    adding n rows copies O(n) in all, not O(n²)."""
    out = np.full(max(need, 2 * len(arr), 1024), fill, dtype=arr.dtype)
    out[: len(arr)] = arr
    return out
