"""`Workspace.note_times` (what the files tree lists and sorts by) and `Workspace.make_folder`
(its New folder), on real workspaces (issue 29)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from reme_core import PathRefused, Workspace

FILES: dict[str, str | bytes] = {
    "daily/2026-06-10.md": "# day\n",
    "digest/wiki/bm25.md": "# BM25\n",
    "inbox.md": "# inbox\n",
}


@contextmanager
def opened(root: Path) -> Iterator[Workspace]:
    ws = Workspace.open(root)
    try:
        yield ws
    finally:
        ws.close()


def test_note_times_lists_every_indexed_note_with_its_mtime(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(FILES)
    os.utime(root / "daily/2026-06-10.md", (1_000_000, 1_000_000))
    with opened(root) as ws:  # memory mode: a note outside ReMe's layers is not indexed
        times = ws.note_times()
        assert sorted(times) == ws.files() == ["daily/2026-06-10.md", "digest/wiki/bm25.md"]
        assert times["daily/2026-06-10.md"] == pytest.approx(1_000_000)
        (root / "digest/wiki/bm25.md").unlink()
        (root / "daily/new.md").write_text("# new\n", "utf-8")
        ws.sync()
        times = ws.note_times()
        assert "digest/wiki/bm25.md" not in times and "daily/new.md" in times
        assert ws.note_times(["daily/new.md", "gone.md"]) == {"daily/new.md": times["daily/new.md"]}


def test_note_times_of_a_vault_leave_out_what_it_excludes(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree({**FILES, ".obsidian/app.json": "{}", "drafts/x.md": "# x\n"})
    (root / ".gitignore").write_text("drafts/\n", "utf-8")
    with opened(root) as ws:
        assert "drafts/x.md" not in ws.note_times()
        assert set(ws.note_times()) == set(FILES)


def test_make_folder_makes_it_and_refuses_what_a_new_note_path_refuses(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(FILES)
    with opened(root) as ws:
        assert ws.make_folder("digest/topics/2026/") == "digest/topics/2026"
        assert (root / "digest/topics/2026").is_dir()
        for bad in ("../outside", "digest/wiki", "inbox.md", "a[b]", ".hidden", "metadata/x"):
            with pytest.raises(PathRefused):
                ws.make_folder(bad)
        assert not (root.parent / "outside").exists()
        assert not (root / "a[b]").exists() and not (root / ".hidden").exists()
