"""Which notes the quick switcher offers for what was typed, best first.

A person typing into the switcher usually knows the note: its file name, its frontmatter
`name` or `title`, or an alias. So the ranking is by kind of match, then by tie-breaks:

1. file name: the query is the note's file name without `.md` (case-insensitive);
2. exact: the query is its `name`, `title` or an alias (another language's note may carry
   the file name of this one as an alias: the file itself comes first);
3. prefix: a name starts with the query;
4. substring: the query is inside a name or the note's path;
5. typo: a name holds the query with two neighbouring characters swapped, or with at most
   1 insertion, deletion or change (2 from 6 characters up; none below 3);
6. letters in order: the query's characters appear in a name in order ("rrfus");
7. description: the query is inside the note's frontmatter description.

Within a kind, notes in the open note's top-level folder come first (in a multilingual vault,
its language), then recently opened notes, then the shorter name, then the path.

Fast enough for 50k notes per keystroke: 1-4 and 6 are regular expressions over all the
names joined into one text (C speed, no index); 4 checks by edit distance only the names
sharing enough character bigrams with the query (the q-gram bound), through an inverted
bigram index built on the first typo search.
"""

from __future__ import annotations

import heapq
import posixpath
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from itertools import islice, pairwise

import numpy as np

SCAN_CAP = 5000  # matches of one kind looked at, at most
TYPO_CHECKS = 200  # names checked by edit distance at most, those sharing most bigrams first


class Kind(IntEnum):
    """Kinds of match, best first."""

    FILE_NAME = 0
    EXACT = 1
    PREFIX = 2
    SUBSTRING = 3
    TYPO = 4
    IN_ORDER = 5
    DESCRIPTION = 6


@dataclass(frozen=True, slots=True)
class NoteEntry:
    """What the switcher matches against for one note."""

    path: str
    name: str = ""
    description: str = ""
    aliases: tuple[str, ...] = ()
    title: str = ""

    @property
    def label(self) -> str:
        return f"{self.name}  ·  {self.path}" if self.name else self.path

    @property
    def stem(self) -> str:
        """The file name without its extension."""
        return posixpath.splitext(posixpath.basename(self.path))[0]

    def names(self) -> list[str]:
        """File name without extension, then `name`, `title` and aliases, without repeats."""
        found = (n.strip() for n in (self.stem, self.name, self.title, *self.aliases))
        return list(dict.fromkeys(n for n in found if n))


def top_folder(path: str | None) -> str:
    """The first folder of a note's path ("" for a note at the root, or none)."""
    head, sep, _ = (path or "").partition("/")
    return head if sep else ""


@dataclass(frozen=True, slots=True)
class Ranked:
    """One offered note: the entry, the kind of match and the name it matched."""

    entry: NoteEntry
    kind: Kind
    matched: str


def max_edits(query: str) -> int:
    """Edits a typo match may need: none below 3 characters, 1 up to 5, then 2."""
    return 0 if len(query) < 3 else 1 if len(query) <= 5 else 2


def typo_distance(query: str, text: str, limit: int) -> int:
    """Fewest insertions, deletions and changes turning ``query`` into some substring of
    ``text``, capped at ``limit + 1``: Myers' bit-parallel search (one column per character
    of ``text`` in a few integer operations, the query's rows as the bits of one integer)."""
    m = len(query)
    full = (1 << m) - 1
    last = 1 << (m - 1)
    peq: dict[str, int] = {}
    for i, ch in enumerate(query):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    pv, mv, score, best = full, 0, m, m
    for ch in text:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & full
        mh = pv & xh
        if ph & last:
            score += 1
        elif mh & last:
            score -= 1
            if score < best:
                best = score
                if not best:
                    break
        ph = (ph << 1) & full  # a match may start anywhere: row 0 costs nothing
        mh = (mh << 1) & full
        pv = (mh | ~(xv | ph)) & full
        mv = ph & xv
    return min(best, limit + 1)


def swaps(query: str) -> list[str]:
    """The query with each pair of neighbouring characters swapped (the commonest typo)."""
    return list(
        dict.fromkeys(
            query[:i] + query[i + 1] + query[i] + query[i + 2 :]
            for i in range(len(query) - 1)
            if query[i] != query[i + 1]
        )
    )


class Lines:
    """Strings joined into one text, searched by one regular expression at C speed."""

    def __init__(self, lines: list[str]) -> None:
        self.text = "\n".join(lines)
        lengths = np.fromiter((len(line) + 1 for line in lines), dtype=np.int64, count=len(lines))
        self._starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if lines else lengths

    def matching(self, pattern: str) -> list[int]:
        """Indexes of the lines where ``pattern`` matches (each once, in order), at most
        SCAN_CAP of them: past that, a one-letter query has no useful order anyway."""
        found = re.compile(pattern, re.MULTILINE).finditer(self.text)
        return self._lines(m.start() for m in islice(found, SCAN_CAP))

    def containing(self, literal: str) -> list[int]:
        """Indexes of the lines holding ``literal``, like ``matching`` but by ``str.find``
        (several times faster than a regular expression on a literal)."""
        text, where = self.text, list[int]()
        pos = text.find(literal)
        while pos >= 0 and len(where) < SCAN_CAP:
            where.append(pos)
            pos = text.find(literal, pos + 1)
        return self._lines(where)

    def _lines(self, positions: Iterable[int]) -> list[int]:
        where = np.fromiter(positions, dtype=np.int64)
        lines = np.searchsorted(self._starts, where, side="right") - 1
        return list(dict.fromkeys(lines.tolist()))


class NoteRanker:
    """The switcher's ranking over a fixed list of notes (build once per opening or index)."""

    def __init__(self, entries: Sequence[NoteEntry]) -> None:
        self.entries = entries
        self._keys: list[str] = []  # lower-cased names of all notes, one per line of _names
        self._owner: list[int] = []  # name -> entry
        exact: dict[str, list[int]] = {}
        stems: dict[str, list[int]] = {}
        for n, entry in enumerate(entries):
            stems.setdefault(_key(entry.stem), []).append(n)
            for name in entry.names():
                key = _key(name)
                self._keys.append(key)
                self._owner.append(n)
                exact.setdefault(key, []).append(n)
        # Tuples of ints, which the cyclic collector stops tracking: at 50k notes the lists
        # were ~150k of the objects each of its full passes walked while the ranker lived.
        self._exact = {key: tuple(ns) for key, ns in exact.items()}
        self._stems = {key: tuple(ns) for key, ns in stems.items()}
        self._names = Lines(self._keys)
        self._paths = Lines([e.path.casefold().replace("\n", " ") for e in entries])
        self._described = [
            (n, e.description.casefold()) for n, e in enumerate(entries) if e.description
        ]
        self._bigrams: dict[str, np.ndarray] | None = None
        self._bigrams_lock = threading.Lock()

    def rank(
        self, query: str, limit: int, recent: Sequence[str] = (), near: str = ""
    ) -> list[Ranked]:
        """Up to ``limit`` notes for ``query``, best first; on an empty query the recent
        notes (that still exist), then the rest by path. ``near``: the open note's top-level
        folder, whose notes come first within each kind of match."""
        q = _key(query)
        first = {p: n for n, p in enumerate(reversed(recent))}  # later in recent = older
        if not q:
            return self._browse(limit, first)
        found: dict[int, tuple[Kind, int, str]] = {}
        keys, owner = self._keys, self._owner

        def add(kind: Kind, hits: Iterable[tuple[int, int, str]]) -> None:
            for n, cost, name in hits:
                if n not in found:
                    found[n] = (kind, cost, name)

        add(Kind.FILE_NAME, ((n, 0, q) for n in self._stems.get(q, ())))
        add(Kind.EXACT, ((n, 0, q) for n in self._exact.get(q, ())))
        inside = self._names.containing(q)
        add(Kind.PREFIX, ((owner[i], 0, keys[i]) for i in inside if keys[i].startswith(q)))
        add(Kind.SUBSTRING, ((owner[i], 0, keys[i]) for i in inside))
        add(Kind.SUBSTRING, ((n, 1, self.entries[n].path) for n in self._paths.containing(q)))
        if len(found) < limit and max_edits(q):
            for swapped in swaps(q):
                add(Kind.TYPO, ((owner[i], 1, keys[i]) for i in self._names.containing(swapped)))
            add(Kind.TYPO, self._typos(q))
        if len(found) < limit and len(q) >= 2:
            # Each character at its first place after the previous one: possessive, so a line
            # that fails costs one scan, not a backtracking search.
            steps = [re.escape(c) + f"[^{re.escape(n)}\\n]*+" for c, n in pairwise(q)]
            pattern = "".join(steps) + re.escape(q[-1])
            add(Kind.IN_ORDER, ((owner[i], 0, keys[i]) for i in self._names.matching(pattern)))
        if len(found) < limit:
            add(Kind.DESCRIPTION, self._descriptions(q))
        return self._ordered(found, limit, first, near + "/" if near else "")

    def _descriptions(self, q: str) -> Iterable[tuple[int, int, str]]:
        return ((n, 0, text) for n, text in self._described if q in text)

    def _ordered(
        self,
        found: dict[int, tuple[Kind, int, str]],
        limit: int,
        recent: dict[str, int],
        near: str,
    ) -> list[Ranked]:
        entries = self.entries

        def order(n: int) -> tuple[int, bool, int, int, int, str]:
            kind, cost, name = found[n]
            path = entries[n].path
            away = bool(near) and not path.startswith(near)
            return (kind, away, cost, -recent.get(path, -1), len(name), path)

        best = heapq.nsmallest(limit, found, key=order)
        return [Ranked(entries[n], found[n][0], found[n][2]) for n in best]

    def _browse(self, limit: int, recent: dict[str, int]) -> list[Ranked]:
        by_path = {e.path: e for e in self.entries}
        latest = sorted(recent, key=recent.__getitem__, reverse=True)
        shown = [by_path[p] for p in latest if p in by_path][:limit]
        seen = {e.path for e in shown}
        shown += [e for e in self.entries[: limit + len(seen)] if e.path not in seen]
        return [Ranked(e, Kind.EXACT, "") for e in shown[:limit]]

    def _typos(self, q: str) -> Iterable[tuple[int, int, str]]:
        """Names within ``max_edits(q)`` of the query, checked only where the bigrams allow."""
        edits = max_edits(q)
        if not edits:
            return []
        grams = {q[i : i + 2] for i in range(len(q) - 1)}
        # An insertion, deletion or change breaks at most two of the query's bigrams (a swap
        # breaks three, so a swap in a short query may be missed).
        need = max(1, len(q) - 1 - 2 * edits)
        index = self._bigram_index()
        lists = [index[g] for g in grams if g in index]
        if not lists:
            return []
        counts = np.bincount(np.concatenate(lists), minlength=len(self._keys))
        candidates = np.flatnonzero(counts >= need)
        if len(candidates) > TYPO_CHECKS:  # a short query: check the names sharing the most
            top = np.argsort(-counts[candidates], kind="stable")[:TYPO_CHECKS]
            candidates = candidates[top]
        keys, owner = self._keys, self._owner
        hits = [(typo_distance(q, keys[i], edits), owner[i], keys[i]) for i in candidates.tolist()]
        return [(n, d, k) for d, n, k in sorted(hits) if d <= edits]

    def prepare_typos(self) -> None:
        """Build the bigram index typo search needs now (else on the first typo search)."""
        self._bigram_index()

    def _bigram_index(self) -> dict[str, np.ndarray]:
        """Bigram -> the names holding it, built once (threads may ask at the same time)."""
        with self._bigrams_lock:
            if self._bigrams is None:
                postings: dict[str, list[int]] = {}
                for i, key in enumerate(self._keys):
                    for gram in {key[j : j + 2] for j in range(len(key) - 1)}:
                        postings.setdefault(gram, []).append(i)
                self._bigrams = {g: np.asarray(v, dtype=np.int32) for g, v in postings.items()}
            return self._bigrams


def _key(name: str) -> str:
    """A name as matched: case-folded, on one line, single spaces."""
    return " ".join(name.casefold().split())
