"""BM25Index against a direct pure-Python computation of the formula in SPEC §5."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reme_core.index import posting_lists
from reme_core.index.bm25 import BM25Index

K1, B = 1.5, 0.75
Doc = dict[int, int]  # term id -> tf (unique terms per doc)


def reference(docs: list[Doc | None], query: list[int]) -> dict[int, float]:
    """Okapi BM25 written out term by term; None marks a removed document."""
    live = {i: d for i, d in enumerate(docs) if d is not None}
    if not live:
        return {}
    n = len(live)
    avgdl = sum(sum(d.values()) for d in live.values()) / n
    scores: dict[int, float] = {}
    for t in dict.fromkeys(query):
        df = sum(1 for d in live.values() if t in d)
        if df == 0:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for i, d in live.items():
            if t in d:
                tf, dl = d[t], sum(d.values())
                scores[i] = scores.get(i, 0.0) + idf * tf * (K1 + 1) / (
                    tf + K1 * (1 - B + B * dl / avgdl)
                )
    return scores


def csr(docs: list[Doc]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ptr = np.cumsum([0] + [len(d) for d in docs])
    terms = np.array([t for d in docs for t in d], dtype=np.int32)
    tfs = np.array([f for d in docs for f in d.values()], dtype=np.int32)
    return ptr, terms, tfs


def add_doc(index: BM25Index, doc: Doc) -> int:
    return index.add(np.array(list(doc), dtype=np.int32), np.array(list(doc.values())))


@contextmanager
def small_segments(on: bool) -> Iterator[None]:
    """Make the delta fold after a few postings, so small corpora exercise every merge path."""
    saved = posting_lists._FOLD_MIN
    posting_lists._FOLD_MIN = 3 if on else saved
    try:
        yield
    finally:
        posting_lists._FOLD_MIN = saved


def check_search(
    index: BM25Index,
    docs: list[Doc | None],
    query: list[int],
    k: int,
    mask: np.ndarray | None = None,
) -> None:
    ref = reference(docs, query)
    if mask is not None:
        ref = {d: s for d, s in ref.items() if mask[d]}
    got_docs, got_scores = index.search(query, k, mask)
    expected = sorted(ref.values(), reverse=True)[:k]
    assert got_docs.dtype == np.int64 and got_scores.dtype == np.float64
    assert len(got_docs) == len(expected)
    assert got_scores == pytest.approx(expected, abs=1e-6)
    for d, s in zip(got_docs.tolist(), got_scores.tolist(), strict=True):
        assert ref[d] == pytest.approx(s, abs=1e-6)
    keys = [(-s, d) for d, s in zip(got_docs.tolist(), got_scores.tolist(), strict=True)]
    assert keys == sorted(keys) and all(s > 0 for s in got_scores)
    every = np.arange(len(docs))
    assert index.score(query, every) == pytest.approx(
        [reference(docs, query).get(i, 0.0) for i in every], abs=1e-6
    )


doc_strategy = st.dictionaries(st.integers(0, 11), st.integers(1, 6), max_size=7)
query_strategy = st.lists(st.integers(-2, 13), max_size=6)


@settings(max_examples=150, deadline=None)
@given(
    docs=st.lists(doc_strategy, min_size=1, max_size=25),
    fillers=st.integers(0, 60),
    removed=st.sets(st.integers(0, 24)),
    query=query_strategy,
    k=st.integers(1, 12),
    small=st.booleans(),
    data=st.data(),
)
def test_scores_match_reference(docs, fillers, removed, query, k, small, data) -> None:
    # Filler docs use a term no query asks for; many of them push search onto the sort path.
    docs = docs + [{40: 1 + i % 3} for i in range(fillers)]
    with small_segments(small):
        index = BM25Index()
        i = 0
        while i < len(docs):  # a mix of single adds and batches
            size = data.draw(st.integers(1, 4))
            if size == 1:
                assert add_doc(index, docs[i]) == i
            else:
                ids = index.add_many(*csr(docs[i : i + size]))
                assert ids.tolist() == list(range(i, min(i + size, len(docs))))
            i += size
        state: list[Doc | None] = list(docs)
        check_search(index, state, query, k)
        gone = [d for d in removed if d < len(docs)]
        index.remove_many(gone)
        for d in gone:
            state[d] = None
        assert index.n_docs == len(docs) - len(gone) and index.n_tombstones == len(gone)
        check_search(index, state, query, k)


@settings(max_examples=100, deadline=None)
@given(
    ops=st.lists(st.one_of(doc_strategy, st.integers(0, 30)), min_size=1, max_size=40),
    query=query_strategy,
    small=st.booleans(),
)
def test_updates_match_reference(ops, query, small) -> None:
    """A dict adds a doc; an int updates a doc: tombstone it and add its new version."""
    with small_segments(small):
        index, state = BM25Index(), []
        for op in ops:
            if isinstance(op, dict):
                state.append(op)
                add_doc(index, op)
            elif op < len(state) and state[op] is not None:
                new = {t + 1: tf for t, tf in state[op].items()}
                index.remove(op)
                state[op] = None
                state.append(new)
                assert add_doc(index, new) == len(state) - 1
            check_search(index, state, query, 5)
        live = [d for d in state if d is not None]
        assert index.avgdl == pytest.approx(
            sum(sum(d.values()) for d in live) / len(live) if live else 0.0
        )


@settings(max_examples=100, deadline=None)
@given(docs=st.lists(doc_strategy, min_size=1, max_size=30), query=query_strategy)
def test_from_arrays_equals_incremental_adds(docs, query) -> None:
    built = BM25Index.from_arrays(*csr(docs), n_terms=12)
    incremental = BM25Index()
    for doc in docs:
        add_doc(incremental, doc)
    every = np.arange(len(docs))
    assert built.n_docs == incremental.n_docs == len(docs)
    assert built.avgdl == pytest.approx(incremental.avgdl)
    assert built.score(query, every) == pytest.approx(incremental.score(query, every), abs=1e-12)
    got, want = built.search(query, 10), incremental.search(query, 10)
    assert got[0].tolist() == want[0].tolist()
    assert got[1] == pytest.approx(want[1], abs=1e-12)
    check_search(built, list(docs), query, 10)


@settings(max_examples=80, deadline=None)
@given(
    docs=st.lists(doc_strategy, min_size=1, max_size=25),
    bits=st.lists(st.booleans(), min_size=25, max_size=25),
    query=query_strategy,
)
def test_mask_filters_without_changing_scores(docs, bits, query) -> None:
    index = BM25Index.from_arrays(*csr(docs), n_terms=12)
    mask = np.array(bits[: len(docs)])
    check_search(index, list(docs), query, 8, mask)


def test_only_live_documents_count() -> None:
    docs: list[Doc | None] = [{0: 1, 1: 3}, {0: 2}, {1: 1, 2: 9}, {2: 1}]
    index = BM25Index.from_arrays(*csr(docs), n_terms=3)  # type: ignore[arg-type]
    index.remove(2)
    docs[2] = None
    assert (index.n_docs, index.n_total, index.n_tombstones) == (3, 4, 1)
    assert index.avgdl == pytest.approx((4 + 2 + 1) / 3)
    # Term 1 is now only in doc 0: N=3, df=1; dl(0)=4.
    idf = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    expected = idf * 3 * (K1 + 1) / (3 + K1 * (1 - B + B * 4 / (7 / 3)))
    docs_, scores = index.search([1], 5)
    assert docs_.tolist() == [0] and scores[0] == pytest.approx(expected, abs=1e-12)
    assert index.score([1, 2], [2]).tolist() == [0.0]
    index.remove(2)  # a second remove is a no-op
    assert index.n_docs == 3
    with pytest.raises(IndexError):
        index.remove(4)


def test_empty_and_unknown_queries() -> None:
    index = BM25Index.from_arrays(*csr([{0: 1}, {1: 2}]), n_terms=2)
    for query in ([], [-1], [7], [-1, 99]):
        docs, scores = index.search(query, 5)
        assert docs.size == scores.size == 0
    assert index.search([0], 0)[0].size == 0
    assert BM25Index().search([0], 3)[0].size == 0
    assert index.matched([0, 1], 0) == [0]


def test_ties_break_by_doc_id_even_at_the_cut() -> None:
    index = BM25Index.from_arrays(*csr([{0: 1, 1: 1}] * 10 + [{2: 1}] * 50), n_terms=3)
    docs, scores = index.search([0, 0, 1], 4)
    assert docs.tolist() == [0, 1, 2, 3]
    assert len(set(scores.tolist())) == 1
    index.remove_many([0, 2])
    assert index.search([0], 3)[0].tolist() == [1, 3, 4]


def test_query_terms_are_deduplicated() -> None:
    index = BM25Index.from_arrays(*csr([{0: 2, 1: 1}, {1: 4}, {2: 1}]), n_terms=3)
    assert index.search([0, 1, 0, 1], 3)[1] == pytest.approx(index.search([0, 1], 3)[1])
    assert index.matched([1, 0, 1, 2], 0) == [1, 0]
    index.remove(0)
    assert index.matched([0, 1], 0) == []


def test_many_adds_fold_into_the_main_segment() -> None:
    rng = np.random.default_rng(7)
    docs = [
        {int(t): int(rng.integers(1, 4)) for t in rng.choice(50, size=5, replace=False)}
        for _ in range(300)
    ]
    with small_segments(True):
        index = BM25Index()
        for i, doc in enumerate(docs):
            add_doc(index, doc)
            if i % 37 == 0:
                check_search(index, list(docs[: i + 1]), [1, 2, 3], 7)
    check_search(index, list(docs), [4, 5, 49], 20)


def test_bad_arrays_are_refused() -> None:
    with pytest.raises(ValueError):
        BM25Index.from_arrays(np.array([0, 2]), np.array([0]), np.array([1]), n_terms=1)
    with pytest.raises(ValueError):
        BM25Index.from_arrays(np.array([0, 1]), np.array([0]), np.array([1, 2]), n_terms=1)
    with pytest.raises(ValueError):
        BM25Index().add(np.array([-3]), np.array([1]))


@pytest.mark.parametrize("k", [1, 2, 3, 5, 50])
def test_long_posting_lists_with_selective_terms(k: int) -> None:
    """Term 0 is in every doc, term 1 in three: small k can skip term 0's other docs."""
    rng = np.random.default_rng(k)
    docs: list[Doc | None] = [{0: int(rng.integers(1, 4)), 2 + i % 5: 1} for i in range(200)]
    for i in (7, 50, 120):
        docs[i] = {**docs[i], 1: int(rng.integers(1, 3))}  # type: ignore[dict-item]
    index = BM25Index.from_arrays(*csr(docs), n_terms=7)  # type: ignore[arg-type]
    for query in ([0, 1], [1, 0], [0, 1, 2], [0, 2]):
        check_search(index, docs, query, k)
        check_search(index, docs, query, k, mask=np.arange(200) % 3 != 0)
    index.remove(50)
    docs[50] = None
    check_search(index, docs, [0, 1], k)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_few_postings_score_like_the_numpy_paths_bit_for_bit(seed: int) -> None:
    """The plain-Python scorer of small queries (`_few`) gives the very floats and order of
    the numpy passes: the same additions in the same order (ws.search's answers must not
    change with the path a query takes), with tombstones, a pending delta and a mask."""
    rng = np.random.default_rng(seed)
    n_docs, n_terms = 12_000, 400
    # Posting list lengths spread log-uniformly over 1-3000: rare and common terms.
    sizes = np.exp(rng.uniform(0, np.log(3000), n_terms)).astype(int)
    docs: list[Doc] = [{} for _ in range(n_docs)]
    for term, size in enumerate(sizes.tolist()):
        # Rare terms share a few hundred docs: many docs sum three terms or more.
        for doc in rng.choice(300 if size <= 12 else n_docs, size, replace=False).tolist():
            docs[doc][term] = int(rng.integers(1, 9))
    index = BM25Index.from_arrays(*csr(docs[:10_000]), n_terms)
    index.add_many(*csr(docs[10_000:]))  # a delta segment beside the main CSR
    index.remove_many(rng.choice(n_docs, 300, replace=False))
    mask = rng.random(n_docs) < 0.7
    ids = np.arange(n_terms)
    rare = ids[sizes <= 12]
    taken = 0
    for _ in range(400):
        query = rng.choice(rare, int(rng.integers(1, 9)), replace=False).tolist()
        query += rng.choice(ids, int(rng.integers(0, 2))).tolist()  # now and then a common one
        for k, m in ((10, None), (50, None), (3, mask)):
            groups = index._term_stats(index._query(query))
            if not groups:  # every doc of these terms removed
                continue
            few = index._few(groups, k, m)
            docs_, scores = index._ranked(groups, k, m)
            got_docs, got_scores = index.search(query, k, m)
            assert (got_docs.tolist(), got_scores.tolist()) == (docs_.tolist(), scores.tolist())
            assert got_docs.dtype == np.int64 and got_scores.dtype == np.float64
            if few is not None:
                taken += 1
                assert (few[0].tolist(), few[1].tolist()) == (docs_.tolist(), scores.tolist())
    assert taken > 600  # most of these queries took the plain-Python path
