"""Link expansion: the notes each hit links to and is linked from, with their names and
the anchors the links name, gathered from the graph's columns in one pass per search."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from reme_core.query.results import Neighbour

if TYPE_CHECKING:
    from reme_core.index.memory_index import MemoryIndex


def neighbours(index: MemoryIndex, adjacent: Sequence[tuple[str, list[str]]]) -> list[Neighbour]:
    """Name, description and state of linked paths (with the anchors their links name)."""
    labels = index.nodes.labels([path for path, _ in adjacent])
    out = []
    for (path, anchors), label in zip(adjacent, labels, strict=True):
        if label is not None:
            out.append(Neighbour(path, label[0], label[1], anchors))
        else:
            out.append(Neighbour(path, "", "", anchors, index.graph.is_dangling(path), False))
    return out


def expand_many(
    index: MemoryIndex, paths: Sequence[str], cap: int
) -> dict[str, dict[str, list[Neighbour]]]:
    """Outlinks and inlinks of each file, at most `cap` distinct neighbours each way.

    The neighbours of all the files come from the graph's columns at once, are labelled in
    one pass, and a `Neighbour` is made only for what is returned.
    """
    unique = list(dict.fromkeys(paths))
    adjacent = index.graph.adjacent(unique, cap)
    flat = neighbours(index, [n for outs, ins in adjacent for n in (*outs, *ins)])
    result: dict[str, dict[str, list[Neighbour]]] = {}
    at = 0
    for path, (outs, ins) in zip(unique, adjacent, strict=True):
        mid, end = at + len(outs), at + len(outs) + len(ins)
        result[path] = {"outlinks": flat[at:mid], "inlinks": flat[mid:end]}
        at = end
    return result


def expand(index: MemoryIndex, path: str, cap: int) -> dict[str, list[Neighbour]]:
    """Outlinks and inlinks of a file, at most `cap` distinct neighbours each way."""
    return expand_many(index, [path], cap)[path]
