"""The in-memory link graph: outlinks, inlinks, dangling targets and traversal.

Edges are kept twice (by source and by target) so that every lookup costs the degree of the
node, not the size of the graph: search expands the links of every hit it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .models import FileLink

DIRECTIONS = ("both", "forward", "backward")


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
        self._files.discard(path)

    def outlinks(self, path: str) -> list[FileLink]:
        """Links written in `path`, in source order."""
        return list(self._out.get(path, ()))

    def inlinks(self, path: str) -> list[FileLink]:
        """Links pointing at `path`, sorted by source path, then line."""
        by_source = self._in.get(path)
        if not by_source:
            return []
        result: list[FileLink] = []
        for source in sorted(by_source):
            result.extend(sorted(by_source[source], key=lambda link: link.line))
        return result

    def is_dangling(self, target: str) -> bool:
        """True when `target` is neither an indexed file nor present on disk."""
        if target in self._files:
            return False
        return not (self._exists is not None and self._exists(target))

    def dangling(self) -> list[FileLink]:
        """Every link whose target is dangling, sorted by target, source path, then line."""
        result: list[FileLink] = []
        for target in sorted(self._in):
            if self.is_dangling(target):
                result.extend(self.inlinks(target))
        return result

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
                    steps.extend((link, link.target_path) for link in self._out.get(node, ()))
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
