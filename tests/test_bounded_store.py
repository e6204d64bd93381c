"""A store stuffed with junk rows is not loaded row by row (issue 26): 300,000 rows of files
that do not exist kept every command busy for minutes (load, then a diff and a delete of each
row); now a bounded sample finds them missing and the index is rebuilt from the files, with
one warning. Real SQLite, real subprocesses (their timeout turns a hang into a failure)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from reme_core import Workspace
from reme_core.indexing.opening import MANY_FILES

FILES = {"a.md": "# A\n\nalpha note\n", "b.md": "# B\n\nbravo note [[a]]\n"}


def stuffed(root: Path, rows: int) -> None:
    db = root / ".reme-tui" / "index.sqlite"
    conn = sqlite3.connect(db)
    with conn:
        conn.executemany(
            "INSERT INTO files (path, mtime, size, hash, frontmatter, warnings, origin, tags) "
            "VALUES (?, 0, 0, 'h', '{}', '[]', 'watch', '[]')",
            ((f"junk/{i}.md",) for i in range(rows)),
        )
    conn.close()
    for snap in (root / ".reme-tui").glob("*.npz"):
        snap.unlink()


def search(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reme_tui", "-w", str(root), "search", "note", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_300k_junk_file_rows_are_rebuilt_not_loaded(make_tree) -> None:
    root = make_tree({**FILES, ".obsidian/app.json": "{}"})
    Workspace.open(root).close()
    stuffed(root, 300_000)
    done = search(root)
    assert done.returncode == 0, done.stderr
    warnings = done.stderr.strip().splitlines()
    assert len(warnings) == 1 and "300002 files, most of which do not exist" in warnings[0]
    assert "rebuilt from the files" in warnings[0]
    assert sorted(r["path"] for r in json.loads(done.stdout)["results"]) == sorted(FILES)
    again = search(root)
    assert again.returncode == 0 and again.stderr == ""
    ws = Workspace.open(root)
    try:
        assert ws.files() == sorted(FILES)
    finally:
        ws.close()


def test_a_store_of_few_missing_files_is_loaded_and_caught_up(make_tree) -> None:
    root = make_tree({**FILES, ".obsidian/app.json": "{}"})
    Workspace.open(root).close()
    stuffed(root, MANY_FILES // 2)  # below the bound: the diff deletes them, no rebuild
    done = search(root)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    ws = Workspace.open(root)
    try:
        assert ws.files() == sorted(FILES)
    finally:
        ws.close()
