"""Each note's names as a field of their own: what a person types to find a known note.

A note's file name, its frontmatter `name` and `title` and its aliases make one short
document per file, scored with BM25 like the chunks but in an index of their own. Search adds
a note's name score to its best chunk (BM25F-style, one field weight), so typing a note's name
ranks that note first while a query that matches no name scores exactly as before.

Built on first use per version of the in-memory index; each file's name terms are kept by
path (and frontmatter) so that after a commit only the changed files are tokenised again.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from reme_core.index.bm25 import BM25Index
from reme_core.models import aliases_of
from reme_core.text.vocabulary import Vocabulary

Tokenize = Callable[[str], list[str]]
_FIELDS = ("name", "title")
NAME_B = 0.2


def name_text(path: str, frontmatter: dict[str, Any]) -> str:
    """The names of a note, one per line: file name, `name`, `title`, aliases."""
    stem = posixpath.splitext(posixpath.basename(path))[0]
    names = [stem]
    names += [str(frontmatter[k]) for k in _FIELDS if isinstance(frontmatter.get(k), str)]
    names += [a for a in aliases_of(frontmatter) if isinstance(a, str) and a.strip()]
    return "\n".join(dict.fromkeys(n.strip() for n in names if n.strip()))


class NameField:
    """BM25 over the names of the live files, one document per file slot."""

    def __init__(self, slots: np.ndarray, bm25: BM25Index, vocab: Vocabulary) -> None:
        self._slots = slots  # name document -> file slot
        self._bm25 = bm25
        self.vocab = vocab

    @classmethod
    def build(
        cls,
        paths: Sequence[str],
        live: np.ndarray,
        frontmatter: Callable[[str], dict[str, Any]],
        tokenize: Tokenize,
        cache: dict[str, tuple[str, list[str]]],
    ) -> NameField:
        """The field of the live slots; ``cache`` (path -> (text, terms)) is reused and kept."""
        vocab = Vocabulary()
        slots = np.flatnonzero(live[: len(paths)]).astype(np.int64)
        tokens: list[str] = []
        lengths = np.zeros(len(slots), dtype=np.int64)
        for n, slot in enumerate(slots.tolist()):
            path = paths[slot]
            text = name_text(path, frontmatter(path))
            known = cache.get(path)
            if known is None or known[0] != text:
                known = cache[path] = (text, tokenize(text))
            tokens += known[1]
            lengths[n] = len(known[1])
        # Term counts of every name at once: unique (name, term) keys, as a parse batch does.
        ids = vocab.add_many(tokens).astype(np.int64)
        width = max(len(vocab), 1)
        keys, counts = np.unique(
            np.repeat(np.arange(len(slots)), lengths) * width + ids, return_counts=True
        )
        ptr = np.zeros(len(slots) + 1, dtype=np.int64)
        np.cumsum(np.bincount(keys // width, minlength=len(slots)), out=ptr[1:])
        term_ids = (keys % width).astype(np.int32)
        tfs = counts.astype(np.int32)
        # A low b: a name that holds every typed word and a little more (a version, a folder
        # prefix) must not lose to a shorter name that holds fewer of them.
        bm25 = BM25Index.from_arrays(ptr, term_ids, tfs, len(vocab), b=NAME_B)
        return cls(slots, bm25, vocab)

    def search(self, terms: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top `k` (file slots, name scores) for query terms (already analysed)."""
        ids = [i for i in (self.vocab.id_of(t) for t in terms) if i is not None]
        if not ids:
            return np.zeros(0, np.int64), np.zeros(0)
        docs, scores = self._bm25.search(ids, k)
        return self._slots[docs], scores
