"""Start-up diff and two processes at once, on real folders, real SQLite and real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from reme_core import Changes, Workspace
from tests.helpers import hits, parts, read_text, wait_for

FILES = {
    "daily/a.md": "# A\n\nalpha note\n",
    "digest/b.md": "# B\n\nbravo note\n",
    "resource/r.jsonl": '{"text": "romeo resource"}\n',
}


def age(path: Path, seconds: float = 10) -> None:
    """Move a file's mtime into the past (out of the racily-clean window)."""
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_touched_file_is_not_rechunked(make_tree) -> None:
    root = make_tree(FILES)
    for rel in FILES:
        age(root / rel, 100)
    ws = Workspace.open(root)
    rowids = [c.id for c in ws.chunks("daily/a.md")]
    generation = ws.stats().generation
    age(root / "daily" / "a.md", 5)  # touched, same bytes
    report = ws.sync()
    assert report.changes == [] and report.touched == ["daily/a.md"]
    assert [c.id for c in ws.chunks("daily/a.md")] == rowids
    assert ws.stats().generation == generation + 1
    ws.close()
    again = Workspace.open(root)  # the new mtime was stored: nothing left to confirm
    assert not again.diff()
    again.close()


def test_startup_diff_catches_offline_edits_and_keeps_rebuild_only_files(make_tree) -> None:
    root = make_tree(FILES)
    Workspace.open(root).close()
    (root / "daily" / "a.md").write_text("# A\n\nalpha changed offline\n")
    (root / "digest" / "b.md").unlink()
    (root / "daily" / "n.md").write_text("# N\n\nnovember\n")
    ws = Workspace.open(root)
    assert ws.files() == ["daily/a.md", "daily/n.md", "resource/r.jsonl"]
    assert hits(ws, "offline") == ["daily/a.md"] and hits(ws, "romeo") == ["resource/r.jsonl"]
    ws.close()
    (root / "resource" / "r.jsonl").write_text('{"text": "sierra resource"}\n')
    ws = Workspace.open(root)
    assert hits(ws, "sierra") == ["resource/r.jsonl"] and hits(ws, "romeo") == []
    ws.close()
    (root / "resource" / "r.jsonl").unlink()
    ws = Workspace.open(root)
    assert "resource/r.jsonl" not in ws.files()
    ws.close()


def test_long_running_reader_notices_other_writers(make_tree) -> None:
    root = make_tree(FILES)
    reader = Workspace.open(root)
    writer = Workspace.open(root)  # its own connection: to SQLite, another process
    (root / "daily" / "a.md").write_text("# A\n\ntango edit\n")
    writer.apply(Changes(modified=["daily/a.md"]))
    assert hits(reader, "tango") == ["daily/a.md"]
    (root / "daily" / "u.md").write_text("# U\n\nuniform\n")
    summary = writer.reindex()
    assert summary.files == 4
    assert hits(reader, "uniform") == ["daily/u.md"]
    # and the reader can write after the other's rebuild without clashing term ids
    (root / "daily" / "v.md").write_text("# V\n\nvictor whiskey\n")
    reader.apply(Changes(added=["daily/v.md"]))
    assert hits(writer, "whiskey") == ["daily/v.md"] and hits(writer, "uniform") == ["daily/u.md"]
    reader.close()
    writer.close()


def test_terms_are_numbered_after_catching_up_with_another_writer(make_tree) -> None:
    root = make_tree(FILES)
    mine, other = Workspace.open(root), Workspace.open(root)
    (root / "daily" / "x.md").write_text("# X\n\nxray yankee\n")
    # parsed before the other process commits
    batches, _ = parts(mine).indexer._parse(["daily/x.md"], None)
    (root / "daily" / "o.md").write_text("# O\n\noscar papa quebec\n")
    other.apply(Changes(added=["daily/o.md"]))  # new terms: the vocabulary moves on
    parts(mine).indexer._commit(batches, set(), [], [])  # catches up, then numbers its terms
    for ws in (mine, other, Workspace.open(root)):
        assert hits(ws, "yankee") == ["daily/x.md"] and hits(ws, "quebec") == ["daily/o.md"]
        ws.close()


def test_search_beside_a_writing_watch_process(make_tree) -> None:
    root = make_tree(FILES)
    Workspace.open(root).close()
    out = root.parent / "watch.out"
    with open(out, "w") as fh:
        watch = subprocess.Popen(
            [sys.executable, "-m", "reme_tui.cli", "watch", "-w", str(root), "--quiet-ms", "50"],
            stdout=fh,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for(lambda: "watching" in read_text(out), 60, "watch to start")
        for i in range(6):
            (root / "daily" / f"e{i}.md").write_text(f"# E{i}\n\nburst word{i} echo\n" * 20)
            (root / "daily" / "a.md").write_text(f"# A\n\nalpha round{i}\n")
            search = ["search", f"word{i}", "--json", "-w", str(root)]
            proc = subprocess.run(
                [sys.executable, "-m", "reme_tui.cli", *search],
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert proc.returncode == 0, proc.stderr
            assert "locked" not in proc.stderr and "Traceback" not in proc.stderr
            paths = [r["path"] for r in json.loads(proc.stdout)["results"]]
            assert paths == [f"daily/e{i}.md"]
        wait_for(lambda: "modified daily/a.md" in read_text(out), 30, "watch to apply")
    finally:
        watch.send_signal(2)
        code = watch.wait(timeout=30)
    assert code == 0 and "Traceback" not in read_text(out)


def test_a_file_another_process_committed_meanwhile_is_no_change(make_tree) -> None:
    """The watcher parses a file a CLI `write` is committing at the same moment: the commit
    that comes second finds the same bytes stored and reports nothing (the watch feed once
    printed the CLI's move and then a "modified" of the same file)."""
    root = make_tree(FILES)
    watcher, cli = Workspace.open(root), Workspace.open(root)
    feed = Workspace.open(root)
    reader = feed.change_feed()
    (root / "daily" / "x.md").write_text("# X\n\nxray yankee\n")
    batches, _ = parts(watcher).indexer._parse(["daily/x.md"], None)  # the watcher's parse
    assert [c.kind for c in cli.apply(Changes(added=["daily/x.md"])).changes] == ["added"]
    report = parts(watcher).indexer._commit(batches, set(), [], [])
    assert report.changes == []
    events = reader.poll()
    assert [(c.kind, c.path) for e in events for c in getattr(e, "changes", ())] == [
        ("added", "daily/x.md")
    ]
    assert hits(watcher, "yankee") == ["daily/x.md"]
    for ws in (watcher, cli, feed):
        ws.close()
