"""Reciprocal-rank fusion of the vector and keyword branches (SPEC §8).

Only used when both branches returned candidates. The caller handles the fall-through: with
keyword hits only, the answer is the BM25 ranking with BM25 scores; with vector hits only, the
vector ranking with cosine scores. RRF scores are small (at most 1/61), so `min_score` means
something different for fused answers; that too is the caller's concern.
"""

from __future__ import annotations

from collections.abc import Sequence


def _ranks(ranked: Sequence[int]) -> dict[int, int]:
    """doc -> 1-based rank; a doc listed twice keeps its better rank."""
    ranks: dict[int, int] = {}
    for rank, doc in enumerate(ranked, start=1):
        ranks.setdefault(int(doc), rank)
    return ranks


def rrf_fuse(
    vector_ranked: Sequence[int],
    keyword_ranked: Sequence[int],
    vector_weight: float = 0.7,
    k: int = 60,
) -> list[tuple[int, float]]:
    """`w/(k + vector_rank) + (1 − w)/(k + keyword_rank)` per doc, best first.

    Ranks start at 1; a doc missing from one list gets no term from it. Ties are broken by
    the smaller doc id so answers are deterministic.
    """
    if not 0.0 <= vector_weight <= 1.0:
        raise ValueError(f"vector_weight must be within [0, 1], got {vector_weight}")
    scores: dict[int, float] = {}
    for doc, rank in _ranks(vector_ranked).items():
        scores[doc] = vector_weight / (k + rank)
    keyword_weight = 1.0 - vector_weight
    for doc, rank in _ranks(keyword_ranked).items():
        scores[doc] = scores.get(doc, 0.0) + keyword_weight / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))
