"""Derived state is data, never a path to follow (issue 26): a workspace that arrives by
`git clone` may ship anything in its state folder and anything named like our temp files.
Each test crafts that workspace for real (symlinks, FIFOs, journals written by hand), then
runs the real `reme-tui` command on it, as a user opening a stranger's workspace would.

Each must hold: nothing written or truncated outside the workspace, no note replaced or lost,
no command hanging, and the workspace still usable, with one line saying what was refused.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from reme_core import Workspace
from reme_core.edit.journal_files import temp_name

FILES = {
    "daily/a.md": "# Alpha\n\nalpha note about gardens\n",
    "daily/b.md": "# Bravo\n\nbravo note [[daily/a.md]]\n",
    "digest/c.md": "# Charlie\n\ncharlie note [[daily/b.md]]\n",
}
OP_ID = "0123456789ab"
PRECIOUS = b"the user's own file, outside the workspace\n"
MakeTree = Callable[[dict[str, str | bytes]], Path]


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`reme-tui ARGS` in a child; a hang ends as TimeoutExpired (the child is killed)."""
    return subprocess.run(
        [sys.executable, "-m", "reme_tui", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def indexed(make_tree: MakeTree) -> tuple[Path, Path]:
    """An indexed memory-mode workspace: (root, its state folder)."""
    root = make_tree(dict(FILES))
    ws = Workspace.open(root)
    state = ws.state_dir
    ws.close()
    return root, state


def outside(tmp_path: Path) -> Path:
    """A folder outside the workspace holding one precious file."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "victim.txt").write_bytes(PRECIOUS)
    return folder


def listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def notes(root: Path) -> dict[str, bytes]:
    return {rel: (root / rel).read_bytes() for rel in FILES if (root / rel).is_file()}


def journal(state: Path, record: dict[str, object], commit: bool = True) -> None:
    """A journal of an interrupted operation, as a crafted workspace ships it."""
    folder = state / "journal"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{OP_ID}.json").write_text(json.dumps(record))
    if commit:
        (folder / f"{OP_ID}.commit").write_bytes(b"")


def move_record(files: list[str]) -> dict[str, object]:
    return {
        "version": 1,
        "id": OP_ID,
        "pid": 1,
        "kind": "move",
        "label": "move daily/a.md -> daily/z.md",
        "info": {"src": "daily/a.md", "dst": "daily/z.md", "undo": OP_ID},
        "files": [{"path": p, "temp": temp_name(p, OP_ID, n)} for n, p in enumerate(files)],
        "renames": [],
    }


# -- interrupted-move recovery, run at every open ---------------------------------------------
@pytest.mark.parametrize("command", [["search", "bravo"], ["stats"], ["links", "daily/a.md"]])
def test_a_symlinked_temp_file_of_a_journal_is_never_written_through(
    make_tree: MakeTree, tmp_path: Path, command: list[str]
) -> None:
    """The journal says the replace phase began and names a temp file beside `daily/b.md`;
    the workspace ships that temp as a symlink to a file outside. Finishing the move would
    write the note's new bytes into the outside file, then put the symlink in the note's
    place."""
    root, state = indexed(make_tree)
    victim_dir = outside(tmp_path)
    before = notes(root)
    journal(state, move_record(["daily/b.md"]))
    temp = root / temp_name("daily/b.md", OP_ID, 0)
    temp.symlink_to(victim_dir / "victim.txt")

    proc = cli(*command, "-w", str(root))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert listing(victim_dir) == {"victim.txt": PRECIOUS}
    assert stat.S_ISREG((root / "daily/b.md").lstat().st_mode)
    assert notes(root) == before
    lines = [line for line in proc.stderr.splitlines() if "journal" in line]
    assert len(lines) == 1 and "refused" in lines[0] and "symbolic link" in lines[0], proc.stderr
    assert "rolled back, every file is as it was" not in proc.stderr
    again = cli(*command, "-w", str(root))  # said once: the journal is set aside
    assert again.returncode == 0 and "journal" not in again.stderr, again.stderr


def test_a_symlinked_copy_of_a_rollback_is_never_read(make_tree: MakeTree, tmp_path: Path) -> None:
    """A journal killed while rolling back puts old bytes back from its copies: a copy that is
    a symlink to a file outside would copy that file into the note."""
    root, state = indexed(make_tree)
    victim_dir = outside(tmp_path)
    before = notes(root)
    journal(state, move_record(["daily/b.md"]))
    (state / "journal" / f"{OP_ID}.abort").write_bytes(b"")
    (state / "journal" / OP_ID).mkdir()
    (state / "journal" / OP_ID / "0").symlink_to(victim_dir / "victim.txt")

    proc = cli("search", "bravo", "-w", str(root))
    assert proc.returncode == 0, proc.stderr
    assert notes(root) == before
    assert PRECIOUS not in (root / "daily/b.md").read_bytes()
    assert "refused" in proc.stderr


def test_a_rename_onto_a_symlink_of_the_note_loses_nothing(make_tree: MakeTree) -> None:
    """A journal's rename from a note to a symlink that points at that same note: dropping
    the "second name" of a half-done rename would delete the note itself."""
    root, state = indexed(make_tree)
    before = notes(root)
    record = move_record([])
    record["renames"] = [["daily/a.md", "daily/alias.md"]]
    journal(state, record)
    (root / "daily/alias.md").symlink_to("a.md")

    proc = cli("search", "alpha", "-w", str(root))
    assert proc.returncode == 0, proc.stderr
    assert notes(root) == before


def test_a_fifo_named_like_a_journal_hangs_nothing(make_tree: MakeTree) -> None:
    root, state = indexed(make_tree)
    (state / "journal").mkdir()
    os.mkfifo(state / "journal" / f"{OP_ID}.json")
    proc = cli("search", "bravo", "-w", str(root), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "daily/b.md" in proc.stdout
    assert "FIFO" in proc.stderr


# -- the undo folder --------------------------------------------------------------------------
def test_a_symlinked_undo_lock_is_never_truncated(make_tree: MakeTree, tmp_path: Path) -> None:
    root, state = indexed(make_tree)
    victim_dir = outside(tmp_path)
    (state / "undo").mkdir()
    (state / "undo" / ".lock").symlink_to(victim_dir / "victim.txt")
    edits = (["delete", "--yes", "digest/c.md"], ["undo"], ["move", "daily/a.md", "daily/z.md"])
    for args in edits:
        proc = cli(*args, "-w", str(root))
        assert proc.returncode == 0, proc.stderr
        assert listing(victim_dir) == {"victim.txt": PRECIOUS}, args
    assert (root / "digest/c.md").read_text() == FILES["digest/c.md"]
    assert (root / "daily/z.md").is_file()


@pytest.mark.parametrize("which", ["undo", "journal", "state"])
def test_a_symlinked_state_folder_gets_no_file(
    make_tree: MakeTree, tmp_path: Path, which: str
) -> None:
    """`undo/`, `journal/` or the state folder itself as a symlink to a folder outside: a
    move, a delete and an undo create nothing there."""
    root, state = indexed(make_tree)
    victim_dir = outside(tmp_path)
    link = state if which == "state" else state / which
    if which == "state":
        for child in state.iterdir():
            (child.unlink() if child.is_file() else os.rmdir(child))
        state.rmdir()
    link.symlink_to(victim_dir, target_is_directory=True)
    edits = (["move", "daily/a.md", "daily/z.md"], ["delete", "--yes", "digest/c.md"], ["undo"])
    seen: list[str] = []
    for args in edits:
        proc = cli(*args, "-w", str(root))
        seen.extend(proc.stderr.splitlines())
        assert "Traceback" not in proc.stderr and "unexpected" not in proc.stderr, proc.stderr
        assert listing(victim_dir) == {"victim.txt": PRECIOUS}, (args, proc.stderr)
    # the state folder itself stays (the index is in memory); a link inside it is removed,
    # said once, and a real folder made in its place
    assert link.is_symlink() == (which == "state")
    said = [line for line in seen if "was a symbolic link; removed it" in line]
    assert len(said) == (which != "state"), seen
    # nothing lost: every note is where it is, in the trash or moved
    assert (root / "daily/b.md").is_file()
    assert (root / "daily/a.md").is_file() or (root / "daily/z.md").is_file()
    assert (root / "digest/c.md").is_file() or (root / ".trash/digest/c.md").is_file()


@pytest.mark.parametrize("name", ["last.json", ".lock"])
def test_a_fifo_in_the_undo_folder_hangs_nothing(make_tree: MakeTree, name: str) -> None:
    root, state = indexed(make_tree)
    (state / "undo").mkdir()
    os.mkfifo(state / "undo" / name)
    for args in (["delete", "--yes", "digest/c.md"], ["undo"]):
        proc = cli(*args, "-w", str(root), timeout=60)
        assert proc.returncode == 0, (args, proc.stderr)
    assert (root / "digest/c.md").read_text() == FILES["digest/c.md"]


def test_a_symlinked_trash_folder_never_takes_a_note_out(
    make_tree: MakeTree, tmp_path: Path
) -> None:
    """`.trash/digest` shipped as a symlink to a folder outside: a delete would move the note
    out of the workspace."""
    root, _ = indexed(make_tree)
    victim_dir = outside(tmp_path)
    (root / ".trash").mkdir()
    (root / ".trash" / "digest").symlink_to(victim_dir, target_is_directory=True)
    proc = cli("delete", "--yes", "digest/c.md", "-w", str(root))
    assert listing(victim_dir) == {"victim.txt": PRECIOUS}
    assert (root / "digest/c.md").read_text() == FILES["digest/c.md"]
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_a_vault_state_gitignore_symlink_is_never_written_through(
    make_tree: MakeTree, tmp_path: Path
) -> None:
    root = make_tree({"notes/a.md": "# Alpha\n\nalpha\n", ".obsidian/app.json": "{}"})
    victim_dir = outside(tmp_path)
    state = root / ".reme-tui"
    state.mkdir()
    (state / ".gitignore").symlink_to(victim_dir / "new-file")
    proc = cli("search", "alpha", "-w", str(root))
    assert proc.returncode == 0, proc.stderr
    assert "notes/a.md" in proc.stdout
    assert listing(victim_dir) == {"victim.txt": PRECIOUS}


def test_a_fifo_in_the_trash_named_by_the_undo_record_hangs_nothing(make_tree: MakeTree) -> None:
    root, state = indexed(make_tree)
    (root / ".trash").mkdir()
    os.mkfifo(root / ".trash" / "gone.md")
    (state / "undo").mkdir()
    record = {"version": 1, "op": "delete", "path": "gone.md", "trash": ".trash/gone.md"}
    (state / "undo" / "last.json").write_text(json.dumps({**record, "sha256": "0" * 64}))
    proc = cli("undo", "-w", str(root), timeout=60)
    assert proc.returncode != 0 and "FIFO" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (root / "gone.md").exists()
