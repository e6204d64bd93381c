"""Posting lists for BM25: a term-major CSR, a small delta segment and tombstones.

Documents are dense ints in add order. The main segment is a CSR by term (``ptr``, ``docs``,
``tfs``); adds land in a pending list, are merged into a term-sorted delta on the next search,
and the delta is folded into the CSR once it grows past a fraction of it, so adding stays
cheap and the amortised copying stays linear. Deletes are tombstones: N, df and avgdl count
live documents only. The scorer on top is `reme_core.index.bm25.BM25Index`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

_FOLD_MIN = 1 << 18  # delta postings kept outside the CSR before a fold is considered


class DamagedPostings(ValueError):
    """A posting list adopted unchecked (from a snapshot) points outside its documents."""


def as_csr(
    doc_ptr: np.ndarray, term_ids: np.ndarray, tfs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A doc-major CSR batch as int64/int32 arrays; ValueError when its shape is inconsistent."""
    doc_ptr = np.asarray(doc_ptr, dtype=np.int64)
    term_ids = np.asarray(term_ids, dtype=np.int32)
    tfs = np.asarray(tfs, dtype=np.int32)
    if len(doc_ptr) == 0 or doc_ptr[0] != 0 or not doc_ptr[-1] == len(term_ids) == len(tfs):
        raise ValueError("doc_ptr must start at 0 and end at len(term_ids) == len(tfs)")
    if len(term_ids) and term_ids.min() < 0:
        raise ValueError("term ids must be non-negative")
    return doc_ptr, term_ids, tfs


def term_keys(terms: np.ndarray) -> np.ndarray:
    """Stable sort by term as sorted ``term << 32 | position`` keys.

    Sorting plain int64 keys is SIMD-fast in numpy, several times faster than a stable argsort.
    """
    key = (terms.astype(np.int64) << 32) | np.arange(len(terms), dtype=np.int64)
    key.sort()
    return key


def term_major(
    doc_ptr: np.ndarray, term_ids: np.ndarray, tfs: np.ndarray, n_terms: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The term-major CSR ``(ptr, docs, tfs)`` of a doc-major one (terms below ``n_terms``):
    each term's postings in doc order."""
    key = term_keys(term_ids)
    ptr = np.searchsorted(key, np.arange(n_terms + 1, dtype=np.int64) << 32)
    key &= 0xFFFFFFFF  # now the positions, in place: this array is the peak of the build
    docs = np.repeat(np.arange(len(doc_ptr) - 1, dtype=np.int32), np.diff(doc_ptr))
    return ptr, docs[key], tfs[key]


class PostingLists:
    """The postings, document lengths and live set that BM25 scores over."""

    def __init__(self) -> None:
        self._n_terms = 0
        self._ptr = np.zeros(1, dtype=np.int64)
        self._docs = np.zeros(0, dtype=np.int32)
        self._tfs = np.zeros(0, dtype=np.int32)
        self._delta = (self._docs, self._docs, self._tfs)  # (terms sorted, docs, tfs)
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._n_pending = 0
        self._dl = np.zeros(0, dtype=np.int64)  # capacity buffers, first _n_total valid
        self._live = np.zeros(0, dtype=bool)
        self._n_total = self._n_live = self._live_dl = 0
        self._dead: np.ndarray | None = None  # sorted tombstoned doc ids, cached
        # Terms of an adopted CSR whose postings are not yet checked (None: all are).
        self._unchecked: np.ndarray | None = None
        self._n_adopted = 0  # the documents of the adopted CSR

    # -- building ---------------------------------------------------------------------------
    def _load_arrays(
        self,
        doc_ptr: np.ndarray,
        term_ids: np.ndarray,
        tfs: np.ndarray,
        n_terms: int,
        postings: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
    ) -> None:
        """Fill an empty index from a doc-major CSR (see ``BM25Index.from_arrays``)."""
        doc_ptr, term_ids, tfs = self._add_docs(doc_ptr, term_ids, tfs)
        self._n_terms = max(self._n_terms, int(n_terms))
        if postings is not None:
            ptr, docs, p_tfs = (np.asarray(a) for a in postings)
            n = len(term_ids)
            if not (
                ptr.dtype == np.int64
                and docs.dtype == p_tfs.dtype == np.int32
                and len(ptr) == self._n_terms + 1
                and ptr[0] == 0
                and ptr[-1] == len(docs) == len(p_tfs) == n
                and (n == 0 or (docs.min() >= 0 and docs.max() < len(doc_ptr) - 1))
            ):
                raise ValueError("postings do not fit these documents")
            self._ptr, self._docs, self._tfs = ptr, docs, p_tfs
            return
        self._ptr, self._docs, self._tfs = term_major(doc_ptr, term_ids, tfs, self._n_terms)

    def _adopt(
        self,
        ptr: np.ndarray,
        docs: np.ndarray,
        tfs: np.ndarray,
        doc_lengths: np.ndarray,
        n_terms: int,
        checked: bool = True,
    ) -> None:
        """Fill an empty index with a term-major CSR as it is (see ``BM25Index.from_postings``).

        ``checked=False`` leaves the postings' contents to be checked term by term as
        searches read them (`_postings`): an open then touches none of their pages.
        """
        ptr, docs, tfs = np.asarray(ptr), np.asarray(docs), np.asarray(tfs)
        dl = np.asarray(doc_lengths)
        n_docs = len(dl)
        if not (
            ptr.dtype == dl.dtype == np.int64
            and docs.dtype == tfs.dtype == np.int32
            and len(ptr) == n_terms + 1
            and ptr[0] == 0
            and ptr[-1] == len(docs) == len(tfs)
            and bool(np.all(ptr[1:] >= ptr[:-1]))
            and (not checked or _fit(docs, tfs, n_docs))
            and (n_docs == 0 or dl.min() >= 0)
        ):
            raise ValueError("postings do not fit these documents")
        self._unchecked = None if checked or not n_terms else np.ones(n_terms, dtype=bool)
        self._n_adopted = n_docs
        self._n_terms = int(n_terms)
        self._ptr, self._docs, self._tfs = ptr, docs, tfs
        self._dl = dl.copy()
        self._live = np.ones(n_docs, dtype=bool)
        self._n_total = self._n_live = n_docs
        self._live_dl = int(dl.sum())

    def _lengths_changed(self) -> None:
        """Called when the live set or the document lengths change (the scorer's norms)."""

    def doc_lengths(self) -> np.ndarray:
        """Every document's length (sum of its term frequencies), for a snapshot."""
        return self._dl[: self._n_total].copy()

    def postings(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The term-major CSR ``(ptr, docs, tfs)`` with every add folded in (for a snapshot)."""
        self.check_all()
        self._fold()
        return self._ptr, self._docs, self._tfs

    def live_postings(self) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
        """``postings()`` and ``doc_lengths()`` of the live documents only, renumbered densely in
        doc id order (for a snapshot); the index is unchanged apart from folding its delta."""
        self.check_all()
        self._fold()
        n = self._n_total
        live = self._live[:n]
        if self._n_live == n:
            return (self._ptr, self._docs, self._tfs), self._dl[:n].copy()
        old_to_new = np.cumsum(live, dtype=np.int64) - 1
        keep = live[self._docs]
        kept = np.zeros(len(keep) + 1, dtype=np.int64)
        np.cumsum(keep, out=kept[1:])
        docs = old_to_new[self._docs[keep]].astype(np.int32)
        return (kept[self._ptr], docs, self._tfs[keep]), self._dl[:n][live]

    def live_docs(self) -> np.ndarray:
        """Ids of the live documents, ascending."""
        return np.flatnonzero(self._live[: self._n_total])

    def add(self, term_ids: np.ndarray, tfs: np.ndarray) -> int:
        """Add one document (its term ids unique) and return its id."""
        return int(self.add_many(np.array([0, len(term_ids)]), term_ids, tfs)[0])

    def add_many(self, doc_ptr: np.ndarray, term_ids: np.ndarray, tfs: np.ndarray) -> np.ndarray:
        """Add documents given as a CSR; return their new ids (consecutive)."""
        first = self._n_total
        doc_ptr, term_ids, tfs = self._add_docs(doc_ptr, term_ids, tfs)
        m = len(doc_ptr) - 1
        if len(term_ids):
            docs = np.repeat(np.arange(first, first + m, dtype=np.int32), np.diff(doc_ptr))
            self._pending.append((term_ids, docs, tfs))
            self._n_pending += len(term_ids)
            if self._n_pending > _FOLD_MIN:
                self._flush()
        return np.arange(first, first + m, dtype=np.int64)

    def _add_docs(
        self, doc_ptr: np.ndarray, term_ids: np.ndarray, tfs: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Validate a CSR batch and record its documents' lengths; return it as numpy arrays."""
        doc_ptr, term_ids, tfs = as_csr(doc_ptr, term_ids, tfs)
        first, m = self._n_total, len(doc_ptr) - 1
        dl = np.zeros(m, dtype=np.int64)
        filled = doc_ptr[1:] > doc_ptr[:-1]  # reduceat needs the starts of non-empty docs only
        if filled.any():
            dl[filled] = np.add.reduceat(tfs, doc_ptr[:-1][filled], dtype=np.int64)
        if first + m > len(self._dl):
            cap = max(first + m, 2 * len(self._dl), 1024)
            self._dl = np.concatenate([self._dl, np.zeros(cap - len(self._dl), np.int64)])
            self._live = np.concatenate([self._live, np.zeros(cap - len(self._live), bool)])
        self._dl[first : first + m] = dl
        self._live[first : first + m] = True
        self._n_total += m
        self._n_live += m
        self._live_dl += int(dl.sum())
        self._lengths_changed()
        if len(term_ids):
            self._n_terms = max(self._n_terms, int(term_ids.max()) + 1)
        return doc_ptr, term_ids, tfs

    def remove(self, doc: int) -> None:
        """Tombstone a document (removing it twice is a no-op)."""
        self.remove_many([doc])

    def remove_many(self, docs: Iterable[int] | np.ndarray) -> None:
        """Tombstone documents; unknown ids raise IndexError, already removed ones are skipped."""
        docs = np.unique(np.asarray(docs if isinstance(docs, np.ndarray) else list(docs), np.int64))
        if len(docs) and (docs[0] < 0 or docs[-1] >= self._n_total):
            raise IndexError(f"document id out of range 0..{self._n_total - 1}")
        docs = docs[self._live[docs]]
        self._live[docs] = False
        self._n_live -= len(docs)
        self._live_dl -= int(self._dl[docs].sum())
        self._dead = None
        self._lengths_changed()

    def _flush(self) -> None:
        """Merge pending adds into the term-sorted delta; fold the delta once it is large."""
        if self._pending:
            terms, docs, tfs = (np.concatenate(col) for col in zip(*self._pending, strict=True))
            key = term_keys(terms)
            terms = (key >> 32).astype(np.int32)
            key &= 0xFFFFFFFF
            new = (terms, docs[key], tfs[key])
            self._pending, self._n_pending = [], 0
            if len(self._delta[0]):
                pos = np.searchsorted(self._delta[0], new[0], side="right")
                new = (
                    np.insert(self._delta[0], pos, new[0]),
                    np.insert(self._delta[1], pos, new[1]),
                    np.insert(self._delta[2], pos, new[2]),
                )
            self._delta = new
        if len(self._delta[0]) > max(_FOLD_MIN, len(self._docs) >> 4):
            self._fold()

    def _fold(self) -> None:
        """Move every pending and delta posting into the main CSR."""
        if self._pending:
            self._flush()
        d_terms, d_docs, d_tfs = self._delta
        if not len(d_terms):
            return
        self.check_all()  # what is folded in is written out by the next snapshot
        ptr = np.pad(self._ptr, (0, self._n_terms + 1 - len(self._ptr)), mode="edge")
        if len(self._docs):
            pos = ptr[d_terms.astype(np.int64) + 1]
            self._docs = np.insert(self._docs, pos, d_docs)
            self._tfs = np.insert(self._tfs, pos, d_tfs)
        else:
            self._docs, self._tfs = d_docs, d_tfs
        ptr[1:] += np.cumsum(np.bincount(d_terms, minlength=self._n_terms))
        self._ptr = ptr
        self._delta = (d_terms[:0], d_docs[:0], d_tfs[:0])

    def posting_sizes(self, term_ids: Sequence[int]) -> np.ndarray:
        """Length of each term's main posting list: a cheap document frequency (tombstones and
        the newest documents aside) for choosing among a prefix's many terms."""
        sizes = np.diff(self._ptr)
        ids = np.asarray(term_ids, dtype=np.int64)
        known = ids < len(sizes)
        out = np.zeros(len(ids), dtype=np.int64)
        out[known] = sizes[ids[known]]
        return out

    # -- statistics -------------------------------------------------------------------------
    @property
    def n_docs(self) -> int:
        """Live documents (BM25's N)."""
        return self._n_live

    @property
    def n_total(self) -> int:
        """Document ids handed out since the load, live or tombstoned."""
        return self._n_total

    @property
    def n_tombstones(self) -> int:
        return self._n_total - self._n_live

    @property
    def n_terms(self) -> int:
        return self._n_terms

    @property
    def avgdl(self) -> float:
        """Mean token count of live documents."""
        return self._live_dl / self._n_live if self._n_live else 0.0

    # -- posting segments -------------------------------------------------------------------
    def _query(self, query_term_ids: Iterable[int]) -> list[int]:
        """Distinct valid term ids in query order (negative ids mark unknown terms)."""
        n = self._n_terms
        return list(dict.fromkeys(int(t) for t in query_term_ids if 0 <= t < n))

    def _postings(self, terms: list[int]) -> list[list[tuple[np.ndarray, np.ndarray]]]:
        """Per term, its (docs ascending, tfs) segments: main CSR, then delta if any.

        Segments are returned as views, not concatenated: copying a long main list on every
        search would cost more than the search while a delta is pending.
        """
        self._flush()
        if self._unchecked is not None:
            self._check_terms(terms)
        ptr, docs, tfs = self._ptr, self._docs, self._tfs
        out = [
            [(docs[ptr[t] : ptr[t + 1]], tfs[ptr[t] : ptr[t + 1]])] if t < len(ptr) - 1 else []
            for t in terms
        ]
        d_terms, d_docs, d_tfs = self._delta
        if len(d_terms):
            lo = np.searchsorted(d_terms, terms, side="left").tolist()
            hi = np.searchsorted(d_terms, terms, side="right").tolist()
            for segments, a, z in zip(out, lo, hi, strict=True):
                if z > a:
                    segments.append((d_docs[a:z], d_tfs[a:z]))
        return out

    def _check_terms(self, terms: list[int]) -> None:
        """Check the adopted postings of ``terms`` not yet checked (DamagedPostings)."""
        unchecked = self._unchecked
        assert unchecked is not None
        ptr = self._ptr
        for t in terms:
            if t < len(unchecked) and unchecked[t]:
                a, z = int(ptr[t]), int(ptr[t + 1])
                if not _fit(self._docs[a:z], self._tfs[a:z], self._n_adopted):
                    raise DamagedPostings(f"the postings of term {t} do not fit the documents")
                unchecked[t] = False

    def check_all(self) -> None:
        """Check every adopted posting at once (DamagedPostings): before the index changes,
        is copied or is written out, so that nothing unchecked is built on."""
        if self._unchecked is not None:
            if not _fit(self._docs, self._tfs, self._n_adopted):
                raise DamagedPostings("the postings do not fit the documents")
            self._unchecked = None

    def _live_count(self, docs: np.ndarray) -> int:
        """Live docs in a sorted list: few tombstones are looked up, many are gathered."""
        if self._n_live == self._n_total or not len(docs):
            return len(docs)
        if self._dead is None:
            self._dead = np.flatnonzero(~self._live[: self._n_total])
        dead = self._dead
        if len(dead) * 8 < len(docs):
            pos = np.minimum(np.searchsorted(docs, dead), len(docs) - 1)
            return len(docs) - int(np.count_nonzero(docs[pos] == dead))
        return int(np.count_nonzero(self._live[docs]))


def _fit(docs: np.ndarray, tfs: np.ndarray, n_docs: int) -> bool:
    """Postings point at documents that exist, with positive term frequencies."""
    return not len(docs) or bool(docs.min() >= 0 and docs.max() < n_docs and tfs.min() > 0)
