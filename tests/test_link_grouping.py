"""`Grouped` answers its first look-ups by scanning the key column and later ones from a sort:
both give the same rows in the same order (random columns, sorted or not, repeated keys)."""

from __future__ import annotations

import numpy as np
import pytest

from reme_core.index.link_columns import Grouped

LOOKUPS = 12  # past the scans a grouping makes before it sorts


@pytest.mark.parametrize("seed", range(40))
def test_scanned_and_sorted_look_ups_agree(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_keys = int(rng.integers(1, 40))
    key = rng.integers(0, n_keys, size=int(rng.integers(0, 200))).astype(np.int32)
    if seed % 2:
        key.sort()  # links by source come grouped already
    queries = [rng.integers(0, n_keys, size=int(rng.integers(0, 8))) for _ in range(LOOKUPS)]
    grouped = Grouped(key, n_keys)
    answers = [grouped.gather(q) for q in queries]
    for q, (rows, owner) in zip(queries, answers, strict=True):
        want_rows = [r for i, k in enumerate(q.tolist()) for r in np.flatnonzero(key == k)]
        want_owner = [i for i, k in enumerate(q.tolist()) for _ in np.flatnonzero(key == k)]
        assert rows.tolist() == want_rows and owner.tolist() == want_owner
    single = Grouped(key, n_keys)
    for k in list(range(n_keys)) * 2:
        assert single.rows(k) == np.flatnonzero(key == k).tolist()


@pytest.mark.parametrize("seed", range(20))
def test_first_rows_is_each_keys_first_row(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_keys = int(rng.integers(1, 40))
    key = rng.integers(0, n_keys, size=int(rng.integers(0, 200))).astype(np.int64)
    if seed % 2:
        key.sort()  # a file's chunks, as loaded: answered from each key's start
    asked = rng.integers(0, n_keys, size=int(rng.integers(0, 30)))  # repeats, keys with none
    want = [int(np.flatnonzero(key == k)[0]) if (key == k).any() else -1 for k in asked]
    grouped = Grouped(key, n_keys)
    assert grouped.first_rows(asked).tolist() == want
    assert grouped.first_rows(asked[::-1]).tolist() == want[::-1]  # asked again, any order
