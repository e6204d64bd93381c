"""The in-memory link graph: outlinks, inlinks, dangling targets and traversal.

Edges are kept twice (by source and by target) so that every lookup costs the degree of the
node, not the size of the graph: search expands the links of every hit it returns.

The edges loaded at open stay as columns (`LinkColumns`, sorted twice by index arrays) and
become `FileLink` objects only when asked for: building 200k of them was a third of opening
a 50k-file workspace. Files whose links change later move to the dict-based overlay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import islice

import numpy as np

from reme_core.index.link_columns import Grouped, LinkColumns, LinkColumnsBuilder, link_columns
from reme_core.models import FileLink
from reme_core.text.joined_strings import JoinedStrings, take

# Paths a graph over a snapshot's joined strings finds by a byte search before it builds its
# string -> id dict (a cold search looks up its ten hits; a browser session, thousands).
_SEARCHES_BEFORE_DICT = 64

__all__ = [
    "DIRECTIONS",
    "Adjacent",
    "Grouped",
    "LinkColumns",
    "LinkColumnsBuilder",
    "LinkGraph",
    "TraverseEdge",
    "TraverseNode",
    "link_columns",
]

DIRECTIONS = ("both", "forward", "backward")
Adjacent = list[tuple[str, list[str]]]  # (neighbour path, anchors its links name)


@dataclass(frozen=True, slots=True)
class TraverseNode:
    """A node reached by `traverse`; `indexed` is False for attachments and missing files."""

    path: str
    depth: int
    indexed: bool


@dataclass(frozen=True, slots=True)
class TraverseEdge:
    """An edge met by `traverse`; `depth` is the BFS level at which it was followed."""

    source: str
    target: str
    anchor: str
    depth: int


class LinkGraph:
    """Wikilink graph over indexed files; targets need not exist (then they are dangling).

    `exists(path)` says whether a non-indexed target is on disk (an image, a PDF): such a
    target is an attachment, not a dangling link.
    """

    def __init__(self, exists: Callable[[str], bool] | None = None) -> None:
        self._exists = exists
        self._files: set[str] = set()
        self._out: dict[str, list[FileLink]] = {}
        # target -> source -> that source's links to it, so replacing one file's links only
        # touches the targets it links to.
        self._in: dict[str, dict[str, list[FileLink]]] = {}
        self._n_edges = 0
        # Edges loaded at open, as columns; a source in `_void` has been replaced (or removed).
        self._base: LinkColumns | None = None
        self._sid: dict[str, int] | None = {}  # string -> id; None: not made yet (`_sid_of`)
        self._sid_searches = 0
        self._by_source: Grouped | None = None
        self._by_target: Grouped | None = None
        self._base_counts = np.zeros(0, dtype=np.int64)
        self._void: set[str] = set()
        self._void_ids = np.zeros(0, dtype=bool)  # by string id: `_void` as a mask

    def load(self, files: Iterable[str], links: LinkColumns) -> None:
        """Start from these files and their (resolved) links, kept as columns."""
        links = links.select(links.target != 0)  # "" is string 0: same-note anchors
        n = len(links.strings)
        self._files = set(files)
        self._base = links
        # A snapshot's strings stay joined: the first look-ups search them (`_sid_of`).
        self._sid = None if isinstance(links.strings, JoinedStrings) else _ids(links.strings)
        self._sid_searches = 0
        self._by_source = Grouped(links.source, n)
        self._by_target = Grouped(links.target, n)
        self._base_counts = np.bincount(links.source, minlength=n)
        self._n_edges = len(links)
        self._void = set()
        self._void_ids = np.zeros(n, dtype=bool)

    def _sid_of(self, path: str) -> int | None:
        """The loaded string id of ``path``: by a byte search for a cold search's few paths,
        from a dict once the graph is used more (`_SEARCHES_BEFORE_DICT`)."""
        if self._sid is None and self._base is not None:
            strings = self._base.strings
            self._sid_searches += 1
            if isinstance(strings, JoinedStrings) and self._sid_searches <= _SEARCHES_BEFORE_DICT:
                return strings.index_of(path)
            self._sid = _ids(strings)
        return self._sid.get(path) if self._sid is not None else None

    def _base_out(self, source: str) -> list[FileLink]:
        sid = self._sid_of(source)
        if sid is None or source in self._void or self._by_source is None:
            return []
        assert self._base is not None
        return [self._base.link(i) for i in self._by_source.rows(sid)]

    @property
    def n_files(self) -> int:
        return len(self._files)

    @property
    def n_edges(self) -> int:
        return self._n_edges

    def has_file(self, path: str) -> bool:
        return path in self._files

    def files(self) -> list[str]:
        """Indexed files, sorted."""
        return sorted(self._files)

    def set_links(self, source: str, links: Sequence[FileLink]) -> None:
        """Make `source` a node whose outgoing edges are exactly `links` (in source order).

        Links with an empty target (same-note anchors like `[[#Heading]]`) are not edges.
        """
        for link in links:
            if link.source_path != source:
                raise ValueError(
                    f"link from {link.source_path!r} given to set_links for {source!r}"
                )
        self._drop_outgoing(source)
        self._void_base(source)
        self._files.add(source)
        kept = [link for link in links if link.target_path]
        if not kept:
            return
        self._out[source] = kept
        for link in kept:
            self._in.setdefault(link.target_path, {}).setdefault(source, []).append(link)
        self._n_edges += len(kept)

    def remove_file(self, path: str) -> None:
        """Drop a file and its outgoing edges; links pointing at it become dangling."""
        self._drop_outgoing(path)
        self._void_base(path)
        self._files.discard(path)

    def _void_base(self, source: str) -> None:
        """Stop using the loaded edges of `source` (its links now live in the overlay)."""
        sid = self._sid_of(source)
        if sid is not None and source not in self._void:
            self._void.add(source)
            self._void_ids[sid] = True
            self._n_edges -= int(self._base_counts[sid])

    def outlinks(self, path: str) -> list[FileLink]:
        """Links written in `path`, in source order."""
        if path in self._out:
            return list(self._out[path])
        return self._base_out(path)

    def inlinks(self, path: str) -> list[FileLink]:
        """Links pointing at `path`, sorted by source path, then line."""
        result = [link for links in self._in.get(path, {}).values() for link in links]
        sid = self._sid_of(path)
        if sid is not None and self._by_target is not None:
            assert self._base is not None
            strings, source = self._base.strings, self._base.source
            for i in self._by_target.rows(sid):
                if strings[source[i]] not in self._void:
                    result.append(self._base.link(i))
        # Stable: each source's links keep their source order among equal lines.
        result.sort(key=lambda link: (link.source_path, link.line))
        return result

    def adjacent(self, paths: Sequence[str], cap: int) -> list[tuple[Adjacent, Adjacent]]:
        """Each path's first `cap` distinct outlink targets and inlink sources, with the
        anchors their links name, in the order `outlinks` and `inlinks` give them.

        The loaded edges of all the paths come from the columns in one gather each way, with
        no `FileLink` per edge: search expands every hit it returns.
        """
        outs: list[dict[str, list[str]]] = [{} for _ in paths]
        ins: list[dict[str, list[tuple[int, str]]]] = [{} for _ in paths]
        self._adjacent_base(paths, cap, outs, ins)
        for k, path in enumerate(paths):
            for link in self._out.get(path, ()):
                _add_anchor(outs[k], link.target_path, link.target_anchor)
            for source, links in self._in.get(path, {}).items():
                ins[k].setdefault(source, []).extend((x.line, x.target_anchor) for x in links)
        result: list[tuple[Adjacent, Adjacent]] = []
        for by_target, by_source in zip(outs, ins, strict=True):
            sources: Adjacent = []
            for source in sorted(by_source)[:cap]:
                lines = by_source[source]
                anchors: list[str] = []
                # by line; a source's links keep their order among equal lines (stable sort)
                for _, anchor in sorted(lines, key=_first) if len(lines) > 1 else lines:
                    if anchor and anchor not in anchors:
                        anchors.append(anchor)
                sources.append((source, anchors))
            result.append((list(islice(by_target.items(), cap)), sources))
        return result

    def _adjacent_base(
        self,
        paths: Sequence[str],
        cap: int,
        outs: list[dict[str, list[str]]],
        ins: list[dict[str, list[tuple[int, str]]]],
    ) -> None:
        """`adjacent`'s loaded edges: sources replaced or removed since the load are left out.

        The edges' strings are taken from the table in one call per column (`take`: a call
        per string was most of expansion's time on notes with 4-20 links), and a file's
        targets past the first `cap` distinct ones are skipped (the overlay's come after
        them, so `adjacent` cuts them anyway)."""
        base, by_source, by_target = self._base, self._by_source, self._by_target
        if base is None or by_source is None or by_target is None:
            return
        sids = map(self._sid_of, paths)
        keys = np.fromiter((-1 if s is None else s for s in sids), np.int64, len(paths))
        known = np.flatnonzero(keys >= 0)
        if not len(known):
            return
        keys = keys[known]
        void = self._void_ids
        kept = ~void[keys]
        rows, owner = by_source.gather(keys[kept])
        for k, target, anchor in zip(
            known[kept][owner].tolist(),
            take(base.strings, base.target[rows]),
            take(base.strings, base.anchor[rows]),
            strict=True,
        ):
            grouped = outs[k]
            anchors = grouped.get(target)
            if anchors is None:
                if len(grouped) >= cap:
                    continue
                anchors = grouped[target] = []
            if anchor and anchor not in anchors:
                anchors.append(anchor)
        rows, owner = by_target.gather(keys)
        sources = base.source[rows]
        live = ~void[sources]
        rows = rows[live]
        for k, source, line, anchor in zip(
            known[owner[live]].tolist(),
            take(base.strings, sources[live]),
            base.line[rows].tolist(),
            take(base.strings, base.anchor[rows]),
            strict=True,
        ):
            ins[k].setdefault(source, []).append((line, anchor))

    def is_dangling(self, target: str) -> bool:
        """True when `target` is neither an indexed file nor present on disk.

        A target no file system can hold (a name over 255 bytes, an undecodable one) is
        dangling: the check's error must not fail the search or `stats` that asked.
        """
        if target in self._files:
            return False
        if self._exists is None:
            return True
        try:
            return not self._exists(target)
        except (OSError, ValueError):
            return True

    def dangling(self) -> list[FileLink]:
        """Every link whose target is dangling, sorted by target, source path, then line."""
        targets = set(self._in)
        if self._base is not None:
            live = np.ones(len(self._base), dtype=bool)
            void = np.flatnonzero(self._void_ids)
            if len(void):
                live &= ~np.isin(self._base.source, void)
            targets.update(self._base.strings[t] for t in np.unique(self._base.target[live]))
        result: list[FileLink] = []
        for target in sorted(targets):
            if self.is_dangling(target):
                result.extend(self.inlinks(target))
        return result

    def dangling_count(self) -> int:
        """``len(dangling())`` without building a link object (summaries and stats at 50k)."""
        counts = {t: sum(map(len, by_source.values())) for t, by_source in self._in.items()}
        if self._base is not None:
            live = np.ones(len(self._base), dtype=bool)
            void = np.flatnonzero(self._void_ids)
            if len(void):
                live &= ~np.isin(self._base.source, void)
            targets, n = np.unique(self._base.target[live], return_counts=True)
            strings = self._base.strings
            for t, c in zip(targets.tolist(), n.tolist(), strict=True):
                counts[strings[t]] = counts.get(strings[t], 0) + c
        return sum(c for t, c in counts.items() if t not in self._files and self.is_dangling(t))

    def traverse(
        self, path: str, depth: int = 1, direction: str = "both"
    ) -> tuple[list[TraverseNode], list[TraverseEdge]]:
        """Breadth-first walk from `path` up to `depth` hops.

        Each node is listed once at its smallest depth (the start at 0); each
        (source, target, anchor) edge once, at the level it was first followed, in BFS order.
        """
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
        if depth < 0:
            raise ValueError(f"depth must be 0 or more, not {depth}")
        forward = direction in ("both", "forward")
        backward = direction in ("both", "backward")

        nodes = [TraverseNode(path, 0, path in self._files)]
        seen = {path}
        edges: list[TraverseEdge] = []
        seen_edges: set[tuple[str, str, str]] = set()
        frontier = [path]
        for level in range(1, depth + 1):
            next_frontier: list[str] = []
            for node in frontier:
                steps: list[tuple[FileLink, str]] = []
                if forward:
                    steps.extend((link, link.target_path) for link in self.outlinks(node))
                if backward:
                    steps.extend((link, link.source_path) for link in self.inlinks(node))
                for link, neighbour in steps:
                    key = (link.source_path, link.target_path, link.target_anchor)
                    if key not in seen_edges:
                        seen_edges.add(key)
                        edges.append(TraverseEdge(*key, level))
                    if neighbour not in seen:
                        seen.add(neighbour)
                        nodes.append(TraverseNode(neighbour, level, neighbour in self._files))
                        next_frontier.append(neighbour)
            if not next_frontier:
                break
            frontier = next_frontier
        return nodes, edges

    def _drop_outgoing(self, source: str) -> None:
        links = self._out.pop(source, None)
        if not links:
            return
        for target in {link.target_path for link in links}:
            by_source = self._in.get(target)
            if by_source is None:
                continue
            by_source.pop(source, None)
            if not by_source:
                del self._in[target]
        self._n_edges -= len(links)


def _add_anchor(grouped: dict[str, list[str]], key: str, anchor: str) -> None:
    anchors = grouped.get(key)
    if anchors is None:
        anchors = grouped[key] = []
    if anchor and anchor not in anchors:
        anchors.append(anchor)


def _first(item: tuple[int, str]) -> int:
    return item[0]


def _ids(strings: Sequence[str]) -> dict[str, int]:
    """String -> id of a string table (a repeated string keeps its first id)."""
    values = strings.to_list() if isinstance(strings, JoinedStrings) else strings
    return dict(zip(reversed(values), range(len(values) - 1, -1, -1)))
