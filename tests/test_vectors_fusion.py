"""RRF fusion (SPEC §8) against hand-computed values."""

from __future__ import annotations

import pytest

from reme_core.vectors import rrf_fuse


def test_rrf_hand_computed():
    # vector ranks: 10 -> 1, 20 -> 2, 30 -> 3; keyword ranks: 20 -> 1, 40 -> 2, 10 -> 3
    fused = dict(rrf_fuse([10, 20, 30], [20, 40, 10]))
    assert fused[10] == pytest.approx(0.7 / 61 + 0.3 / 63)  # 0.016237...
    assert fused[20] == pytest.approx(0.7 / 62 + 0.3 / 61)  # 0.016208...
    assert fused[30] == pytest.approx(0.7 / 63)  # vector only: no keyword term
    assert fused[40] == pytest.approx(0.3 / 62)  # keyword only: no vector term
    assert [doc for doc, _ in rrf_fuse([10, 20, 30], [20, 40, 10])] == [10, 20, 30, 40]


def test_rrf_weight_and_k():
    fused = dict(rrf_fuse([1, 2], [2, 1], vector_weight=0.25, k=10))
    assert fused[1] == pytest.approx(0.25 / 11 + 0.75 / 12)
    assert fused[2] == pytest.approx(0.25 / 12 + 0.75 / 11)
    assert rrf_fuse([1], [2], vector_weight=1.0) == [(1, pytest.approx(1 / 61)), (2, 0.0)]


def test_rrf_ties_and_duplicates():
    # equal weights and mirrored ranks: equal scores, so the smaller doc id comes first
    assert [d for d, _ in rrf_fuse([9, 4], [4, 9], vector_weight=0.5)] == [4, 9]
    # a doc listed twice keeps its better rank
    assert dict(rrf_fuse([5, 5, 6], []))[6] == pytest.approx(0.7 / 63)
    assert rrf_fuse([], []) == []


def test_rrf_rejects_bad_weight():
    with pytest.raises(ValueError):
        rrf_fuse([1], [1], vector_weight=1.5)
