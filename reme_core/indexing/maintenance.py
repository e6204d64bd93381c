"""Optimize and stats: compaction of tombstones and vocabulary, and the numbers users ask for."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from reme_core.indexing.live_index import LiveIndex


@dataclass(slots=True)
class OptimizeReport:
    """Before/after figures of one optimize run."""

    docs_before: int
    docs_after: int
    tombstones_before: int
    tombstones_after: int
    vocabulary_before: int
    vocabulary_after: int
    db_bytes_before: int
    db_bytes_after: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def run_optimize(live: LiveIndex) -> OptimizeReport:
    """Drop unused terms from the stored vocabulary, vacuum, and reload clean structures.

    The database never holds tombstones (deleted rows are gone at commit); the in-memory
    index does, and reloading from the store compacts it.
    """
    started = time.perf_counter()
    with live.lock:
        live.refresh_if_changed()
        bm25 = live.memory.bm25
        docs_before, tomb_before = bm25.n_total, bm25.n_tombstones
        vocab_before = len(live.memory.vocab)
        bytes_before = live.store.size_bytes()
        with live.store.transaction():
            # Read inside the write transaction: another process cannot add terms meanwhile.
            terms = live.store.load_vocab()
            used = np.zeros(len(terms), dtype=bool)
            used[live.store.load_chunk_arrays().term_ids] = True
            if not used.all():
                old_to_new = np.full(len(terms), -1, dtype=np.int64)
                old_to_new[used] = np.arange(int(used.sum()))
                kept = [t for t, u in zip(terms, used.tolist()) if u]
                live.store.rewrite_term_ids(old_to_new, kept)
                live.store.bump_generation()
        live.store.vacuum()
        live.load()
        bm25 = live.memory.bm25
        return OptimizeReport(
            docs_before,
            bm25.n_total,
            tomb_before,
            bm25.n_tombstones,
            vocab_before,
            len(live.memory.vocab),
            bytes_before,
            live.store.size_bytes(),
            time.perf_counter() - started,
        )


@dataclass(slots=True)
class IndexStats:
    """The counts `reme-tui stats` prints and the browser's header shows."""

    workspace: str
    mode: str
    mode_reason: str  # `ModeReason`'s value: why the workspace has its mode
    link_resolution: str
    files: int
    chunks: int
    live_documents: int
    tombstones: int
    vocabulary: int
    links: int
    dangling_links: int
    skipped: int
    db_bytes: int
    generation: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class IndexCounts:
    """The counts a header shows: read off the index, nothing counted (unlike `IndexStats`,
    whose dangling links and skipped files walk the graph and the database)."""

    files: int
    chunks: int  # the live documents
    tombstones: int


def index_counts(live: LiveIndex) -> IndexCounts:
    """Files, live chunks and tombstones as the index holds them."""
    index = live.memory
    return IndexCounts(len(index.nodes), index.bm25.n_docs, index.bm25.n_tombstones)


def index_stats(live: LiveIndex, mode_reason: str) -> IndexStats:
    """Files, chunks, live/tombstoned documents, vocabulary, links, database size."""
    index = live.memory
    graph = index.graph
    return IndexStats(
        workspace=str(live.place.root),
        mode=live.place.mode,
        mode_reason=mode_reason,
        link_resolution=live.place.link_resolution,
        files=len(index.nodes),
        chunks=index.bm25.n_docs,
        live_documents=index.bm25.n_docs,
        tombstones=index.bm25.n_tombstones,
        vocabulary=len(index.vocab),
        links=graph.n_edges,
        dangling_links=graph.dangling_count(),
        skipped=len(live.store.skipped()),
        db_bytes=live.store.size_bytes(),
        generation=live.store.generation(),
    )
