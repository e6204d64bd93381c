"""Questions about one indexed note: its links, its outlinks, a walk from it, its chunks.

Each takes the parts of the index it reads (the caller holds the index lock) and refuses a
path that is not an indexed file with `NotIndexed`, naming the path as the caller wrote it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from reme_core.errors import NotIndexed, RemeError
from reme_core.files.paths import normalize_relpath
from reme_core.models import FileChunk, FileLink
from reme_core.query.expansion import expand
from reme_core.query.graph_results import NoteLinks, TraverseResult, direction_of, walk

if TYPE_CHECKING:
    from reme_core.index.memory_index import MemoryIndex
    from reme_core.query.chunk_check import ChunkCheck
    from reme_core.store.database import Store

# Every neighbour of a note, as the links pane lists them.
_ALL = 1_000_000


def _not_indexed(path: str) -> NotIndexed:
    return NotIndexed(f"{path}: not an indexed file of this workspace")


def indexed_path(index: MemoryIndex, path: str) -> str:
    """The normalised path of an indexed file; `NotIndexed` for any other path."""
    rel = normalize_relpath(path)
    if rel not in index.nodes:
        raise _not_indexed(path)
    return rel


def note_links(index: MemoryIndex, path: str) -> NoteLinks:
    """Every outlink and inlink of a note, with names and dangling marks."""
    found = expand(index, indexed_path(index, path), _ALL)
    return NoteLinks(found["outlinks"], found["inlinks"])


def outlinks(index: MemoryIndex, path: str) -> list[FileLink]:
    """The links written in a note, in order, each with the path it resolves to."""
    return list(index.graph.outlinks(indexed_path(index, path)))


def traverse(index: MemoryIndex, path: str, depth: int, direction: str) -> TraverseResult:
    """The breadth-first walk from a note; a negative depth or unknown direction refused."""
    rel = normalize_relpath(path)
    if depth < 0:
        raise RemeError(f"depth must be 0 or more, got {depth}")
    way = direction_of(direction)
    if rel not in index.nodes:
        raise _not_indexed(path)
    return walk(index, rel, depth, way)


def note_chunks(index: MemoryIndex, store: Store, check: ChunkCheck, path: str) -> list[FileChunk]:
    """How a file was chunked, in order, each chunk's text as on disk (`ChunkCheck`)."""
    rel = normalize_relpath(path)
    file_id = index.files.id(rel)
    if file_id is None:
        raise _not_indexed(path)
    return [
        FileChunk(rel, start, end, body, prefix, suffix, cid)
        for _, cid, start, end, prefix, body, suffix in check.rows(rel, store.file_chunks(file_id))
    ]


def note_times(index: MemoryIndex, paths: Iterable[str] | None = None) -> dict[str, float]:
    """Each indexed note's modified time: every note's from the index's columns at once (50k
    in one pass, no node built), or those of `paths` that are indexed."""
    if paths is not None:
        nodes = index.nodes
        return {p: nodes[p].st_mtime for p in paths if p in nodes}
    live, mtimes, _ = index.stat_columns()
    slot_paths = index.files.paths
    return {slot_paths[i]: float(mtimes[i]) for i in live.nonzero()[0].tolist()}
