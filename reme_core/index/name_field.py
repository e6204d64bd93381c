"""Each note's names as a field of their own: what a person types to find a known note.

A note's file name, its frontmatter `name` and `title` and its aliases make one short
document per file, scored with BM25 like the chunks but in an index of their own. Search adds
a note's name score to its best chunk (BM25F-style, one field weight), so typing a note's name
ranks that note first while a query that matches no name scores exactly as before.

Built on first use per version of the in-memory index; each file's name terms are kept by
path (and frontmatter) so that after a commit only the changed files are tokenised again.
The Latin field also travels in the snapshot (`NameColumns`, one row per file in the
snapshot's file order): building it was ~0.5 s of every cold search at 50k files. A rebuild
takes it from its pool's workers, which tokenise each batch's names (`NameRows`).

The same structure holds a note's property values (`property_text`: `description`,
`status: draft`, ...) as a second field (`PROPERTIES`), with BM25's usual length
normalisation and a lower weight in search, so a property match ranks a note without
drowning the notes whose body holds the words.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from reme_core.index.bm25 import BM25Index
from reme_core.index.link_columns import Grouped
from reme_core.parse.note_names import NameTerms, Tokenize, name_text, property_text
from reme_core.text.tokenizer import has_cjk
from reme_core.text.vocabulary import Vocabulary

NAME_B = 0.2
TextOf = Callable[[str, dict[str, Any]], str]  # a note's field text from its path, frontmatter


@dataclass(frozen=True, slots=True)
class FieldKind:
    """Which field: its text rule and BM25's b (a low b: a name that holds every typed word
    and a little more, a version or a folder prefix, must not lose to a shorter name that
    holds fewer of them; property values are text, normalised as usual)."""

    key: str
    text: TextOf
    b: float


NAMES = FieldKind("names", name_text, NAME_B)
PROPERTIES = FieldKind("props", property_text, 0.75)


@dataclass(slots=True)
class NameColumns:
    """A name field as the snapshot stores it: a doc-major CSR with one row per file (in
    the snapshot's file order) over the field's own vocabulary."""

    ptr: np.ndarray  # int64, files + 1
    term_ids: np.ndarray  # int32
    tfs: np.ndarray  # int32
    vocab: list[str]
    cjk_free: bool  # no name holds a CJK character: the CJK-mode field is the same
    # The term-major CSR (ptr, docs, tfs) of the same rows, when a snapshot kept it: an open
    # then sorts no posting.
    postings: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


class NameField:
    """BM25 over the names of the live files, one document per file slot."""

    def __init__(
        self,
        slots: np.ndarray,
        bm25: BM25Index,
        vocab: Vocabulary,
        csr: tuple[np.ndarray, np.ndarray, np.ndarray],
        cjk_free: bool,
        kind: FieldKind = NAMES,
    ) -> None:
        self._slots = slots  # name document -> file slot
        self._bm25 = bm25
        self.vocab = vocab
        self._csr = csr  # doc-major (ptr, term ids, counts), kept for `columns`
        self.cjk_free = cjk_free
        self.kind = kind
        self._doc_of: np.ndarray | None = None  # file slot -> its document, made on first need
        self._slot_terms: dict[int, frozenset[int]] = {}  # `holding`'s, filled as asked

    @classmethod
    def from_columns(cls, cols: NameColumns, n_files: int, kind: FieldKind = NAMES) -> NameField:
        """The field of a loaded snapshot (every slot live, in file order); ValueError when
        the arrays cannot be one (`BM25Index.from_arrays` checks the CSR)."""
        if len(cols.ptr) != n_files + 1 or len(set(cols.vocab)) != len(cols.vocab):
            raise ValueError("the name field does not fit these files")
        if len(cols.term_ids) and int(cols.term_ids.max()) >= len(cols.vocab):
            raise ValueError("name terms outside their vocabulary")
        bm25 = BM25Index.from_arrays(
            cols.ptr, cols.term_ids, cols.tfs, len(cols.vocab), b=kind.b, postings=cols.postings
        )
        slots = np.arange(n_files, dtype=np.int64)
        csr = (cols.ptr, cols.term_ids, cols.tfs)
        return cls(slots, bm25, Vocabulary(cols.vocab), csr, cols.cjk_free, kind)

    def columns(self, slots: np.ndarray) -> NameColumns | None:
        """The rows of these file slots (the snapshot's file order); None when one of them
        has no document here."""
        doc_of = np.full(int(max(self._slots.max(initial=-1), slots.max(initial=-1))) + 1, -1)
        doc_of[self._slots] = np.arange(len(self._slots))
        docs = doc_of[slots]
        if len(docs) and docs.min() < 0:
            return None
        ptr, term_ids, tfs = self._csr
        rows, _ = Grouped.from_ptr(ptr).gather(docs)
        counts = ptr[docs + 1] - ptr[docs]
        out_ptr = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum(counts, out=out_ptr[1:])
        return NameColumns(out_ptr, term_ids[rows], tfs[rows], self.vocab.terms(), self.cjk_free)

    @classmethod
    def build(
        cls,
        paths: Sequence[str],
        live: np.ndarray,
        frontmatter: Callable[[str], dict[str, Any]],
        tokenize: Tokenize,
        cache: dict[str, tuple[str, list[str]]],
        kind: FieldKind = NAMES,
    ) -> NameField:
        """The field of the live slots; ``cache`` (path -> (text, terms)) is reused and kept."""
        vocab = Vocabulary()
        slots = np.flatnonzero(live[: len(paths)]).astype(np.int64)
        csr, cjk_free = _rows(vocab, paths, slots, frontmatter, tokenize, cache, kind.text)
        bm25 = BM25Index.from_arrays(*csr, len(vocab), b=kind.b)
        return cls(slots, bm25, vocab, csr, cjk_free, kind)

    def updated(
        self,
        paths: Sequence[str],
        live: np.ndarray,
        frontmatter: Callable[[str], dict[str, Any]],
        tokenize: Tokenize,
        cache: dict[str, tuple[str, list[str]]],
        changed: set[int],
    ) -> NameField:
        """This field after the files of the ``changed`` slots were put or removed: the other
        names are kept as they are and only these are built again (building every name again
        made each search after a commit ~0.9 s slower at 50k files). The scores are those of
        a field built from scratch: BM25's statistics are taken again over all the names."""
        n = len(paths)
        live = live[:n]
        old_slots = self._slots
        keep = live[old_slots]
        if changed:
            keep &= ~np.isin(old_slots, np.fromiter(changed, np.int64, len(changed)))
        kept = np.flatnonzero(keep)
        have = np.zeros(n, dtype=bool)
        have[old_slots[kept]] = True
        fresh = np.flatnonzero(live & ~have).astype(np.int64)
        vocab = self.vocab  # shared: terms are only ever appended
        (new_ptr, new_ids, new_tfs), cjk_free = _rows(
            vocab, paths, fresh, frontmatter, tokenize, cache, self.kind.text
        )
        ptr, term_ids, tfs = self._csr
        rows, _ = Grouped.from_ptr(ptr).gather(kept)
        counts = np.concatenate([ptr[kept + 1] - ptr[kept], np.diff(new_ptr)])
        out_ptr = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=out_ptr[1:])
        csr = (
            out_ptr,
            np.concatenate([term_ids[rows], new_ids]).astype(np.int32),
            np.concatenate([tfs[rows], new_tfs]).astype(np.int32),
        )
        bm25 = BM25Index.from_arrays(*csr, len(vocab), b=self.kind.b)
        slots = np.concatenate([old_slots[kept], fresh])
        return NameField(slots, bm25, vocab, csr, self.cjk_free and cjk_free, self.kind)

    def holding(self, slots: np.ndarray, terms: Sequence[str]) -> np.ndarray:
        """Bool per file slot: its document here holds every one of ``terms`` (a note one
        of whose names has exactly a query's terms passes; most others need not be read)."""
        found_ids = [self.vocab.id_of(t) for t in dict.fromkeys(terms)]
        ids = [i for i in found_ids if i is not None]
        if not len(slots) or len(ids) < len(found_ids):
            return np.zeros(len(slots), dtype=bool)
        want = set(ids)
        return np.array([want <= self._terms_of(slot) for slot in slots.tolist()], dtype=bool)

    def _terms_of(self, slot: int) -> frozenset[int]:
        """The term ids of a file slot's document (none for a slot without one), kept: a
        search asks about the same few dozen notes again and again (numpy's fixed cost per
        call was most of `holding` for them)."""
        terms = self._slot_terms.get(slot)
        if terms is None:
            if self._doc_of is None:
                self._doc_of = np.full(int(self._slots.max(initial=-1)) + 1, -1, dtype=np.int64)
                self._doc_of[self._slots] = np.arange(len(self._slots))
            doc = int(self._doc_of[slot]) if 0 <= slot < len(self._doc_of) else -1
            ptr, term_ids, _ = self._csr
            row = term_ids[ptr[doc] : ptr[doc + 1]].tolist() if doc >= 0 else []
            terms = self._slot_terms[slot] = frozenset(row)
        return terms

    def search(self, terms: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top `k` (file slots, name scores) for query terms (already analysed)."""
        ids = [i for i in (self.vocab.id_of(t) for t in terms) if i is not None]
        if not ids:
            return np.zeros(0, np.int64), np.zeros(0)
        docs, scores = self._bm25.search(ids, k)
        return self._slots[docs], scores


def _rows(
    vocab: Vocabulary,
    paths: Sequence[str],
    slots: np.ndarray,
    frontmatter: Callable[[str], dict[str, Any]],
    tokenize: Tokenize,
    cache: dict[str, tuple[str, list[str]]],
    text_of: TextOf,
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], bool]:
    """The doc-major CSR (ptr, term ids, counts) of these slots' field texts (`text_of`),
    terms added to ``vocab``, and whether no text held a CJK character."""
    names = [
        (path, text_of(path, frontmatter(path))) for path in map(paths.__getitem__, slots.tolist())
    ]
    cjk_free = not any(has_cjk(text) for _, text in names)
    # Tokenised together: the names not in the cache, or whose text changed since.
    fresh = [(path, text) for path, text in names if (cache.get(path) or (None,))[0] != text]
    for (path, text), terms in zip(fresh, tokenize([text for _, text in fresh]), strict=True):
        cache[path] = (text, terms)
    tokens: list[str] = []
    lengths = np.zeros(len(slots), dtype=np.int64)
    for n, (path, _) in enumerate(names):
        terms = cache[path][1]
        tokens += terms
        lengths[n] = len(terms)
    return _csr(vocab, tokens, lengths), cjk_free


def _csr(
    vocab: Vocabulary, tokens: list[str], lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The doc-major CSR of names given as their terms one after the other (``lengths``
    per name), terms added to ``vocab``: unique (name, term) keys, as a parse batch does."""
    n = len(lengths)
    ids = vocab.add_many(tokens).astype(np.int64)
    width = max(len(vocab), 1)
    keys, counts = np.unique(np.repeat(np.arange(n), lengths) * width + ids, return_counts=True)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys // width, minlength=n), out=ptr[1:])
    return ptr, (keys % width).astype(np.int32), counts.astype(np.int32)


class NameRows:
    """A rebuild's name field, gathered from the batches' `NameTerms` in file order."""

    def __init__(self) -> None:
        self._terms: list[str] = []
        self._lengths = array("q")
        self._cjk_free = True
        self._missing = False  # a batch with files came without names

    def add(self, names: NameTerms | None, n_files: int) -> None:
        """The names of a batch's ``n_files`` files (None: not sent; the field is then
        built on first use, as after an open from the rows)."""
        if names is None or len(names.lengths) != n_files:
            self._missing = self._missing or n_files > 0
            return
        self._terms += names.terms
        self._lengths.extend(names.lengths)
        self._cjk_free = self._cjk_free and names.cjk_free

    def columns(self, n_files: int) -> NameColumns | None:
        """The field as the snapshot stores it, one row per file added; None when a batch
        sent none or the count is not ``n_files``."""
        if self._missing or len(self._lengths) != n_files:
            return None
        vocab = Vocabulary()
        lengths = np.frombuffer(self._lengths, dtype=np.int64) if n_files else np.zeros(0, np.int64)
        ptr, term_ids, tfs = _csr(vocab, self._terms, lengths)
        return NameColumns(ptr, term_ids, tfs, vocab.terms(), self._cjk_free)
