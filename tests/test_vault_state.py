"""Where derived state lives, what a vault keeps out, and which workspace a folder means.

A vault's own `metadata/` folder is notes (the index hides in `.reme-tui/`), its `.gitignore`
and `reme.yaml`'s `exclude:` keep files out, and `reme-tui` run in a subfolder finds the
workspace above it as git finds its repository. Real folders and the installed CLI.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

from reme_core import Workspace, discover
from reme_tui.text.opening import warning_line
from tests.conftest import write_files
from tests.helpers import REME_TUI

VAULT = {
    "Home.md": "# Home\n\nSee [[Plans]] and [[metadata/Schema notes]].\n",
    "Plans.md": "# Plans\n\nA garden of polysilicon notes.\n",
    "metadata/Schema notes.md": "# Schema notes\n\nThe user's own metadata folder: zeolite.\n",
    "drafts/Secret.md": "# Secret\n\nUnfinished zeolite idea.\n",
    "Templates/Daily.md": "# {{date}}\n\nzeolite template\n",
    "Board.excalidraw.md": "# Drawing\n\nzeolite drawing\n",
}


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "REME_WORKSPACE"}
    return subprocess.run(
        [*REME_TUI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env
    )


def test_a_vaults_metadata_folder_is_notes_and_the_index_is_hidden(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    ws = Workspace.open(root)
    assert ws.state_dir == root / ".reme-tui"
    assert (root / ".reme-tui" / "index.sqlite").is_file()
    assert (root / ".reme-tui" / ".gitignore").read_text().strip().endswith("*")
    assert "metadata/Schema notes.md" in ws.files()
    assert not (root / "metadata" / "index.sqlite").exists()
    hits = [h.path for h in ws.search("zeolite", limit=10, expand_links=False).results]
    assert "metadata/Schema notes.md" in hits
    ws.close()


def test_memory_mode_keeps_remes_metadata_folder(tmp_path: Path) -> None:
    root = write_files(tmp_path / "memory", {"daily/2026-06-01.md": "# Day\n\nwafer\n"})
    ws = Workspace.open(root)
    assert ws.state_dir == root / "metadata"
    assert (root / "metadata" / "index.sqlite").is_file()
    ws.close()


def test_an_old_vault_index_in_metadata_is_moved_with_a_message(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", {"Home.md": "# Home\n\nwafer\n"})
    ws = Workspace.open(root)
    ws.close()
    # Lay it out as versions before the hidden folder did: the index in metadata/.
    (root / "metadata").mkdir()
    for name in ("index.sqlite", "bm25-postings.npz"):
        if (root / ".reme-tui" / name).exists():
            os.replace(root / ".reme-tui" / name, root / "metadata" / name)
    for leftover in (root / ".reme-tui").iterdir():
        leftover.unlink()
    (root / ".reme-tui").rmdir()
    ws = Workspace.open(root)
    assert any("moved the index from metadata/" in w for w in map(warning_line, ws.warnings)), (
        ws.warnings
    )
    assert not (root / "metadata").exists()  # emptied, so removed
    assert ws.last_reindex is None  # moved, not rebuilt
    assert ws.files() == ["Home.md"]
    ws.close()


def test_a_users_own_metadata_database_is_left_alone(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", {"Home.md": "# Home\n"})
    (root / "metadata").mkdir()
    conn = sqlite3.connect(root / "metadata" / "index.sqlite")
    conn.execute("CREATE TABLE books (title TEXT)")
    conn.commit()
    conn.close()
    before = (root / "metadata" / "index.sqlite").read_bytes()
    ws = Workspace.open(root)
    assert (root / "metadata" / "index.sqlite").read_bytes() == before
    assert not any("moved" in w for w in map(warning_line, ws.warnings))
    ws.close()


def test_gitignore_and_exclude_keep_files_out_live_too(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    (root / ".gitignore").write_text("drafts/\n")
    (root / "reme.yaml").write_text('exclude: ["Templates/", "*.excalidraw.md"]\n')
    ws = Workspace.open(root)
    files = ws.files()
    assert "drafts/Secret.md" not in files
    assert "Templates/Daily.md" not in files
    assert "Board.excalidraw.md" not in files
    assert {"Home.md", "Plans.md", "metadata/Schema notes.md"} <= set(files)
    # The watcher's scope says the same, so a live edit there is not taken either.
    assert not ws.watch_scope.covers("drafts/New.md")
    assert ws.watch_scope.covers("Notes/New.md")
    ws.close()


def test_discovery_walks_up_and_says_so(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    (root / ".obsidian").mkdir()
    deep = root / "drafts"
    assert discover(deep).path == root.resolve() and discover(deep).how == "above"
    proc = _run(deep, "search", "polysilicon", "--no-links")
    assert proc.returncode == 0, proc.stderr
    assert "Plans.md" in proc.stdout
    assert f"workspace {root.resolve()}" in proc.stderr
    assert not (deep / ".reme-tui").exists()  # no second, nested index


def test_remes_default_folder_is_a_workspace(tmp_path: Path) -> None:
    home = tmp_path / "project"
    write_files(home / ".reme", {"daily/2026-06-01.md": "# Day\n\nwafer tripled\n"})
    assert discover(home).path == (home / ".reme").resolve()
    proc = _run(home, "search", "wafer", "--no-links")
    assert proc.returncode == 0, proc.stderr
    assert "daily/2026-06-01.md" in proc.stdout
    assert "ReMe's default folder" in proc.stderr


def test_a_nested_index_is_never_made_silently(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    assert _run(root, "stats").returncode == 0
    proc = _run(root, "stats", "-w", "drafts")
    assert proc.returncode == 0
    assert "lies inside the workspace" in proc.stderr and str(root.resolve()) in proc.stderr


def test_a_new_note_may_go_in_a_vaults_metadata_folder(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", {"Home.md": "# Home\n"})
    ws = Workspace.open(root)
    ws.create("metadata/Fields.md", "Fields", "the user's own metadata notes")
    assert "metadata/Fields.md" in ws.files()
    ws.close()
