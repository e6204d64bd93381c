"""`watch` as a complete change feed: every change any process commits, once, in commit order
(issue 27). Real subprocesses: a `watch --json` child, and `write`, `move`, `delete` run as
other processes, then a plain edit of a file that only the watcher sees."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from queue import Empty, Queue

from reme_core import Committed, Gap, Rebuilt, Workspace
from reme_core.store.change_rows import KEPT_GENERATIONS
from reme_tui.text.opening import warning_line
from tests.helpers import parts


def vault(root: Path) -> Path:
    (root / ".obsidian").mkdir(parents=True)
    (root / "a.md").write_text("# A\n\nalpha\n", "utf-8")
    (root / "b.md").write_text("# B\n\nsee [[a]]\n", "utf-8")
    return root


def cli(*args: str, stdin: str | None = None) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reme_tui", *args],
        capture_output=True,
        text=True,
        input=stdin,
        env={**os.environ, "REME_WORKSPACE": ""},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def test_watch_json_prints_every_process_s_changes_once_in_order(tmp_path: Path) -> None:
    root = vault(tmp_path / "v")
    w = str(root)
    Workspace.open(root).close()
    errors = (tmp_path / "watch.err").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "reme_tui", "watch", "-w", w, "--json", "--quiet-ms", "50"],
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
        env={**os.environ, "REME_WORKSPACE": ""},
    )
    lines: Queue[str] = Queue()
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True)
    reader.start()
    records: list[dict] = []

    def changes() -> list[tuple[str, str]]:
        return [(c["kind"], c["path"]) for r in records for c in r.get("changes", ())]

    def until(count: int) -> None:
        deadline = time.monotonic() + 60
        while len(changes()) < count and time.monotonic() < deadline:
            with contextlib.suppress(Empty):
                records.append(json.loads(lines.get(timeout=0.5)))

    try:
        start = json.loads(lines.get(timeout=120))
        assert start["event"] == "watching" and start["files"] == 2
        time.sleep(1.0)  # the OS watch is in place (for the plain edit below)
        cli("write", "new.md", "--body", "fresh words", "-w", w)
        cli("move", "new.md", "sub/moved.md", "-w", w)
        cli("delete", "a.md", "--yes", "-w", w)
        until(4)
        (root / "b.md").write_text("# B\n\nedited by hand\n", "utf-8")  # only the watcher
        until(5)
        time.sleep(2.0)  # anything printed twice would be printed by now
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        reader.join(timeout=10)
        errors.close()
    while not lines.empty():
        records.append(json.loads(lines.get()))
    assert proc.returncode == 0
    assert "Traceback" not in (tmp_path / "watch.err").read_text()
    assert changes() == [
        ("added", "new.md"),
        ("deleted", "new.md"),  # a move: one commit, the old path gone and the new one
        ("added", "sub/moved.md"),
        ("deleted", "a.md"),
        ("modified", "b.md"),
    ]
    batches = [r for r in records if r["event"] == "batch"]
    assert [r["event"] for r in records] == ["batch"] * 4
    generations = [r["generation"] for r in batches]
    assert generations == sorted(set(generations)) and generations[0] > start["generation"]
    pids = [r["pid"] for r in batches]
    assert start["pid"] not in pids[:3] and len(set(pids[:3])) == 3  # three other processes
    assert pids[3] == start["pid"] and batches[3]["seconds"] is not None  # the watcher's own
    assert all(r["seconds"] is None for r in batches[:3])


def test_the_feed_of_one_workspace_reads_another_s_commits_and_rebuilds(tmp_path: Path) -> None:
    root = vault(tmp_path / "v")
    reader, writer = Workspace.open(root), Workspace.open(root)
    try:
        feed = reader.change_feed()
        assert feed.poll() == []
        (root / "c.md").write_text("# C\n", "utf-8")
        writer.sync()
        (root / "c.md").write_text("# C\n\nmore\n", "utf-8")
        writer.sync()
        got = feed.poll()
        assert [type(e) for e in got] == [Committed, Committed]
        assert [(c.kind, c.path) for e in got for c in e.changes] == [
            ("added", "c.md"),
            ("modified", "c.md"),
        ]
        assert all(e.pid == os.getpid() for e in got)  # one process here, two workspaces
        assert feed.poll() == []  # once
        writer.reindex()
        (rebuilt,) = feed.poll()
        assert isinstance(rebuilt, Rebuilt)
        (root / "c.md").unlink()
        writer.sync()
        assert [(c.kind, c.path) for e in feed.poll() for c in e.changes] == [("deleted", "c.md")]
    finally:
        reader.close()
        writer.close()


def test_a_reader_further_behind_than_the_log_learns_of_the_gap(tmp_path: Path) -> None:
    root = vault(tmp_path / "v")
    reader, writer = Workspace.open(root), Workspace.open(root)
    try:
        feed = reader.change_feed()
        start = feed.seen
        (root / "c.md").write_text("# C\n", "utf-8")
        writer.sync()  # logged at start + 1
        store = parts(writer).store
        for _ in range(KEPT_GENERATIONS):  # commits with no file change, each pruning the log
            with store.transaction():
                store.changes.record(store.bump_generation(), [])
        (gap,) = feed.poll()
        assert gap == Gap(start, start + 1)  # c.md's commit has left the log
        assert feed.poll() == []
    finally:
        reader.close()
        writer.close()


def test_plain_watch_names_the_process_that_committed_a_change(tmp_path: Path) -> None:
    root = vault(tmp_path / "v")
    Workspace.open(root).close()
    out = tmp_path / "watch.out"
    with out.open("w") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "reme_tui", "watch", "-w", str(root), "--quiet-ms", "50"],
            stdout=fh,
            stderr=subprocess.STDOUT,
            env={**os.environ, "REME_WORKSPACE": ""},
        )
    try:
        deadline = time.monotonic() + 120
        while "watching" not in out.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        cli("write", "new.md", "--body", "fresh words", "-w", str(root))
        while "new.md" not in out.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    lines = out.read_text().splitlines()
    assert proc.returncode == 0 and "Traceback" not in out.read_text()
    (added,) = [line for line in lines if "new.md" in line]
    assert added.startswith("added new.md 1 chunks (pid ") and str(proc.pid) not in added


def test_an_index_from_before_the_change_log_is_rebuilt_once(tmp_path: Path) -> None:
    root = vault(tmp_path / "v")
    Workspace.open(root).close()
    conn = sqlite3.connect(root / ".reme-tui" / "index.sqlite")
    conn.execute("DROP TABLE changes")  # as schema 2 made it
    conn.execute("UPDATE meta SET value='2' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    ws = Workspace.open(root)
    try:
        assert any(
            "older version" in w and "rebuilt" in w for w in map(warning_line, ws.warnings)
        ), ws.warnings
        assert ws.files() == ["a.md", "b.md"]
    finally:
        ws.close()
    again = Workspace.open(root)
    try:
        assert not any("older version" in w for w in map(warning_line, again.warnings))
    finally:
        again.close()
