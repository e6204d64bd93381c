"""The known-item rule: a note whose whole name is the query ranks first (issue 28).

A person who types a note's name means that note. The name field (BM25F-style, added to the
note's best chunk) usually ranks it first, but not always: `java-reflect` with a long body
outscored `java-reflect-field` for the query `java-reflect-field`, and `csharp-comment`
outscored `java-comment`. So after the ranking is made (BM25 alone or any fusion), the notes
one of whose names (`names_of`: file name, `name`, `title`, aliases) has exactly the query's
terms move to the top, in the order the ranking gave them. "Exactly" is the tokenizer's
word: case and punctuation never count, and with `stemmer: none` neither does anything else
(`java-comments` is then not `java-comment`). A name shared by several notes is ambiguous:
all of them go first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from reme_core.index.name_field import NAMES
from reme_core.parse.note_names import names_of
from reme_core.text.tokenizer import has_cjk
from reme_core.vectors.fusion import Ranked, strictly_ordered

if TYPE_CHECKING:
    from reme_core.ports import SearchIndex

# Only the notes whose name part is at least this share of the best one are compared (a note
# whose name is the query holds every query term in its name, so it scores near the best),
# and at most MAX_COMPARED of them: the rule costs a few tokenizer calls per search.
NAME_SHARE = 0.5
MAX_COMPARED = 32


def exact_name_docs(
    ws: SearchIndex, query: str, wanted: list[str], names: Mapping[int, float]
) -> set[int]:
    """The docs (each a note's best chunk, the keys of `names`: the name field's parts) whose
    note has a name with exactly the query's terms (``wanted``: `tokenize(query)`)."""
    best = max(names.values(), default=0.0)
    if best <= 0:
        return set()
    tokenizer = ws.tokenizer
    if not wanted:
        return set()
    index, cjk = ws.index, has_cjk(query)
    strong = [d for d, part in names.items() if part >= NAME_SHARE * best]
    docs = sorted(strong, key=lambda d: (-names[d], d))[:MAX_COMPARED]
    at = index.chunks.slots(np.fromiter(docs, np.int64, len(docs)))
    if not cjk:  # only notes whose Latin name field holds every query term can match
        keep = index.name_field(tokenizer.tokenize_many, False, NAMES).holding(at, wanted)
        docs, at = [d for d, k in zip(docs, keep.tolist(), strict=True) if k], at[keep]
    known = index.memo("known-item").setdefault((tokenizer, cjk), {})
    terms = _name_terms(ws, known, at.tolist(), cjk)
    exact = tuple(wanted)
    return {doc for doc, slot in zip(docs, at.tolist(), strict=True) if exact in terms[slot]}


def _name_terms(
    ws: SearchIndex, known: dict[int, set[tuple[str, ...]]], slots: list[int], cjk: bool
) -> dict[int, set[tuple[str, ...]]]:
    """``known`` (file slot -> the terms of each of its names) with these slots added: kept
    with this version of the names, so a note is named again only after it changed. A
    Latin query is no CJK name: those are left out (no wait for jieba)."""
    index, tokenizer = ws.index, ws.tokenizer
    missing = [slot for slot in dict.fromkeys(slots) if slot not in known]
    kept: list[list[str]] = []
    for slot in missing:
        path = index.files.path(slot)
        names = names_of(path, index.nodes.frontmatter(path))
        kept.append([name for name in names if cjk or not has_cjk(name)])
    # Each name's words, all of them stemmed in one call: `tokenize(name)` of each name.
    split = [tokenizer.words(name) for names in kept for name in names]
    stems = tokenizer.stem([w for name_words in split for w in name_words])
    at = n = 0
    for slot, names in zip(missing, kept, strict=True):
        known[slot] = set()
        for name_words in split[n : n + len(names)]:
            known[slot].add(tuple(stems[at : at + len(name_words)]))
            at += len(name_words)
        n += len(names)
    return known


def names_first(ranked: Ranked, exact: set[int]) -> Ranked:
    """`ranked` with the `exact` docs first (in their order there), the others after them in
    theirs (`strictly_ordered`)."""
    if not exact:
        return ranked
    out = [item for item in ranked if item[0] in exact]
    if not out or len(out) == len(ranked) or out == ranked[: len(out)]:
        return ranked
    return strictly_ordered(out + [item for item in ranked if item[0] not in exact])
