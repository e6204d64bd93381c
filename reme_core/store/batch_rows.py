"""A parsed batch written to the store: file rows upserted, chunks and links inserted, all
with one `executemany` per table (the store's hottest write path: every batch of a rebuild).
Rows are zipped from the batch's columns (`ParsedColumns`), with no Python step per row."""

from __future__ import annotations

import itertools
import sqlite3

import numpy as np

from reme_core.store.rows import BatchWrite, select_in


def write_batch(conn: sqlite3.Connection, batch: BatchWrite) -> tuple[list[int], np.ndarray]:
    """Upsert a batch of files; returns their file ids and their new chunks' rowids.

    Every statement is one ``executemany`` for the batch. New file ids and chunk rowids are
    given explicitly as the ones SQLite would pick (one past the largest, counted after the
    deletes), because ``executemany`` does not report them.
    """
    file_ids = _upsert_files(conn, batch)
    return file_ids, _insert_chunks(conn, batch, file_ids)


def _upsert_files(conn: sqlite3.Connection, batch: BatchWrite) -> list[int]:
    """The files' rows, updated in place or inserted; their old chunks and links dropped."""
    cols = batch.parsed
    paths = cols.paths
    conn.executemany("DELETE FROM skipped WHERE path=?", ((p,) for p in paths))
    known: dict[str, int] = dict(
        select_in(conn, "SELECT path, id FROM files WHERE path IN ({marks})", paths)
    )
    next_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM files").fetchone()[0]) + 1
    values = zip(
        cols.mtimes,
        cols.sizes,
        cols.hashes,
        batch.frontmatter_json,
        batch.warnings_json,
        batch.origins,
        batch.tags_json,
        strict=True,
    )
    file_ids: list[int] = []
    updates, inserts = [], []
    for path, row in zip(paths, values, strict=True):
        file_id = known.get(path)
        if file_id is None:  # the id SQLite would give: inserts run in this order
            file_id, next_id = next_id, next_id + 1
            inserts.append((file_id, path, *row))
        else:
            updates.append((*row, file_id))
        file_ids.append(file_id)
    old = [(u[-1],) for u in updates]
    conn.executemany("DELETE FROM chunks WHERE file_id=?", old)
    conn.executemany("DELETE FROM links WHERE file_id=?", old)
    conn.executemany(
        "UPDATE files SET mtime=?, size=?, hash=?, frontmatter=?, warnings=?, origin=?, "
        "tags=? WHERE id=?",
        updates,
    )
    conn.executemany(
        "INSERT INTO files(id, path, mtime, size, hash, frontmatter, warnings, origin, tags) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        inserts,
    )
    return file_ids


def _insert_chunks(conn: sqlite3.Connection, batch: BatchWrite, file_ids: list[int]) -> np.ndarray:
    """The batch's chunks (term ids and counts as int32 blobs) and links; their rowids."""
    cols = batch.parsed
    n = len(cols.chunk_ids)
    offsets = (np.asarray(batch.doc_ptr, dtype=np.int64) * 4).tolist()
    if len(offsets) != n + 1:
        raise ValueError(f"{n} chunks for a CSR of {len(offsets) - 1} documents")
    first = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0]) + 1
    id_blob = np.asarray(batch.term_ids, dtype="<i4").tobytes()
    tf_blob = np.asarray(batch.tfs, dtype="<i4").tobytes()
    spans = list(itertools.pairwise(offsets))
    conn.executemany(
        "INSERT INTO chunks(rowid, id, file_id, seq, start_line, end_line, prefix, body, "
        "suffix, term_ids, tfs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        zip(
            range(first, first + n),
            cols.chunk_ids,
            map(file_ids.__getitem__, cols.chunk_files()),
            cols.chunk_seqs(),
            cols.chunk_starts,
            cols.chunk_ends,
            cols.chunk_prefixes,
            cols.chunk_bodies,
            cols.chunk_suffixes,
            [id_blob[a:b] for a, b in spans],
            [tf_blob[a:b] for a, b in spans],
            strict=True,
        ),
    )
    link_files = [file_id for file_id, k in zip(file_ids, cols.link_counts) for _ in range(k)]
    conn.executemany(
        "INSERT INTO links(file_id, seq, target, anchor, line, alias, embed, raw) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        zip(
            link_files,
            cols.link_seqs(),
            cols.link_targets,
            cols.link_anchors,
            cols.link_lines,
            cols.link_aliases,
            map(int, cols.link_embeds),
            cols.link_raws,
            strict=True,
        ),
    )
    return np.arange(first, first + n, dtype=np.int64)
