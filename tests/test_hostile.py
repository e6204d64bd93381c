"""Bad and hostile workspaces: each ends with a clear message and a correct index, no traceback."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reme_core import Changes, PathRefused, Workspace
from reme_core.indexing.watcher import watch_workspace
from reme_tui.text.opening import warning_line
from tests.helpers import hits, parts
from tests.test_crash import check_texts, verify

FILES = {
    "daily/a.md": "# A\n\nalpha note\n",
    "daily/b.md": "# B\n\nbravo note [[daily/a.md]]\n",
    "digest/c.md": "# C\n\ncharlie note\n",
}


def built(make_tree) -> Path:
    root = make_tree(FILES)
    Workspace.open(root).close()
    return root


def assert_rebuilt(root: Path, fragment: str) -> None:
    ws = Workspace.open(root)
    try:
        assert any(fragment in w and "rebuilt" in w for w in map(warning_line, ws.warnings)), (
            ws.warnings
        )
        assert ws.files() == sorted(FILES)
        assert hits(ws, "note") == sorted(FILES)
    finally:
        ws.close()
    ws = Workspace.open(root)  # and the rebuilt database is sound on the next open
    assert ws.warnings == [] and ws.files() == sorted(FILES)
    ws.close()


def test_truncated_database(make_tree) -> None:
    root = built(make_tree)
    db = root / "metadata" / "index.sqlite"
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 3])
    assert_rebuilt(root, "index.sqlite")


def test_garbage_database(make_tree) -> None:
    root = built(make_tree)
    (root / "metadata" / "index.sqlite").write_bytes(os.urandom(50_000))
    assert_rebuilt(root, "index.sqlite")


@pytest.mark.parametrize("version", ["99", "0"])
def test_other_schema_version(make_tree, version: str) -> None:
    root = built(make_tree)
    conn = sqlite3.connect(root / "metadata" / "index.sqlite")
    conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", (version,))
    conn.commit()
    conn.close()
    assert_rebuilt(root, f"schema version {version}")


def test_garbage_database_through_the_cli(make_tree) -> None:
    root = built(make_tree)
    (root / "metadata" / "index.sqlite").write_bytes(b"SQLite format 3\0" + os.urandom(9000))
    proc = subprocess.run(
        [sys.executable, "-m", "reme_tui.cli", "search", "charlie", "-w", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "rebuilt from the files" in proc.stderr
    assert "digest/c.md" in proc.stdout


def test_metadata_is_a_file(make_tree) -> None:
    root = make_tree({**FILES, "metadata": "not a folder"})
    for _ in range(2):
        ws = Workspace.open(root)
        assert any("in memory" in w for w in map(warning_line, ws.warnings))
        assert hits(ws, "note") == sorted(FILES)
        ws.apply(Changes(deleted=["daily/a.md"]))  # keeps working; nothing to persist to
        ws.close()
    assert (root / "metadata").read_text() == "not a folder"


def test_unreadable_entries(make_tree) -> None:
    root = make_tree(FILES)
    os.mkfifo(root / "daily" / "pipe.md")  # opening it would block forever
    (root / "daily" / "folder.md").mkdir()  # a folder named like a note
    (root / "daily" / "folder.md" / "inner.md").write_text("# I\n\ninner note\n")
    ws = Workspace.open(root)
    assert ws.files() == sorted([*FILES, "daily/folder.md/inner.md"])
    report = ws.apply(Changes(modified=["daily/pipe.md", "daily/folder.md"]))
    assert report.changes == []
    ws.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads mode-000 files; see the FIFO test")
def test_mode_000_file(make_tree) -> None:
    root = make_tree(FILES)
    (root / "daily" / "a.md").chmod(0)
    ws = Workspace.open(root)
    assert "daily/a.md" not in ws.files()
    assert ("daily/a.md", "Permission denied") in parts(ws).store.skipped()
    ws.close()


def test_symlink_loops_and_escapes(make_tree, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# S\n\nsecret words\n")
    root = make_tree(FILES)
    daily = root / "daily"
    (daily / "loop").symlink_to(daily, target_is_directory=True)
    (daily / "x.md").symlink_to(daily / "y.md")
    (daily / "y.md").symlink_to(daily / "x.md")
    (daily / "escape.md").symlink_to(outside / "secret.md")
    (daily / "escape-dir").symlink_to(outside, target_is_directory=True)
    ws = Workspace.open(root)
    assert ws.files() == sorted(FILES)
    assert hits(ws, "secret") == []
    report = ws.apply(Changes(modified=["daily/x.md", "daily/escape.md"]))
    assert report.changes == []
    with pytest.raises(PathRefused):
        ws.read("daily/escape.md")
    ws.close()


def test_file_deleted_between_event_and_read(make_tree) -> None:
    root = built(make_tree)
    ws = Workspace.open(root)
    (root / "daily" / "a.md").unlink()
    report = ws.apply(Changes(modified=["daily/a.md"], added=["daily/ghost.md"]))
    assert [(c.kind, c.path) for c in report.changes] == [("deleted", "daily/a.md")]
    assert report.skipped == [] and parts(ws).store.skipped() == []
    assert hits(ws, "alpha") == []
    ws.close()


def test_file_changing_while_read(make_tree, tmp_path: Path) -> None:
    root = built(make_tree)
    target = root / "daily" / "a.md"
    stop = threading.Event()

    def churn() -> None:
        i = 0
        while not stop.is_set():
            with open(target, "w") as fh:  # truncate then write: readers can see half a file
                fh.write("# A\n\n" + f"churn {i} " * (i % 50) + "\n")
            i += 1

    writer = threading.Thread(target=churn)
    writer.start()
    ws = Workspace.open(root)
    try:
        for _ in range(40):
            ws.apply(Changes(modified=["daily/a.md"]))
    finally:
        stop.set()
        writer.join()
        ws.close()
    time.sleep(0.01)
    verify(root, tmp_path)


def test_storm_of_5000_files_under_the_watcher(make_tree, tmp_path: Path) -> None:
    root = built(make_tree)
    storm = root / "daily" / "checkout"
    ws = Workspace.open(root)
    timings: dict[str, float] = {}

    async def run() -> None:
        stop = asyncio.Event()

        async def consume() -> None:
            async for _ in watch_workspace(ws, stop_event=stop, quiet_ms=100):
                pass

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.5)

        async def settled(n: int, what: str) -> None:
            start = time.monotonic()
            while len(ws.files()) != n:
                assert time.monotonic() - start < 120, f"{what}: {len(ws.files())} files"
                await asyncio.sleep(0.05)
            timings[what] = time.monotonic() - start

        storm.mkdir()
        for i in range(5000):
            (storm / f"n{i}.md").write_text(f"# N{i}\n\nstorm file {i}\n")
        await settled(len(FILES) + 5000, "create")
        for i in range(5000):
            (storm / f"n{i}.md").unlink()
        storm.rmdir()
        await settled(len(FILES), "delete")
        stop.set()
        await asyncio.wait_for(task, 30)

    asyncio.run(run())
    check_texts(ws)
    ws.close()
    verify(root, tmp_path)
    print(f"storm of 5000 files settled: {timings}")


# -- no file can disable a workspace (issue 12) ---------------------------------------------
def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reme_tui.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _undecodable_names(folder: Path) -> None:
    """A note and a folder of notes whose names are not UTF-8 (made with bytes paths)."""
    base = os.fsencode(folder)
    with open(base + b"/caf\xe9.md", "wb") as fh:
        fh.write(b"# Cafe\n\nespresso note\n")
    os.mkdir(base + b"/d\xff")
    with open(base + b"/d\xff/inner.md", "wb") as fh:
        fh.write(b"# Inner\n\nespresso inside\n")


def _in_mode(files: dict[str, str], mode: str) -> dict[str, str]:
    """The files as a memory workspace, or as a vault (no memory layer: other folder names)."""
    if mode == "memory":
        return files
    renamed = {"daily/": "notes/", "digest/": "wiki/"}

    def vault(text: str) -> str:
        for old, new in renamed.items():
            text = text.replace(old, new)
        return text

    return {vault(path): vault(text) for path, text in files.items()}


@pytest.mark.parametrize("mode", ["memory", "vault"])
def test_undecodable_file_names_are_left_out_with_a_warning(make_tree, mode: str) -> None:
    files = _in_mode(FILES, mode)
    root = make_tree(files)
    where = "daily/" if mode == "memory" else "notes/"
    _undecodable_names(root / where)
    good = f"{where}a.md"
    proc = _cli("--reindex", str(root))
    assert proc.returncode == 0, proc.stderr
    assert f"skipped {where}caf\\xe9.md: file name is not valid UTF-8" in proc.stdout
    assert f"skipped {where}d\\xff: file name is not valid UTF-8" in proc.stdout
    for args in (
        ["search", "note"],
        ["search", "alpha", "--json"],
        ["stats"],
        ["stats", "--json"],
        ["links", good],
        ["read", good],
        ["chunks", good],
        ["traverse", good],
    ):
        proc = _cli(*args, "-w", str(root))
        assert proc.returncode == 0, (args, proc.stderr)
        assert "Traceback" not in proc.stderr and "unexpected error" not in proc.stderr
        assert f"{where}caf\\xe9.md: file name is not valid UTF-8; not indexed" in proc.stderr
    assert "alpha note" in _cli("search", "alpha", "-w", str(root)).stdout
    ws = Workspace.open(root)
    assert ws.files() == sorted(files)
    assert hits(ws, "espresso") == []
    ws.close()
    proc = _cli("read", f"{where}caf\udce9.md", "-w", str(root))  # argv decodes the same way
    assert proc.returncode == 1 and "file name is not valid UTF-8" in proc.stderr


def test_the_watcher_survives_an_undecodable_file_name(make_tree) -> None:
    root = built(make_tree)
    ws = Workspace.open(root)

    async def run() -> None:
        stop = asyncio.Event()

        async def consume() -> None:
            async for _ in watch_workspace(ws, stop_event=stop, quiet_ms=100):
                pass

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.5)
        _undecodable_names(root / "daily")  # watchfiles cannot name it and gives up
        await asyncio.sleep(1.0)
        (root / "daily" / "later.md").write_text("# Later\n\nwritten after it\n")
        start = time.monotonic()
        while "daily/later.md" not in ws.files() and not task.done():
            assert time.monotonic() - start < 60, "the watcher stopped indexing"
            await asyncio.sleep(0.05)
        assert not task.done(), task.exception()
        stop.set()
        await asyncio.wait_for(task, 30)

    asyncio.run(run())
    assert hits(ws, "written") == ["daily/later.md"]
    assert "daily/caf\\xe9.md: file name is not valid UTF-8; not indexed" in map(
        warning_line, ws.warnings
    )
    ws.close()


LONG = "x" * 300  # over the 255 bytes a file name may have


@pytest.mark.parametrize("mode", ["memory", "vault"])
def test_an_over_long_link_target_is_a_dangling_link(make_tree, mode: str) -> None:
    note = f"# Long\n\nlong links [[{LONG}]] and [[daily/{LONG}.md#L1]] and [[daily/a.md]]\n"
    files = _in_mode({**FILES, "daily/long.md": note}, mode)
    root = make_tree(files)
    where = "daily/" if mode == "memory" else "notes/"
    long_note = f"{where}long.md"
    proc = _cli("--reindex", str(root))
    assert proc.returncode == 0, proc.stderr
    assert "dangling links 2" in proc.stdout
    for args in (
        ["search", "long links"],
        ["stats"],
        ["links", long_note],
        ["links", long_note, "--json"],
        ["traverse", long_note, "--depth", "2"],
    ):
        proc = _cli(*args, "-w", str(root))
        assert proc.returncode == 0, (args, proc.stderr)
        assert "Traceback" not in proc.stderr and "unexpected error" not in proc.stderr
    links = _cli("links", long_note, "-w", str(root)).stdout
    assert links.count("(dangling)") == 2
    proc = _cli("read", f"{where}{LONG}.md", "-w", str(root))
    assert proc.returncode == 1 and "unexpected error" not in proc.stderr
    assert "File name too long" in proc.stderr
