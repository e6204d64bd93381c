"""What the link-graph questions answer: a note's links, and a breadth-first walk (SPEC §9).

Dataclasses, so a program reads fields and `dataclasses.asdict` gives the JSON the CLI and
the MCP server print.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from reme_core.errors import RemeError
from reme_core.query.results import Neighbour

if TYPE_CHECKING:
    from reme_core.index.memory_index import MemoryIndex

Direction = Literal["both", "forward", "backward"]
DIRECTIONS: tuple[Direction, ...] = ("both", "forward", "backward")


def direction_of(value: str) -> Direction:
    """A walk's direction from its name; RemeError for any other word."""
    for direction in DIRECTIONS:
        if value == direction:
            return direction
    raise RemeError(f"direction must be both, forward or backward, got {value!r}")


@dataclass(slots=True)
class NoteLinks:
    """Every outlink and inlink of a note, with names and dangling marks."""

    outlinks: list[Neighbour] = field(default_factory=list)
    inlinks: list[Neighbour] = field(default_factory=list)


@dataclass(slots=True)
class TraverseNode:
    """A note reached by a walk, at its distance from the start."""

    path: str
    name: str
    description: str
    depth: int
    indexed: bool


@dataclass(slots=True)
class TraverseEdge:
    """A link a walk followed: `source` links to `target` (at `anchor`)."""

    source: str
    target: str
    anchor: str
    depth: int


@dataclass(slots=True)
class TraverseResult:
    """Nodes and edges reached breadth-first from `path`."""

    path: str
    depth: int
    direction: Direction
    nodes: list[TraverseNode]
    edges: list[TraverseEdge]


def walk(index: MemoryIndex, path: str, depth: int, direction: Direction) -> TraverseResult:
    """The breadth-first walk from an indexed `path`, with the names and descriptions of the
    notes it reaches (the caller holds the index lock)."""
    nodes = index.nodes
    reached, followed = index.graph.traverse(path, depth, direction)
    return TraverseResult(
        path,
        depth,
        direction,
        [
            TraverseNode(
                n.path,
                nodes[n.path].name if n.indexed else "",
                nodes[n.path].description if n.indexed else "",
                n.depth,
                n.indexed,
            )
            for n in reached
        ],
        [TraverseEdge(e.source, e.target, e.anchor, e.depth) for e in followed],
    )
