"""Issue 30 in the installed app on a public vault: a note with an embed, its properties
panel, then its local graph, in a real pty (skipped where the vault is not on the machine).

obsidian-secops' `secopskb` vault (4.4k notes, `.obsidian/`) embeds a workspace note under
each tool page (`![[workspaces/tools/S1209-quick_assist-note]]`) that the vault does not
ship: the frame must say so where the embed is, not fail or show nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.terminal import browser

VAULT = Path("/work/vaults/obsidian-secops/secopskb")

pytestmark = pytest.mark.skipif(not VAULT.is_dir(), reason="public vault not on this machine")


def _notes_only(folder: str, names: list[str]) -> set[str]:
    """Copy the notes and Obsidian's settings, not the images (the test reads text)."""
    if Path(folder).name == ".obsidian":
        return set()
    return {n for n in names if not n.endswith(".md") and not (Path(folder) / n).is_dir()}


def test_public_vault_note_with_an_embed_and_its_graph(tmp_path: Path) -> None:
    root = tmp_path / "secopskb"
    shutil.copytree(VAULT, root, ignore=_notes_only)
    term = browser(root, tmp_path / "home", 140, 40)
    try:
        term.wait_for("files", 180)
        term.press("ctrl+o")
        term.type("quick_assist")
        term.wait_for("kb/tools/quick_assist.md")
        term.press("enter")
        term.wait_for("Quick Assist")
        term.press("m")
        term.wait_for("Properties")
        term.press("\x1b[6~")  # Page Down: the embed sits under the Workspace heading
        term.wait_for("not exist")  # the embed's frame says its note is missing
        term.press("v")
        term.wait_for("linked notes", 60)
        term.wait_for("→ attack/index")  # notes of one name are told apart by their folder
        term.press("right")
        term.wait_for("Move")
        term.press("escape")
        term.wait_for("Uses Techniques")  # back in the reader, where it was
        term.press("ctrl+q")
        code = term.wait_exit()
    finally:
        term.close()
    assert code == 0
    assert "Traceback" not in term.output()
