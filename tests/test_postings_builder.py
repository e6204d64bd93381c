"""The rebuild's postings builder: the term-major CSR a plain sort gives, whatever the counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reme_core.index.postings_builder import PostingsBuilder


def _batch(rng: np.random.Generator, n_docs: int, n_terms: int, top_tf: int):
    ptr, terms, tfs = [0], [], []
    for _ in range(n_docs):
        ids = rng.choice(n_terms, size=int(rng.integers(0, 12)), replace=False)
        terms.extend(ids.tolist())
        tfs.extend(rng.integers(1, top_tf + 1, size=len(ids)).tolist())
        ptr.append(len(terms))
    return np.array(ptr), np.array(terms, np.int32), np.array(tfs, np.int32)


@pytest.mark.parametrize("spill", [False, True])  # pending batches in memory, or in a file
@pytest.mark.parametrize("top_tf", [3, 255, 256, 70_000])  # one byte, two, and int32 counts
def test_finish_matches_a_plain_sort(top_tf: int, spill: bool, tmp_path: Path) -> None:
    rng = np.random.default_rng(top_tf)
    builder = PostingsBuilder(tmp_path if spill else None)
    batches = [_batch(rng, int(rng.integers(0, 30)), 50, top_tf) for _ in range(8)]
    for batch in batches:
        builder.add(*batch)
    assert (builder._spill is not None) == spill
    (ptr, docs, tfs), lengths = builder.finish(60)  # more terms than the batches use
    assert builder._spill is None and list(tmp_path.iterdir()) == []  # nothing left behind

    all_docs, all_terms, all_tfs, first = [], [], [], 0
    for doc_ptr, terms, counts in batches:
        m = len(doc_ptr) - 1
        all_docs.append(np.repeat(np.arange(first, first + m), np.diff(doc_ptr)))
        all_terms.append(terms)
        all_tfs.append(counts)
        first += m
    d, t, f = (np.concatenate(a) for a in (all_docs, all_terms, all_tfs))
    order = np.lexsort((d, t))
    assert docs.dtype == tfs.dtype == np.int32
    assert docs.tolist() == d[order].tolist() and tfs.tolist() == f[order].tolist()
    assert ptr.tolist() == np.r_[0, np.cumsum(np.bincount(t, minlength=60))].tolist()
    assert lengths.tolist() == np.bincount(d, weights=f, minlength=first).astype(int).tolist()
    assert int(tfs.max()) <= top_tf and (top_tf < 256 or int(tfs.max()) > 255)
