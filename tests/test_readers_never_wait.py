"""Readers never wait for a writer: a search answers while a batch's transaction is open
(held open by another connection's write lock, as another process committing or a slow disk
would), and the rename preview plans while a batch holds the writer lock. Real SQLite, real
threads; the only wait bounds are deadlock guards, never timings."""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from reme_core import Changes, Workspace
from tests.helpers import hits, parts, wait_for

FILES = {f"notes/n{i}.md": f"# N{i}\n\nalpha note {i} links [[n{i + 1}]]\n" for i in range(40)}
GUARD = 60.0  # seconds before a reader that never returns counts as waiting forever


def _in_frame(thread: threading.Thread, name: str, module: str) -> bool:
    """Whether ``thread`` is running function ``name`` of a file ending in ``module`` now."""
    frame = sys._current_frames().get(thread.ident or -1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == name and code.co_filename.endswith(module):
            return True
        frame = frame.f_back
    return False


def _runs_to_end(fn: Callable[[], object]) -> object:
    """``fn``'s result from another thread; AssertionError when it is still blocked."""
    out: list[object] = []
    t = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    t.start()
    t.join(GUARD)
    assert not t.is_alive(), "the reader waited for the writer"
    return out[0]


def test_search_answers_while_a_batch_transaction_is_open(make_tree) -> None:
    root = make_tree(FILES)
    ws = Workspace.open(root)
    assert isinstance(ws.db_path, Path)
    blocker = sqlite3.connect(ws.db_path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the database
    (root / "notes" / "n1.md").write_text("# N1\n\nbravo fresh words\n")
    errors: list[BaseException] = []

    def batch() -> None:
        try:
            ws.apply(Changes(modified=["notes/n1.md"]))
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    writer = threading.Thread(target=batch, daemon=True)
    writer.start()
    try:
        wait_for(lambda: _in_frame(writer, "__enter__", "database.py"), GUARD, "the batch's BEGIN")
        # The batch is inside its commit, waiting for the database: a search still answers,
        # from the index as it was before the batch.
        assert _runs_to_end(lambda: hits(ws, "alpha note")) != []
        assert _runs_to_end(lambda: hits(ws, "bravo")) == []
        assert writer.is_alive()
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    writer.join(GUARD)
    assert not writer.is_alive() and errors == []
    assert hits(ws, "bravo") == ["notes/n1.md"]  # swapped in once committed
    ws.close()


def test_rename_preview_plans_while_a_batch_holds_the_writer_lock(make_tree) -> None:
    root = make_tree(FILES)
    ws = Workspace.open(root)
    held, release = threading.Event(), threading.Event()

    def batch() -> None:  # a watcher batch parsing and committing under the writer lock
        with parts(ws).write_lock:
            held.set()
            release.wait(GUARD)

    writer = threading.Thread(target=batch, daemon=True)
    writer.start()
    try:
        assert held.wait(GUARD)
        report = _runs_to_end(lambda: ws.move("notes/n2.md", "notes/two.md", dry_run=True))
        assert [e.path for e in report.edits] == ["notes/n1.md"]  # type: ignore[attr-defined]
        assert (root / "notes" / "n2.md").exists()  # a preview moves nothing
    finally:
        release.set()
    writer.join(GUARD)
    ws.close()


def test_snapshot_after_a_batch_copies_unchanged_rows_without_decoding_them(make_tree) -> None:
    """The snapshot written after a batch (under the readers' lock) takes the unchanged
    notes' frontmatter as stored: none is decoded, and a reopen reads the same values."""
    files = {
        f"notes/m{i}.md": f"---\nname: M{i}\ntags: [t{i}]\n---\n# M{i}\n\nword\n" for i in range(30)
    }
    root = make_tree(files)
    old = time.time() - 3600  # not racily clean: a reopen trusts them without reading
    for rel in files:
        os.utime(root / rel, (old, old))
    Workspace.open(root).close()  # built, snapshot written
    ws = Workspace.open(root)  # loaded from the snapshot: the rows stay encoded
    (root / "notes" / "m3.md").write_text("---\nname: Changed\n---\n# M3\n\nword\n")
    ws.apply(Changes(modified=["notes/m3.md"]))
    assert parts(ws).live.save_snapshot()
    loaded = parts(ws).index.nodes._files
    assert loaded is not None
    decoded = [i for i in range(len(loaded.paths)) if loaded.frontmatter.decoded(i)]  # type: ignore[attr-defined]
    assert {loaded.paths[i] for i in decoded} <= {"notes/m3.md"}  # only the changed note
    ws.close()
    again = Workspace.open(root)
    names = {p: again.node(p).name for p in files}  # type: ignore[union-attr]
    assert names["notes/m3.md"] == "Changed" and names["notes/m7.md"] == "M7"
    again.close()
