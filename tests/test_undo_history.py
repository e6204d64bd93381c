"""Undo walks back (issue 27, smaller items): each `undo` reverts one more delete or move,
newest first, across processes; and an undo removes the folders its operation made."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reme_core import UndoRefused, Workspace
from reme_core.edit.undo_history import MAX_STEPS

FILES = {
    "daily/a.md": "# Alpha\n\nalpha [[daily/b.md]]\n",
    "daily/b.md": "# Bravo\n\nbravo [[daily/a.md]]\n",
    "digest/c.md": "# Charlie\n\ncharlie [[daily/b.md]]\n",
}


def tree(root: Path) -> dict[str, bytes]:
    """Every file and folder outside the state folder (the trash included)."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else b"<dir>")
        for p in sorted(root.rglob("*"))
        if p.relative_to(root).parts[0] != "metadata"
    }


def undo_cli(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reme_tui", "undo", "-w", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_repeated_undo_walks_back_every_step(make_tree) -> None:
    root = make_tree(dict(FILES))
    ws = Workspace.open(root)
    start = tree(root)
    ws.move("daily/b.md", "odd/sub/b.md")  # makes odd/ and odd/sub/
    after_move = tree(root)
    ws.delete("digest/c.md")  # makes .trash/ and .trash/digest/
    after_delete = tree(root)
    ws.move("daily/a.md", "daily/a2.md")
    ws.close()

    got = [undo_cli(root) for _ in range(3)]  # each its own process, newest first
    assert [p.returncode for p in got] == [0, 0, 0], [p.stderr for p in got]
    assert got[0].stdout.startswith("moved daily/a2.md back to daily/a.md")
    assert got[1].stdout.startswith("restored digest/c.md from .trash/digest/c.md")
    assert got[2].stdout.startswith("moved odd/sub/b.md back to daily/b.md")
    assert tree(root) == start  # every byte, and no folder left behind (.trash/, odd/sub/)
    assert after_move != start and after_delete != after_move

    last = undo_cli(root)
    assert last.returncode == 1 and "nothing to undo" in last.stderr


def test_after_an_undo_the_step_before_is_next(make_tree) -> None:
    root = make_tree(dict(FILES))
    ws = Workspace.open(root)
    try:
        ws.delete("digest/c.md")
        ws.delete("daily/a.md")
        assert ws.undo().path == "daily/a.md"
        ws.move("daily/b.md", "daily/b2.md")  # a new step on top of the older delete
        assert ws.undo().source == "daily/b2.md"
        assert ws.undo().path == "digest/c.md"
        with pytest.raises(UndoRefused, match="nothing to undo"):
            ws.undo()
        assert not (root / ".trash").exists()
    finally:
        ws.close()


def test_a_permanent_delete_ends_the_history(make_tree) -> None:
    root = make_tree(dict(FILES))
    ws = Workspace.open(root)
    try:
        ws.delete("digest/c.md")
        ws.delete("daily/a.md", permanent=True)
        for _ in range(2):
            with pytest.raises(UndoRefused, match="was permanent"):
                ws.undo()
        assert (root / ".trash/digest/c.md").is_file()  # still in the trash, by hand
    finally:
        ws.close()


def test_the_history_keeps_the_newest_steps(make_tree) -> None:
    root = make_tree(dict(FILES))
    ws = Workspace.open(root)
    try:
        for i in range(MAX_STEPS + 3):
            ws.write(f"daily/n{i}.md", content=f"note {i}\n")
            ws.delete(f"daily/n{i}.md")
        for i in reversed(range(3, MAX_STEPS + 3)):
            assert ws.undo().path == f"daily/n{i}.md"
        with pytest.raises(UndoRefused, match="nothing to undo"):
            ws.undo()
        assert sorted(p.name for p in (root / ".trash/daily").iterdir()) == [
            "n0.md",
            "n1.md",
            "n2.md",
        ]
    finally:
        ws.close()
