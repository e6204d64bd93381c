"""The rebuilt database copied over the live one (`Store.copy_into`): alone, the copy leaves
the write-ahead log and writes each page once; beside another connection it goes through the
log, so that reader keeps its snapshot; killed mid-copy, the live database is as it was."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reme_core.store.database import Store
from tests.conftest import write_files

HOLD_SNAPSHOT = r"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN")
print(conn.execute("SELECT count(*) FROM files").fetchone()[0], flush=True)
sys.stdin.readline()  # the parent copies meanwhile
print(conn.execute("SELECT count(*) FROM files").fetchone()[0], flush=True)
conn.execute("COMMIT")
print(conn.execute("SELECT count(*) FROM files").fetchone()[0], flush=True)
"""


def _filled(path: Path, n_files: int) -> Store:
    """A store holding ``n_files`` file rows with a page or so of text each."""
    store = Store(path)
    rows = [
        (i + 1, f"notes/{i}.md", 1.0, 10, f"h{i}", "{}", "[]", "reindex", "[]")
        for i in range(n_files)
    ]
    store.conn.execute("BEGIN")
    store.conn.executemany(
        "INSERT INTO files(id, path, mtime, size, hash, frontmatter, warnings, origin, tags) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    store.conn.executemany(
        "INSERT INTO chunks(id, file_id, seq, start_line, end_line, prefix, body, suffix, "
        "term_ids, tfs) VALUES (?, ?, 0, 1, 2, '', ?, '', x'', x'')",
        [(f"c{i}", i + 1, f"body {i} " * 400) for i in range(n_files)],
    )
    store.conn.execute("COMMIT")
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return store


def _count(path: Path) -> int:
    """Files in a database, read by a connection closed at once (one left open would keep
    the next copy in the log)."""
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM files").fetchone()[0])
    finally:
        conn.close()


def _wal_bytes(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def test_a_copy_into_a_database_open_nowhere_else_skips_the_log(tmp_path: Path) -> None:
    source = _filled(tmp_path / "built.sqlite", 2000)
    target = _filled(tmp_path / "live.sqlite", 3)
    source.copy_into(target)
    live = tmp_path / "live.sqlite"
    assert target.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # The pages went into the database itself: the log holds (nearly) nothing of them.
    assert _wal_bytes(live) < live.stat().st_size // 20
    assert not live.with_name("live.sqlite-journal").exists()
    assert _count(live) == 2000
    assert target.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    source.close()
    target.close()


def test_a_copy_beside_another_connection_goes_through_the_log(tmp_path: Path) -> None:
    source = _filled(tmp_path / "built.sqlite", 2000)
    live = tmp_path / "live.sqlite"
    target = _filled(live, 3)
    reader = subprocess.Popen(
        [sys.executable, "-c", HOLD_SNAPSHOT, str(live)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert reader.stdin is not None and reader.stdout is not None
    try:
        assert reader.stdout.readline().strip() == "3"
        source.copy_into(target)  # the reader's open connection keeps the log in use
        assert target.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert _wal_bytes(live) > 2000 * 1000
        reader.stdin.write("\n")
        reader.stdin.flush()
        assert reader.stdout.readline().strip() == "3"  # its snapshot, kept
        assert reader.stdout.readline().strip() == "2000"  # the copy, once it looks again
    finally:
        reader.kill()
        reader.wait()
    source.close()
    target.close()


@pytest.mark.slow
def test_a_rebuild_killed_while_copying_in_leaves_the_old_index(tmp_path: Path) -> None:
    """SIGKILL `reme-tui --reindex` once its copy has opened the rollback journal: the next
    open rolls the journal back, and the index is the earlier one, whole."""
    root = tmp_path / "ws"
    words = " ".join(f"word{i}" for i in range(3000))
    write_files(root, {f"digest/n{i:04d}.md": f"# Note {i}\n\n{words}\n" for i in range(1500)})
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    subprocess.run([sys.executable, "-m", "reme_tui", "--reindex", str(root)], check=True, env=env)
    db = root / "metadata" / "index.sqlite"
    before = _count(db)
    write_files(root, {f"digest/m{i:04d}.md": f"# More {i}\n\n{words}\n" for i in range(500)})
    journal = db.with_name("index.sqlite-journal")
    caught = False
    for _ in range(5):  # the copy takes tens of milliseconds: look for it closely
        proc = subprocess.Popen([sys.executable, "-m", "reme_tui", "--reindex", str(root)], env=env)
        while proc.poll() is None and not journal.exists():
            time.sleep(0.0005)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            caught = journal.exists()
        if caught:
            break
    assert caught, "the copy's rollback journal was never seen"
    assert _count(db) == before  # the hot journal rolled back on this first read
    store = Store(db)
    try:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        store.close()
    done = subprocess.run(
        [sys.executable, "-m", "reme_tui", "--reindex", str(root)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Traceback" not in done.stderr
    assert _count(db) == before + 500
