"""A note's local graph as the graph view shows it: the note, its links and backlinks, their
links (depth 2), filtered by tag or folder, and a hub's hundreds of neighbours folded.

Built off the UI thread from the workspace's walk (`services.local_graph` hands in its
`TraverseResult` and a note's tags). Each
neighbour carries the direction of its link (→ the centre links to it, ← it links to the
centre, ↔ both). A ring holding more notes than `limit` keeps the most linked within the
walk (a link both ways, then the note's own links, before backlinks) and folds the rest into
one node per folder (`folder/ +K`, the largest folders) and a last `+K more`.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from reme_core import TraverseResult
from reme_tui.widgets.graph.layout import LayoutNode

ARROWS = {"out": "→ ", "in": "← ", "both": "↔ ", "": ""}
_RANK = {"both": 0, "out": 1, "in": 2}
_GROUPS = 5  # folders folded into nodes of their own before the rest is "+K more"


@dataclass(frozen=True, slots=True)
class GraphNode:
    """One node: a note (`path`), or a fold of `folded` notes (`path` "", `folder` theirs)."""

    key: str
    path: str
    label: str
    ring: int
    direction: str = ""  # "out", "in", "both" relative to its parent ("" for the centre)
    parent: str = ""
    weight: int = 0
    folder: str = ""
    folded: int = 0


@dataclass(slots=True)
class LocalGraph:
    """The nodes shown and the edges between them (parent → child keys, with direction)."""

    centre: str
    depth: int
    filter: str
    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[tuple[str, str, str]] = field(default_factory=list)

    def layout_nodes(self) -> list[LayoutNode]:
        """The nodes as the layout takes them (labels with their direction arrow)."""
        return [
            LayoutNode(
                n.key,
                ARROWS[n.direction] + n.label,
                n.ring,
                f"{n.folder}/{n.label.casefold()}",
                n.parent,
                n.weight,
            )
            for n in self.nodes
        ]

    def node(self, key: str) -> GraphNode | None:
        return next((n for n in self.nodes if n.key == key), None)


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def _labels(names: dict[str, str]) -> dict[str, str]:
    """Each note's label: its name, with its folder's name in front where two notes share
    a name (`attack/index`, `tools/index`)."""
    seen = Counter(name.casefold() for name in names.values())
    return {
        path: (
            f"{posixpath.basename(posixpath.dirname(path))}/{name}"
            if seen[name.casefold()] > 1 and posixpath.dirname(path)
            else name
        )
        for path, name in names.items()
    }


def _matches(tags_of: Callable[[str], list[str]], path: str, words: list[str]) -> bool:
    """Does a note pass the filter: every `tag:x` among its tags (or a sub-tag), every other
    word a folder (path prefix) of it."""
    tags: list[str] | None = None
    for word in words:
        if word.startswith("tag:") or word.startswith("#"):
            wanted = word.split(":", 1)[-1].lstrip("#").casefold()
            if tags is None:
                tags = [t.casefold() for t in tags_of(path)]
            if not any(t == wanted or t.startswith(wanted + "/") for t in tags):
                return False
        else:
            folder = word.removeprefix("path:").strip("/").casefold()
            if folder and not path.casefold().startswith(folder + "/"):
                return False
    return True


def build_graph(
    walk: TraverseResult, tags_of: Callable[[str], list[str]], filter: str, limit: int
) -> LocalGraph:
    """The graph of a walk (`Workspace.traverse(centre, depth, "both")`): at most `limit`
    notes on the first ring and twice that on the second; `tags_of(path)` for `tag:` filters."""
    centre, depth = walk.path, walk.depth
    words = filter.split()
    names = _labels({n.path: n.name or _stem(n.path) for n in walk.nodes})
    rings = {n.path: n.depth for n in walk.nodes if n.indexed or n.path == centre}
    if words:
        rings = {p: r for p, r in rings.items() if p == centre or _matches(tags_of, p, words)}
    links: set[tuple[str, str]] = {
        (e.source, e.target) for e in walk.edges if e.source in rings and e.target in rings
    }
    degree: Counter[str] = Counter()
    for a, b in links:
        degree[a] += 1
        degree[b] += 1
    graph = LocalGraph(centre, depth, filter)
    graph.nodes.append(GraphNode(centre, centre, names.get(centre, _stem(centre)), 0))
    parents = {centre: centre}
    for ring, cap in ((1, limit), (2, 2 * limit)):
        members: dict[str, str] = {}  # path -> parent
        for a, b in sorted(links):
            for near, far in ((a, b), (b, a)):
                if rings.get(far) == ring and near in parents and rings.get(near) == ring - 1:
                    members.setdefault(far, near)
        # The most linked within the walk first, then links both ways, the note's own, backlinks.
        ranked = sorted(
            members,
            key=lambda p: (-degree[p], _RANK[_direction(links, members[p], p)], p),
        )
        for path in ranked[:cap]:
            parent = members[path]
            direction = _direction(links, parent, path)
            graph.nodes.append(
                GraphNode(
                    path,
                    path,
                    names.get(path, _stem(path)),
                    ring,
                    direction,
                    parent,
                    degree[path],
                    posixpath.dirname(path),
                )
            )
            graph.edges.append((parent, path, direction))
            parents[path] = parent
        _fold(graph, ranked[cap:], members, ring)
    return graph


def _direction(links: set[tuple[str, str]], parent: str, path: str) -> str:
    out, back = (parent, path) in links, (path, parent) in links
    return "both" if out and back else "out" if out else "in"


def _fold(graph: LocalGraph, rest: list[str], members: dict[str, str], ring: int) -> None:
    """The notes past the cap: one node per large folder, then one "+K more"."""
    if not rest:
        return
    folders = Counter(posixpath.dirname(p) for p in rest)
    shown = folders.most_common(_GROUPS if len(folders) > _GROUPS else len(folders))
    if len(folders) > _GROUPS:
        shown = shown[: _GROUPS - 1]
    left = len(rest)
    for folder, count in shown:
        parent = next(members[p] for p in rest if posixpath.dirname(p) == folder)
        key = f"fold:{ring}:{folder}"
        graph.nodes.append(
            GraphNode(key, "", f"{folder or '/'}/ +{count}", ring, "", parent, count, folder, count)
        )
        graph.edges.append((parent, key, ""))
        left -= count
    if left:
        key = f"fold:{ring}:more"
        parent = graph.centre if ring == 1 else members[rest[-1]]
        graph.nodes.append(GraphNode(key, "", f"+{left} more", ring, "", parent, 0, "~", left))
        graph.edges.append((parent, key, ""))
