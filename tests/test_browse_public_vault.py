"""The installed browser on a copy of a public Obsidian vault nobody here wrote (issue 29's
done-when): a note bookmarked from the app is found in the vault's own
`.obsidian/bookmarks.json`, and palette "Today" creates the daily note where the
`daily-notes.json` written into the copy says. Skipped where the vault is absent."""

from __future__ import annotations

import json
import os
import shutil
import sys
from datetime import date
from pathlib import Path

import pytest

from tests.terminal import Terminal, browser_env

VAULT = Path("/work/vaults/Pokerole-Obsidian-SRD")

pytestmark = pytest.mark.skipif(not VAULT.is_dir(), reason="public vault not on this machine")


def _writable_copy(target: Path) -> Path:
    """A copy of the (read-only) vault that the test may write to."""
    shutil.copytree(VAULT, target, ignore=shutil.ignore_patterns(".git"))
    for folder, dirs, files in os.walk(target):
        for name in (*dirs, *files):
            path = Path(folder) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o200)
    target.chmod(target.stat().st_mode | 0o200)
    return target


def test_bookmark_and_today_land_in_obsidians_own_files(tmp_path: Path) -> None:
    root = _writable_copy(tmp_path / "Pokerole")
    assert not (root / ".obsidian/bookmarks.json").exists()
    settings = {"folder": "Journal", "format": "YYYY/MM-MMMM/YYYY-MM-DD", "template": ""}
    (root / ".obsidian/daily-notes.json").write_text(json.dumps(settings), encoding="utf-8")
    today = date.today()
    daily = root / f"Journal/{today:%Y}/{today:%m-%B}/{today.isoformat()}.md"

    argv = [sys.executable, "-m", "reme_tui", str(root)]
    term = Terminal(argv, env=browser_env(tmp_path / "home"), columns=100, lines=30)
    try:
        term.wait_for("files", 600)  # the header's counts: 4.9k notes indexed
        term.press("ctrl+o")
        term.wait_for("Open note")
        term.type("Readme")
        term.wait_for("Readme.md")
        term.press("enter")
        term.wait_for("System Reference Document", 60)  # the note in the reader
        term.press("\x02")  # Ctrl+B: bookmark the note, a heading or the search
        term.wait_for("This note")
        term.press("enter")
        term.wait_for("Bookmarked")
        term.press("ctrl+p")
        term.wait_for("Search for commands")
        term.type("Today")
        term.wait_for("Today's note")
        term.press("enter")
        term.wait_for("Created today's note", 60)
        term.wait_for(today.isoformat())  # the reader shows the new note
        term.press("ctrl+q")
        code = term.wait_exit()
    finally:
        term.close()
    assert code == 0
    assert "Traceback" not in term.output()
    items = json.loads((root / ".obsidian/bookmarks.json").read_text(encoding="utf-8"))["items"]
    assert [(i["type"], i["path"]) for i in items] == [("file", "Readme.md")]
    assert daily.is_file() and daily.read_text(encoding="utf-8") == ""  # no frontmatter of ours
