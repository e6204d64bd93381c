"""A vocabulary over a snapshot's joined terms answers as one over the list: ids, terms,
additions and prefixes, before and after it builds its dict, repeated terms included."""

from __future__ import annotations

import numpy as np
import pytest

from reme_core.text.joined_strings import JoinedStrings
from reme_core.text.vocabulary import Vocabulary

TERMS = ["alpha", "", "中文", "beta", "alphabet", "beta", "ünï"]
PROBES = [*TERMS, "gamma", "alp", "a\0b", "\udce9", "eta"]


def joined(terms: list[str]) -> JoinedStrings:
    return JoinedStrings("\0".join(terms).encode("utf-8"), len(terms))


def test_joined_and_listed_vocabularies_agree() -> None:
    listed, lazy = Vocabulary(TERMS), Vocabulary(joined(TERMS))
    assert len(lazy) == len(listed) == len(TERMS)
    for _ in range(80):  # past the searches made before the dict is built
        assert [lazy.id_of(t) for t in PROBES] == [listed.id_of(t) for t in PROBES]
    assert lazy.id_of("beta") == 3  # a repeated term keeps its first id
    assert [lazy.term(i) for i in range(len(TERMS))] == TERMS
    assert np.array_equal(lazy.ids(PROBES), listed.ids(PROBES))
    assert lazy.with_prefix("alpha") == listed.with_prefix("alpha") == [0, 4]
    assert lazy.add("gamma") == listed.add("gamma") == len(TERMS)
    assert lazy.terms() == listed.terms()


def test_a_term_is_cut_out_without_the_list() -> None:
    strings = joined(TERMS)
    assert strings[2] == "中文" and strings[-1] == "ünï" and strings.index_of("ünï") == 6
    with pytest.raises(IndexError):
        strings[len(TERMS)]
    assert list(strings) == TERMS and strings[1:3] == ["", "中文"]


@pytest.mark.parametrize("data, n", [(b"a\0b", 3), (b"\xff\0a", 2), (b"", -1)])
def test_joined_strings_refuse_what_a_snapshot_should_not_hold(data: bytes, n: int) -> None:
    with pytest.raises(ValueError):
        JoinedStrings(data, n)


def test_no_strings_and_one_empty_string() -> None:
    assert list(JoinedStrings(b"", 0)) == [] and list(JoinedStrings(b"", 1)) == [""]
