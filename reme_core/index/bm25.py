"""Okapi BM25 over `PostingLists` (reme_core.index.posting_lists): idf from live df and N,
length norms from live avgdl, and the search strategies (sort-reduce for few postings, dense
passes for many, a MaxScore-style shortcut when selective and common terms are mixed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from reme_core.index.posting_lists import PostingLists

_Stats = list[tuple[np.ndarray, np.ndarray, float]]  # (docs, tfs, idf) per posting segment
# A query this small is scored in plain Python (`_few`): numpy's fixed cost per call is most
# of a search whose posting lists are short (the name fields, rare words). Up to 8 terms a
# doc's sum has at most 7 addends after its first, which numpy's reduceat adds one by one.
FEW_POSTINGS = 96
FEW_TERMS = 8


class BM25Index(PostingLists):
    """BM25 (k1, b) with the idf ln(1 + (N - df + 0.5) / (df + 0.5)), N and df over live docs."""

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        super().__init__()
        self.k1, self.b = float(k1), float(b)
        self._norm: np.ndarray | None = None  # k1 * (1 - b + b * dl / avgdl), per doc

    @classmethod
    def from_arrays(
        cls,
        doc_ptr: np.ndarray,
        term_ids: np.ndarray,
        tfs: np.ndarray,
        n_terms: int,
        k1: float = 1.5,
        b: float = 0.75,
        postings: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    ) -> BM25Index:
        """Build from a doc-major CSR (unique terms per doc), e.g. the stored token id blobs.

        ``postings`` is the term-major ``(ptr, docs, tfs)`` that ``postings()`` gave for an
        index built from the same arrays (a snapshot): it replaces the sort of every posting.
        ValueError when its shape cannot be that of these arrays.
        """
        index = cls(k1, b)
        index._load_arrays(doc_ptr, term_ids, tfs, n_terms, postings)
        return index

    @classmethod
    def from_postings(
        cls,
        ptr: np.ndarray,
        docs: np.ndarray,
        tfs: np.ndarray,
        doc_lengths: np.ndarray,
        n_terms: int,
        k1: float = 1.5,
        b: float = 0.75,
        *,
        checked: bool = True,
    ) -> BM25Index:
        """Adopt a term-major CSR and the documents' lengths as they are (a snapshot).

        Nothing is sorted or summed per posting; ValueError when the arrays cannot belong
        together (a damaged snapshot must not be trusted blindly). ``checked=False``: the
        postings' contents are checked per term as searches read them (DamagedPostings).
        """
        index = cls(k1, b)
        index._adopt(ptr, docs, tfs, doc_lengths, n_terms, checked)
        return index

    def _lengths_changed(self) -> None:
        """The norms depend on every live length and on avgdl: they are computed again."""
        self._norm = None

    # -- scoring ----------------------------------------------------------------------------
    def _term_stats(self, terms: list[int]) -> list[_Stats]:
        """Per query term with live postings, (docs ascending, tfs, idf) of each segment.

        Tombstoned docs stay in the lists (df excludes them); the caller drops them from the
        few candidates at the end, which is cheaper than filtering every posting list.
        """
        n = self._n_live
        out = []
        for segments in self._postings(terms):
            df = sum(self._live_count(d) for d, _ in segments)
            if df:
                idf = float(np.log1p((n - df + 0.5) / (df + 0.5)))
                out.append([(d, f, idf) for d, f in segments if len(d)])
        return out

    def _norms(self) -> np.ndarray:
        """k1 * (1 - b + b * dl / avgdl) per doc, cached until the live set changes."""
        if self._norm is None:
            avgdl = self.avgdl or 1.0  # all live docs empty: no postings, any value will do
            dl = self._dl[: self._n_total]
            self._norm = self.k1 * (1.0 - self.b) + (self.k1 * self.b / avgdl) * dl
        return self._norm

    def _summands(self, docs: np.ndarray, tfs: np.ndarray, idf: float) -> np.ndarray:
        """idf * tf * (k1 + 1) / (tf + norm[doc]) for each posting, in place where possible."""
        w = self._norms()[docs]
        w += tfs
        np.divide(tfs, w, out=w)
        w *= idf * (self.k1 + 1.0)
        return w

    def _accumulate(self, stats: _Stats) -> tuple[np.ndarray, np.ndarray]:
        """Distinct docs of the given posting lists with their summed scores."""
        if sum(len(d) for d, _, _ in stats) * 16 < self._n_total:
            # Few postings: a sort-reduce over them beats a pass over every document.
            parts = [(d, self._summands(d, f, idf)) for d, f, idf in stats]
            docs = np.concatenate([d for d, _ in parts])
            order = np.argsort(docs, kind="stable")
            docs = docs[order]
            starts = np.flatnonzero(np.concatenate(([True], docs[1:] != docs[:-1])))
            weights = np.concatenate([w for _, w in parts])[order]
            return docs[starts], np.add.reduceat(weights, starts)
        acc = np.zeros(self._n_total, dtype=np.float64)
        for d, f, idf in stats:
            if len(d) * 4 < self._n_total:
                acc[d] += self._summands(d, f, idf)  # doc ids are unique within one list
            else:  # most docs: contiguous passes beat gathering norms and scattering sums
                tf = np.zeros(self._n_total, dtype=np.float64)
                tf[d] = f
                w = tf + self._norms()
                np.divide(tf, w, out=w)
                w *= idf * (self.k1 + 1.0)
                acc += w
        docs = np.flatnonzero(acc)
        return docs, acc[docs]

    def _visible(
        self, docs: np.ndarray, scores: np.ndarray, mask: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Keep positive scores of live docs that the mask lets through."""
        keep = scores > 0
        if self._n_live != self._n_total:
            keep &= self._live[docs]
        if mask is not None:
            keep &= mask[docs]
        return (docs, scores) if keep.all() else (docs[keep], scores[keep])

    def search(
        self, query_term_ids: Sequence[int], k: int, mask: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top ``k`` (doc ids int64, scores float64): score desc, then doc id asc; scores > 0.

        ``mask`` is a boolean array over doc ids (length ``n_total``); False docs are skipped
        but still count in N and df, so a filter does not change the scores of the rest.
        """
        terms = self._query(query_term_ids)
        groups = self._term_stats(terms) if terms and k > 0 and self._n_live else []
        if not groups:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        few = self._few(groups, k, mask) if len(groups) <= FEW_TERMS else None
        return few if few is not None else self._ranked(groups, k, mask)

    def _ranked(
        self, groups: list[_Stats], k: int, mask: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``search`` with numpy passes over the posting segments of each term."""
        if len(groups) == 1:  # one term: its segments hold distinct docs, nothing to sum
            docs = np.concatenate([d for d, _, _ in groups[0]])
            scores = np.concatenate([self._summands(*s) for s in groups[0]])
            return top_k(*self._visible(docs, scores, mask), k)
        stats = [s for group in groups for s in group]
        long = [len(d) * 8 >= self._n_total for d, _, _ in stats]
        if any(long) and not all(long):
            # MaxScore-style shortcut: score the docs of the selective terms exactly (looking
            # their tfs up in the long lists), and skip the long lists' other docs when even
            # the sum of the long terms' upper bounds cannot reach the k-th score found.
            heavy = [s for s, is_long in zip(stats, long, strict=True) if is_long]
            light = [s for s, is_long in zip(stats, long, strict=True) if not is_long]
            docs, scores = self._accumulate(light)
            for h_docs, h_tfs, idf in heavy:
                pos = np.minimum(np.searchsorted(h_docs, docs), len(h_docs) - 1)
                hit = np.flatnonzero(h_docs[pos] == docs)
                scores[hit] += self._summands(docs[hit], h_tfs[pos[hit]], idf)
            docs, scores = self._visible(docs, scores, mask)
            bound = sum(idf for _, _, idf in heavy) * (self.k1 + 1.0)
            if len(scores) >= k and np.partition(scores, len(scores) - k)[-k] > bound:
                return top_k(docs, scores, k)
        return top_k(*self._visible(*self._accumulate(stats), mask), k)

    def _few(
        self, groups: list[_Stats], k: int, mask: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """``search`` of few postings with dicts, the same floats in the same order of
        additions as the numpy paths (a doc's first summand plus the sum of the others, as
        the sort-reduce's reduceat adds them); None when the postings are too many for it
        or ``search`` would take its dense path (a small index)."""
        total = sum(len(d) for group in groups for d, _, _ in group)
        if total > FEW_POSTINGS or (len(groups) > 1 and total * 16 >= self._n_total):
            return None
        parts = [
            (d.tolist(), self._summands(d, f, idf).tolist()) for g in groups for d, f, idf in g
        ]
        if len(groups) == 1:  # one term: its segments hold distinct docs, nothing to sum
            scores = {doc: w for docs, ws in parts for doc, w in zip(docs, ws, strict=True)}
        else:
            scores = dict(zip(*parts[0], strict=True))
            rest: dict[int, float] = {}
            for docs, ws in parts[1:]:
                for doc, w in zip(docs, ws, strict=True):
                    if doc in scores:
                        rest[doc] = rest.get(doc, -0.0) + w
                    else:
                        scores[doc] = w
            for doc, w in rest.items():
                scores[doc] += w
        live = None if self._n_live == self._n_total else self._live
        if live is not None or mask is not None or min(scores.values()) <= 0:
            scores = {
                doc: score
                for doc, score in scores.items()
                if score > 0 and (live is None or live[doc]) and (mask is None or mask[doc])
            }
        return top_k_of(scores, k)

    def score(self, query_term_ids: Sequence[int], docs: Sequence[int]) -> np.ndarray:
        """BM25 scores of the given docs (0 for tombstoned ones or no matching term)."""
        acc = np.zeros(self._n_total, dtype=np.float64)
        for group in self._term_stats(self._query(query_term_ids)):
            for d, f, idf in group:
                acc[d] += self._summands(d, f, idf)
        acc[~self._live[: self._n_total]] = 0.0
        return acc[np.asarray(docs, dtype=np.int64)]

    def matched(self, query_term_ids: Sequence[int], doc: int) -> list[int]:
        """The distinct query term ids that a live document contains, in query order."""
        return self.matched_many(query_term_ids, [doc])[0]

    def matched_many(self, query_term_ids: Sequence[int], docs: Sequence[int]) -> list[list[int]]:
        """``matched`` for several documents: one binary search per posting segment."""
        doc_ids = np.asarray(docs, dtype=np.int64)
        terms = self._query(query_term_ids)
        found = np.zeros((len(terms), len(doc_ids)), dtype=bool)
        for row, segments in zip(found, self._postings(terms), strict=True):
            for seg, _ in segments:  # doc ids ascending within a segment
                if len(seg):
                    pos = np.minimum(np.searchsorted(seg, doc_ids), len(seg) - 1)
                    row |= seg[pos] == doc_ids
        live = (doc_ids >= 0) & (doc_ids < self._n_total)
        live[live] = self._live[doc_ids[live]]
        found &= live
        return [[t for t, hit in zip(terms, col, strict=True) if hit] for col in found.T.tolist()]


def top_k_of(scores: Mapping[int, float], k: int) -> tuple[np.ndarray, np.ndarray]:
    """`top_k` of scores kept in a dict (a few hundred at most, where numpy's fixed cost per
    call would be most of the work): the same order, by score descending, then doc id."""
    ranked = sorted(scores)  # doc ids ascending, then (a stable sort) by score descending
    ranked.sort(key=scores.__getitem__, reverse=True)
    del ranked[max(k, 0) :]
    return (
        np.array(ranked, dtype=np.int64),
        np.array([scores[doc] for doc in ranked], dtype=np.float64),
    )


def top_k(docs: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k best (doc, score) pairs by score descending, then doc id ascending (so equal
    scores rank the same way every time): the one top-k of BM25 and the vector stores.
    Ties at the cut are kept until the sort settles them; the scores keep their dtype."""
    if k <= 0 or len(scores) == 0:
        return np.zeros(0, np.int64), scores[:0]
    if len(scores) > k:
        keep = scores >= np.partition(scores, len(scores) - k)[-k]
        docs, scores = docs[keep], scores[keep]
    order = np.lexsort((docs, -scores))[:k]
    return docs[order].astype(np.int64), scores[order]
