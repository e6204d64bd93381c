"""The installed browser's Files pane on a public Obsidian vault, in a real pty (issue 29):
open the tree with Ctrl+E, type to filter it down to one note, Enter opens it in the reader.

The vault is Pokerole-Obsidian-SRD (4.9k notes, names with spaces, `.obsidian/`), copied
from `$REME_VAULTS` (default `benchmarks/.vaults/`) or `/work/vaults/`; skipped when absent.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.terminal import Terminal, browser_env

VAULT = "Pokerole-Obsidian-SRD"
CTRL_E = "\x05"


def public_vault(name: str) -> Path | None:
    base = Path(os.environ.get("REME_VAULTS", Path(__file__).parents[1] / "benchmarks/.vaults"))
    for folder in (base / name, Path("/work/vaults") / name):
        if folder.is_dir():
            return folder
    return None


def test_the_tree_filters_to_a_note_of_a_public_vault_and_opens_it(tmp_path: Path) -> None:
    source = public_vault(VAULT)
    if source is None:
        pytest.skip(f"{VAULT} is not under benchmarks/.vaults/ or /work/vaults/")
    root = tmp_path / VAULT
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".git", ".reme-tui"))
    term = Terminal(
        [sys.executable, "-m", "reme_tui", str(root)],
        env=browser_env(tmp_path / "home"),
        columns=120,
        lines=36,
    )
    try:
        term.wait_for("files", 600)  # the header's counts: the vault is indexed
        term.press(CTRL_E)
        term.wait_for("type to filter", 60)
        term.wait_for("▸ Pokerole SRD")  # its top folders, closed, with their counts
        term.type("pikachu v2")
        term.wait_for("pikachu v2▏ 1 note")
        term.wait_for("SRD-Pikachu-v2.0")
        term.press("enter")
        term.wait_for("Ability1: Static")  # the note's text in the reader
        term.press("ctrl+q")
        code = term.wait_exit()
    finally:
        term.close()
    assert code == 0
    assert "Traceback" not in term.output()
