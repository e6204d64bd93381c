"""Vocabulary: stable dense ids, unknown terms as -1, order-preserving compaction."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reme_core.text.vocabulary import Vocabulary


def test_ids_are_dense_in_first_seen_order() -> None:
    vocab = Vocabulary(["b", "a"])
    assert vocab.add("a") == 1 and vocab.add("c") == 2
    assert vocab.add_many(iter(["d", "a", "d", "e"])).tolist() == [3, 1, 3, 4]
    assert vocab.terms() == ["b", "a", "c", "d", "e"] and len(vocab) == 5
    assert vocab.id_of("d") == 3 and vocab.id_of("zz") is None and "e" in vocab
    assert vocab.term(4) == "e"


def test_unknown_terms_are_minus_one_and_aligned() -> None:
    vocab = Vocabulary(["x", "y"])
    ids = vocab.ids(["y", "nope", "x"])
    assert ids.dtype == np.int32 and ids.tolist() == [1, -1, 0]
    assert vocab.ids([]).tolist() == []


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.text(max_size=3), max_size=8), max_size=8))
def test_add_many_agrees_with_add(batches: list[list[str]]) -> None:
    one, many = Vocabulary(), Vocabulary()
    for batch in batches:
        assert many.add_many(batch).tolist() == [one.add(t) for t in batch]
    assert one.terms() == many.terms()
    assert [many.id_of(t) for t in many.terms()] == list(range(len(many)))
