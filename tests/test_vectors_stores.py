"""Exact and faiss HNSW vector stores: agreement, tombstones, masks, compaction."""

from __future__ import annotations

import numpy as np
import pytest

from reme_core.errors import ConfigError
from reme_core.vectors import (
    ExactVectorStore,
    FaissHNSWStore,
    blob_to_vector,
    blobs_to_matrix,
    l2_normalize,
    make_store,
    vector_to_blob,
)

# One worker builds the module's costly fixture once (not once per worker).
pytestmark = pytest.mark.xdist_group("vectors_stores")

N, DIM, CLUSTERS = 20_000, 64, 50


def clustered(n: int, rng: np.random.Generator, intrinsic: int = 16) -> np.ndarray:
    """Unit vectors in 50 clusters, each spread over its own low-dimensional subspace.

    Real embeddings have a low intrinsic dimension; isotropic noise in all 64 dimensions would
    make every neighbour nearly equidistant, which is not what a store meets in practice.
    """
    layout = np.random.default_rng(1234)  # same clusters for corpus and queries
    centers = l2_normalize(layout.normal(size=(CLUSTERS, DIM)))
    bases = layout.normal(size=(CLUSTERS, intrinsic, DIM)) / np.sqrt(DIM)
    label = rng.integers(0, CLUSTERS, n)
    spread = np.einsum("ni,nid->nd", rng.normal(size=(n, intrinsic)), bases[label])
    return l2_normalize(centers[label] + 0.5 * spread + 0.02 * rng.normal(size=(n, DIM)))


@pytest.fixture(scope="module")
def corpus() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return clustered(N, rng), clustered(100, rng)


@pytest.fixture(scope="module")
def stores(corpus) -> tuple[ExactVectorStore, FaissHNSWStore]:
    vectors, _ = corpus
    exact, hnsw = ExactVectorStore(DIM), FaissHNSWStore(DIM)
    ids = np.arange(N)
    for start in range(0, N, 5000):  # several adds, as a background backfill would do
        exact.add(ids[start : start + 5000], vectors[start : start + 5000])
        hnsw.add(ids[start : start + 5000], vectors[start : start + 5000])
    return exact, hnsw


def recall_at_10(a, b, queries) -> float:
    hits = [len(set(a.search(q, 10)[0]) & set(b.search(q, 10)[0])) for q in queries]
    return sum(hits) / (10 * len(queries))


def test_hnsw_matches_exact_top10(stores, corpus):
    exact, hnsw = stores
    _, queries = corpus
    assert len(exact) == len(hnsw) == N
    assert recall_at_10(exact, hnsw, queries) >= 0.95
    ids, scores = hnsw.search(queries[0], 10)
    assert ids.dtype == np.int64 and scores.dtype == np.float32
    assert np.all(np.diff(scores) <= 0)
    e_ids, e_scores = exact.search(queries[0], 10)
    assert np.all(np.diff(e_scores) <= 0)
    # cosine of unit vectors: the exact score is the plain dot product
    np.testing.assert_allclose(e_scores, corpus[0][e_ids] @ queries[0], rtol=1e-5)


def make(kind: str, **kw):
    return ExactVectorStore(DIM) if kind == "exact" else FaissHNSWStore(DIM, **kw)


@pytest.mark.parametrize(
    ("kind", "kw"),
    [("exact", {}), ("faiss", {}), ("faiss", {"brute_force_below": 0, "min_graph_fraction": 0})],
    ids=["exact", "faiss", "faiss-graph-only"],
)
def test_tombstones_never_come_back(kind, kw, corpus):
    vectors, queries = corpus
    n = 6000
    store = make(kind, **kw)
    store.add(np.arange(n), vectors[:n])
    rng = np.random.default_rng(3)
    dead = rng.choice(n, n // 3, replace=False)
    assert store.remove(dead) == dead.size
    assert store.remove(dead) == 0  # idempotent
    assert (len(store), store.n_tombstones) == (n - dead.size, dead.size)
    dead_set = set(dead.tolist())
    # a removed doc's own vector is the best possible query for it
    for q in [*queries[:20], *vectors[dead[:20]]]:
        ids, _ = store.search(q, 50)
        assert len(ids) == 50 and not dead_set & set(ids.tolist())
    report = store.optimize()
    assert report == {
        "live_before": n - dead.size,
        "tombstones_removed": dead.size,
        "dropped": 0,
        "live_after": n - dead.size,
    }
    assert store.n_tombstones == 0
    for q in vectors[dead[:20]]:
        ids, _ = store.search(q, 50)
        assert not dead_set & set(ids.tolist())
    assert set(store.doc_ids().tolist()) == set(range(n)) - dead_set


@pytest.mark.parametrize("kind", ["exact", "faiss"])
def test_optimize_follows_a_doc_map(kind, corpus):
    vectors, _ = corpus
    n = 3000
    store = make(kind)
    store.add(np.arange(n), vectors[:n])
    dead = np.arange(0, n, 3)
    store.remove(dead)
    # the BM25 compaction map: removed docs -> -1, survivors renumbered densely in order
    doc_map = np.full(n, -1, dtype=np.int64)
    alive = np.setdiff1d(np.arange(n), dead)
    doc_map[alive] = np.arange(alive.size)
    doc_map[5] = -1  # BM25 also dropped a doc the vector side still had
    report = store.optimize(doc_map)
    assert report["tombstones_removed"] == dead.size
    assert report["dropped"] == 1
    assert len(store) == alive.size - 1
    for old in (1, 2, 4, 2999):
        ids, scores = store.search(vectors[old], 1)
        assert ids.tolist() == [doc_map[old]]
        assert scores[0] == pytest.approx(1.0, abs=1e-5)
    ids, _ = store.search(vectors[5], alive.size)
    assert doc_map[4] in ids and len(ids) == alive.size - 1


@pytest.mark.parametrize("kind", ["exact", "faiss"])
def test_doc_map_collision_is_refused(kind, corpus):
    store = make(kind)
    store.add(np.arange(3), corpus[0][:3])
    with pytest.raises(ValueError, match="same new id"):
        store.optimize(np.array([0, 0, 1]))


@pytest.mark.parametrize("which", ["exact", "faiss", "faiss-graph-only"])
def test_mask_limits_results(which, stores, corpus):
    exact, hnsw = stores
    vectors, queries = corpus
    if which == "faiss-graph-only":  # the graph walk even for tiny selections, then fallback
        store = FaissHNSWStore(DIM, brute_force_below=0, min_graph_fraction=0)
        store.add(np.arange(6000), vectors[:6000])
    else:
        store = exact if which == "exact" else hnsw
    mask = np.zeros(N, dtype=bool)
    mask[::2] = True  # half the workspace passes a filter
    for q in queries[:10]:
        ids, _ = store.search(q, 10, mask=mask)
        assert len(ids) == 10 and np.all(ids % 2 == 0)
    narrow = np.zeros(N // 2, dtype=bool)  # shorter than the id range: the rest is excluded
    narrow[[7, 70, 700, 5000]] = True
    ids, _ = store.search(queries[0], 10, mask=narrow)
    expected, _ = exact.search(queries[0], 10, mask=narrow)
    assert sorted(ids.tolist()) == [7, 70, 700, 5000]
    assert ids.tolist() == expected.tolist()
    empty, scores = store.search(queries[0], 10, mask=np.zeros(N, dtype=bool))
    assert empty.size == 0 and scores.size == 0


@pytest.mark.parametrize("kind", ["exact", "faiss"])
def test_replace_and_duplicates(kind):
    store = make(kind)
    a, b, c = np.eye(DIM, dtype=np.float32)[:3]
    store.add(np.array([4, 4, 9]), np.stack([a, b, c]))  # a doc twice in a batch: last wins
    assert len(store) == 2
    assert store.search(b, 1)[0].tolist() == [4]
    store.add(np.array([4]), 3 * a)  # replacing a vector (and normalising it)
    ids, scores = store.search(a, 2)
    assert ids.tolist() == [4, 9] and scores[0] == pytest.approx(1.0)
    assert store.search(b, 1)[1][0] == pytest.approx(0.0)
    assert len(store) == 2
    store.remove(np.array([9, 12345, -1]))  # unknown ids are ignored
    store.add(np.array([9]), c)  # a removed doc can come back
    assert store.search(c, 1)[0].tolist() == [9] and len(store) == 2


@pytest.mark.parametrize("kind", ["exact", "faiss"])
def test_edge_cases(kind):
    store = make(kind)
    q = np.ones(DIM, dtype=np.float32)
    assert store.search(q, 5)[0].size == 0
    store.add(np.arange(0), np.zeros((0, DIM)))
    for i in range(300):  # one by one: growth is amortised, ids need not be in order
        store.add(np.array([299 - i]), np.eye(DIM, dtype=np.float32)[i % DIM])
    assert len(store) == 300
    assert store.search(q, 0)[0].size == 0
    assert store.search(q, 1000)[0].size == 300
    with pytest.raises(ValueError):
        store.search(np.ones(DIM + 1), 3)
    with pytest.raises(ValueError):
        store.add(np.array([1, 2]), np.ones((1, DIM)))
    with pytest.raises(ValueError):
        store.add(np.array([-1]), np.ones((1, DIM)))
    with pytest.raises(ValueError):
        store.add(np.array([1]), np.full((1, DIM), np.nan))


def test_ties_are_broken_by_doc_id():
    store = ExactVectorStore(4)
    store.add(np.array([8, 3, 5]), np.tile([1.0, 0, 0, 0], (3, 1)))
    assert store.search(np.array([1.0, 0, 0, 0]), 2)[0].tolist() == [3, 5]


def test_make_store():
    assert isinstance(make_store("exact", 8), ExactVectorStore)
    assert isinstance(make_store("faiss", 8), FaissHNSWStore)
    with pytest.raises(ConfigError, match=r"vectors\.store"):
        make_store("annoy", 8)


def test_blob_round_trip():
    vec = np.array([0.5, -1.25, 3.0e-8, 7.0], dtype=np.float32)
    blob = vector_to_blob(vec)
    assert blob == b"\x00\x00\x00?\x00\x00\xa0\xbf" + vec[2:].astype("<f4").tobytes()
    back = blob_to_vector(blob, 4)
    assert back.dtype == np.float32 and back.flags.writeable
    np.testing.assert_array_equal(back, vec)
    with pytest.raises(ValueError, match="expected 12"):
        blob_to_vector(blob, 3)
    matrix = blobs_to_matrix([blob, vector_to_blob(vec * 2)], 4)
    np.testing.assert_array_equal(matrix, np.stack([vec, vec * 2]))
    assert blobs_to_matrix([], 4).shape == (0, 4)
