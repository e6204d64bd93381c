"""Term <-> dense integer id, the shared key of stored token ids and BM25 posting lists."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from itertools import islice, repeat

import numpy as np

from reme_core.text.joined_strings import JoinedStrings

# Look-ups a vocabulary over joined strings answers by a byte search before it builds its
# dict (a cold search makes a few dozen; a browser session makes thousands).
_SEARCHES_BEFORE_DICT = 64


class Vocabulary:
    """Ids are assigned in first-seen order and never change while the vocabulary lives
    (optimize rewrites the stored vocabulary, and the index is loaded from it again).

    Over a snapshot's `JoinedStrings` the terms stay joined until they are needed as a list
    (adding terms, prefixes, the snapshot) or looked up often; a repeated term keeps its
    first id either way."""

    def __init__(self, terms: Iterable[str] = ()) -> None:
        self._joined: JoinedStrings | None = None
        self._searches = 0
        self._terms: list[str] = []
        self._ids: dict[str, int] = {}
        if isinstance(terms, JoinedStrings):
            self._joined = terms
        else:
            self._index(list(terms))
        # Terms in sorted order for prefix look-ups, made on first use and then kept up with
        # new terms (ids only grow).
        self._sorted: list[str] = []
        self._sorted_upto = 0

    def _index(self, terms: list[str]) -> None:
        self._terms = terms
        self._ids = dict(zip(terms, range(len(terms))))
        if len(self._ids) != len(terms):  # a term repeated: the first one keeps its id
            self._ids = dict(zip(reversed(terms), range(len(terms) - 1, -1, -1)))

    def _listed(self) -> None:
        """Split joined terms into the list and dict (once)."""
        if self._joined is not None:
            joined, self._joined = self._joined, None
            self._index(joined.to_list())

    def joined(self) -> str:
        """Every term in one, NUL between them, without splitting joined terms."""
        return self._joined.joined() if self._joined is not None else "\0".join(self._terms)

    def __len__(self) -> int:
        return len(self._joined) if self._joined is not None else len(self._terms)

    def __contains__(self, term: str) -> bool:
        return self.id_of(term) is not None

    def id_of(self, term: str) -> int | None:
        """The id of ``term``, or None when it was never added."""
        if self._joined is not None:
            self._searches += 1
            if self._searches <= _SEARCHES_BEFORE_DICT:
                return self._joined.index_of(term)
            self._listed()
        return self._ids.get(term)

    def term(self, term_id: int) -> str:
        """The term behind an id (IndexError for an unknown id)."""
        if self._joined is not None:
            return self._joined[term_id]
        return self._terms[term_id]

    def terms(self) -> list[str]:
        """All terms in id order (what the store persists)."""
        self._listed()
        return list(self._terms)

    def add(self, term: str) -> int:
        """The id of ``term``, assigning the next free one if it is new."""
        self._listed()
        term_id = self._ids.get(term)
        if term_id is None:
            term_id = self._ids[term] = len(self._terms)
            self._terms.append(term)
        return term_id

    def add_many(self, terms: Iterable[str]) -> np.ndarray:
        """Ids of ``terms`` (int32, same order), assigning ids to new ones in first-seen order.

        Known terms are looked up by a C-level ``map``; only the new ones are touched in Python.
        """
        self._listed()
        terms = terms if isinstance(terms, list) else list(terms)
        ids = np.fromiter(map(self._ids.get, terms, repeat(-1)), dtype=np.int64, count=len(terms))
        new_at = np.flatnonzero(ids < 0)
        if len(new_at):
            new_terms = [terms[i] for i in new_at.tolist()]
            n0 = len(self._terms)
            fresh = list(dict.fromkeys(new_terms))
            self._ids.update(zip(fresh, range(n0, n0 + len(fresh))))
            self._terms.extend(fresh)
            ids[new_at] = np.fromiter(map(self._ids.__getitem__, new_terms), np.int64, len(new_at))
        return ids.astype(np.int32)

    def with_prefix(self, prefix: str, limit: int = 1000) -> list[int]:
        """Ids of up to ``limit`` terms that start with ``prefix`` (in term order)."""
        if not prefix:
            return []
        self._listed()
        if not self._sorted_upto:
            self._sorted = sorted(self._terms)
        else:
            for term in islice(self._terms, self._sorted_upto, None):
                bisect.insort(self._sorted, term)
        self._sorted_upto = len(self._terms)
        at = bisect.bisect_left(self._sorted, prefix)
        out = []
        for term in islice(self._sorted, at, at + limit):
            if not term.startswith(prefix):
                break
            out.append(self._ids[term])
        return out

    def ids(self, terms: Sequence[str]) -> np.ndarray:
        """Ids of ``terms`` (int32, aligned with the input); -1 marks a term never seen.

        BM25Index.search ignores negative ids, so a query can pass the array straight through.
        """
        found = map(self.id_of, terms)
        return np.fromiter((-1 if i is None else i for i in found), np.int32, count=len(terms))
