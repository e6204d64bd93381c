"""Fusing the keyword and vector branches (SPEC §8): the methods `search.fusion` names.

Only used when both branches returned candidates. The caller handles the fall-through: with
keyword hits only, the answer is the BM25 ranking with BM25 scores; with vector hits only, the
vector ranking with cosine scores.

- `rrf`: reciprocal-rank fusion, `w/(k + vector_rank) + (1 − w)/(k + keyword_rank)`. It
  treats the embedder's ranking as an equal voice even where it is weak (technical English,
  names), so turning vectors on could lose what BM25 found (issue 28). Kept by name.
- `convex`: each branch's scores scaled to [0, 1] (keyword by its best score, cosine between
  the vector candidates' worst and best), then `(1 − w)·keyword + w·vector`. Unlike ranks,
  scaled scores keep how far ahead a strong keyword match is.
- `guarded` (the default): `convex`, with the vector branch's weight for a Latin-script query
  kept only where the branches agree (at least a fifth of the keyword top 50 in the vector
  top 50; else BM25's candidates keep BM25's order and the vector branch only adds its others
  below them, in its order), and the notes whose *name* matches the query best kept at their
  keyword places or better. Whatever the fusion, a note whose whole name is the query then
  ranks first (`reme_core.query.known_item`).

Weights and the agreement rule were chosen by measurement (benchmarks/quality.py, RESULTS.md):
on NPL the bundled embedder is far weaker than BM25 (nDCG@10 0.04 against 0.435) and a fixed
weight lost 7 points; on MED and CACM it helps. The agreement is counted over the top 50, not
the top 10: ten documents are too few to tell an embedder that follows the query from one
that shares a few documents by chance (NPL's mean overlap is 0.06 at 50, MED's 0.43, CACM's
0.27), and the top-10 gate let NPL queries through that the vector branch then hurt. With
fewer candidates (an ungrouped search asks each branch for 5 x limit) the agreement is counted
over all of them. Chinese queries keep a fixed, larger weight: word segmentation is lossy and
cross-language recall needs the embedder.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from reme_core.config import FUSIONS

CONVEX_WEIGHT = 0.3  # the vector branch's share for a query in Latin script, where it agrees
CONVEX_WEIGHT_CJK = 0.85  # ... and for a query with Chinese (or other CJK) characters
AGREEMENT_DEPTH = 50  # agreement: the share of the keyword top 50 that the vector top 50 holds
AGREEMENT_MIN = 0.2  # ... under which the vector branch only adds candidates
NAME_GUARD = 0.5  # a name part at least this share of the best one keeps its keyword place

Ranked = list[tuple[int, float]]


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
) -> Ranked:
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


def _scaled_keyword(docs: Sequence[int], scores: Sequence[float]) -> dict[int, float]:
    """Keyword scores divided by the best one (BM25 has a natural zero; its worst candidate
    has none)."""
    top = max(scores, default=0.0)
    out: dict[int, float] = {}
    for doc, score in zip(docs, scores, strict=True):
        out.setdefault(int(doc), score / top if top > 0 else 0.0)
    return out


def _scaled_vector(docs: Sequence[int], scores: Sequence[float]) -> dict[int, float]:
    """Cosines mapped from [worst, best] of the candidates onto [0, 1] (cosines of unrelated
    texts are far from zero, so only their spread says anything)."""
    low, high = min(scores, default=0.0), max(scores, default=0.0)
    span = high - low
    out: dict[int, float] = {}
    for doc, score in zip(docs, scores, strict=True):
        out.setdefault(int(doc), (score - low) / span if span > 0 else 1.0)
    return out


def convex_fuse(
    vector_docs: Sequence[int],
    vector_scores: Sequence[float],
    keyword_docs: Sequence[int],
    keyword_scores: Sequence[float],
    vector_weight: float,
) -> Ranked:
    """`(1 − w)·keyword + w·vector` of the scaled scores, best first (ties: smaller doc id)."""
    if not 0.0 <= vector_weight <= 1.0:
        raise ValueError(f"vector_weight must be within [0, 1], got {vector_weight}")
    fused = {
        d: (1.0 - vector_weight) * s
        for d, s in _scaled_keyword(keyword_docs, keyword_scores).items()
    }
    for doc, score in _scaled_vector(vector_docs, vector_scores).items():
        fused[doc] = fused.get(doc, 0.0) + vector_weight * score
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


def appended(
    vector_docs: Sequence[int], keyword_docs: Sequence[int], keyword_scores: Sequence[float]
) -> Ranked:
    """BM25's candidates in BM25's order (scores scaled as in `convex_fuse`), then the vector
    branch's others in its order, scored below BM25's last: a weak vector branch adds
    candidates and moves none of BM25's (any weight of its own cost NPL a little)."""
    fused = list(_scaled_keyword(keyword_docs, keyword_scores).items())  # BM25's order as is
    low = fused[-1][1] if fused else 1.0
    seen = dict(fused)
    extra = [d for d in dict.fromkeys(map(int, vector_docs)) if d not in seen]
    fused += [(d, low * (len(extra) - i) / (len(extra) + 1)) for i, d in enumerate(extra)]
    return fused


def guard_names(fused: Ranked, keyword_docs: Sequence[int], names: Mapping[int, float]) -> Ranked:
    """`fused` with each doc whose name part is within NAME_GUARD of the best name part at
    its keyword rank or better: in keyword order, each takes its fused place if that is
    better, else its keyword place, else the next free one above it (always one: those
    placed before it sit above their own keyword ranks). The others fill the remaining
    places in fused order; scores are raised where needed to keep the list in strict score
    order (the caller sorts hits by score, then path)."""
    best = max(names.values(), default=0.0)
    if best <= 0:
        return fused
    fused_at = {doc: i for i, (doc, _) in enumerate(fused)}
    slots: list[tuple[int, float] | None] = [None] * len(fused)
    score = dict(fused)
    for doc, rank in _ranks(keyword_docs).items():
        if names.get(doc, 0.0) < NAME_GUARD * best or doc not in fused_at:
            continue
        place = min(rank - 1, fused_at[doc])
        while slots[place] is not None:
            place += 1
        slots[place] = (doc, score[doc])
    placed = {item[0] for item in slots if item is not None}
    rest = iter(item for item in fused if item[0] not in placed)
    return strictly_ordered([item if item is not None else next(rest) for item in slots])


def strictly_ordered(ranked: Ranked) -> Ranked:
    """`ranked` (in place) with scores raised where needed so each is above the next one: a
    reordered ranking keeps its order (the caller sorts hits by score, then path)."""
    for i in range(len(ranked) - 2, -1, -1):
        doc, score = ranked[i]
        if score <= ranked[i + 1][1]:
            ranked[i] = (doc, math.nextafter(ranked[i + 1][1], math.inf))
    return ranked


def agreement(vector_docs: Sequence[int], keyword_docs: Sequence[int]) -> bool:
    """Whether the vector branch ranks at least AGREEMENT_MIN of the keyword branch's top
    AGREEMENT_DEPTH docs among its own top AGREEMENT_DEPTH (fewer candidates: all of them):
    where an embedder is weak (technical English, a domain it never saw) it agrees with BM25
    on little, and it then only adds candidates."""
    top_kw = set(keyword_docs[:AGREEMENT_DEPTH])
    if not top_kw:
        return False
    return len(top_kw & set(vector_docs[:AGREEMENT_DEPTH])) / len(top_kw) >= AGREEMENT_MIN


def fuse(
    method: str,
    vector: tuple[Sequence[int], Sequence[float]],
    keyword: tuple[Sequence[int], Sequence[float]],
    names: Mapping[int, float],
    *,
    cjk: bool,
    rrf_weight: float = 0.7,
) -> Ranked:
    """Both branches' candidates as one ranking by `method` (one of FUSIONS), best first.

    `names`: the name-field part of each keyword candidate's score. `cjk`: whether the query
    has CJK characters (the vector branch's weight; `agreement` gates it otherwise).
    `rrf_weight`: `search.vector_weight`, which only `rrf` uses.
    """
    vec_docs, vec_scores = vector
    kw_docs, kw_scores = keyword
    if method == "rrf":
        return rrf_fuse(vec_docs, kw_docs, rrf_weight)
    if method not in FUSIONS:
        raise ValueError(f"fusion must be one of {', '.join(FUSIONS)}, got {method!r}")
    weight = CONVEX_WEIGHT_CJK if cjk else CONVEX_WEIGHT
    if method == "convex":
        return convex_fuse(vec_docs, vec_scores, kw_docs, kw_scores, weight)
    if not cjk and not agreement(vec_docs, kw_docs):
        fused = appended(vec_docs, kw_docs, kw_scores)
    else:
        fused = convex_fuse(vec_docs, vec_scores, kw_docs, kw_scores, weight)
    return guard_names(fused, kw_docs, names)
