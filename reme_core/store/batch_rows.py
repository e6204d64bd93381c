"""A parsed batch written to the store: file rows upserted, chunks and links inserted, all
with one `executemany` per table (the store's hottest write path: every batch of a rebuild)."""

from __future__ import annotations

import sqlite3

import numpy as np

from reme_core.store.rows import BatchWrite, _link_row, select_in
from reme_core.text.json_text import json_text


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
    paths = [pf.node.path for pf in batch.files]
    conn.executemany("DELETE FROM skipped WHERE path=?", ((p,) for p in paths))
    known: dict[str, int] = dict(
        select_in(conn, "SELECT path, id FROM files WHERE path IN ({marks})", paths)
    )
    next_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM files").fetchone()[0]) + 1
    file_ids: list[int] = []
    updates, inserts = [], []
    for pf, origin in zip(batch.files, batch.origins, strict=True):
        node = pf.node
        values = (
            node.st_mtime,
            node.size,
            node.content_hash,
            json_text(node.frontmatter),
            json_text(node.warnings),
            origin,
            json_text(node.inline_tags),
        )
        file_id = known.get(node.path)
        if file_id is None:  # the id SQLite would give: inserts run in this order
            file_id, next_id = next_id, next_id + 1
            inserts.append((file_id, node.path, *values))
        else:
            updates.append((*values, file_id))
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
    first = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0]) + 1
    id_blob = np.asarray(batch.term_ids, dtype="<i4").tobytes()
    tf_blob = np.asarray(batch.tfs, dtype="<i4").tobytes()
    offsets = (np.asarray(batch.doc_ptr, dtype=np.int64) * 4).tolist()
    rows: list[tuple[object, ...]] = []
    links: list[tuple[object, ...]] = []
    for file_id, pf in zip(file_ids, batch.files, strict=True):
        for seq, chunk in enumerate(pf.chunks):
            doc = len(rows)
            a, b = offsets[doc], offsets[doc + 1]
            rows.append(
                (
                    first + doc,
                    chunk.id,
                    file_id,
                    seq,
                    chunk.start_line,
                    chunk.end_line,
                    chunk.prefix,
                    chunk.body,
                    chunk.suffix,
                    id_blob[a:b],
                    tf_blob[a:b],
                )
            )
        links.extend(_link_row(file_id, i, link) for i, link in enumerate(pf.node.links))
    if len(rows) != len(offsets) - 1:
        raise ValueError(f"{len(rows)} chunks for a CSR of {len(offsets) - 1} documents")
    conn.executemany(
        "INSERT INTO chunks(rowid, id, file_id, seq, start_line, end_line, prefix, body, "
        "suffix, term_ids, tfs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.executemany(
        "INSERT INTO links(file_id, seq, target, anchor, line, alias, embed, raw) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        links,
    )
    return np.arange(first, first + len(rows), dtype=np.int64)
