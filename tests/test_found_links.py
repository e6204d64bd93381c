"""A vault's links as found, kept with the snapshot: a warm open resolves nothing and walks
nothing before the first screen, and what changed while it was closed is found after."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from reme_core import Workspace
from reme_core.index.snapshot import SNAPSHOT_NAME
from tests.helpers import parts

VAULT: dict[str, str | bytes] = {
    ".obsidian/app.json": "{}",
    "a/Note.md": "# Note\n\nalpha\n",
    "b/Note.md": "# Near note\n\nbeta\n",
    "b/sub/x.md": "[[Note]] [[Other]] ![[pic.png]] ![[later.png]] [[Missing]]\n",
    "b/sub/Other.md": "other\n",
    "img/pic.png": b"\x89PNG\r\n\x1a\n",
}


def inlinks(ws: Workspace, path: str) -> set[str]:
    """The graph's sources of links to ``path`` (a note or any other file)."""
    return {link.source_path for link in parts(ws).live.memory.graph.inlinks(path)}


def graph(ws: Workspace) -> dict[str, set[str]]:
    return {p: inlinks(ws, p) for p in ("a/Note.md", "b/Note.md", "b/sub/Other.md", "img/pic.png")}


def test_warm_open_takes_the_links_as_found(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(VAULT)
    ws = Workspace.open(root)
    assert ws.link_resolution == "obsidian"
    first, dangling = graph(ws), ws.stats().dangling_links
    assert first["b/Note.md"] == {"b/sub/x.md"}  # the nearest folder's Note
    assert first["img/pic.png"] == {"b/sub/x.md"}  # an attachment found by name
    ws.close()
    ws = Workspace.open(root, sync=False)
    try:
        memory = parts(ws).live.memory
        assert memory._resolver is None  # no index of names made: nothing was resolved
        assert memory.attachments_unchecked  # the attachments came from the snapshot
        assert graph(ws) == first
        assert ws.stats().dangling_links == dangling == 2  # Missing, later.png
    finally:
        ws.close()


def test_an_attachment_added_while_closed_is_found_by_the_start_up_diff(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(VAULT)
    Workspace.open(root).close()
    Workspace.open(root).close()  # the snapshot now holds the found links
    (root / "img/later.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    ws = Workspace.open(root, sync=False)
    try:
        assert inlinks(ws, "img/later.png") == set()  # as the snapshot found them
        ws.sync()
        assert inlinks(ws, "img/later.png") == {"b/sub/x.md"}
    finally:
        ws.close()
    ws = Workspace.open(root)  # and the next snapshot keeps it
    try:
        assert inlinks(ws, "img/later.png") == {"b/sub/x.md"}
    finally:
        ws.close()


def test_a_note_removed_while_closed_is_not_found_any_more(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(VAULT)
    Workspace.open(root).close()
    Workspace.open(root).close()
    (root / "b/Note.md").unlink()
    ws = Workspace.open(root)
    try:
        assert inlinks(ws, "a/Note.md") == {"b/sub/x.md"}  # the other Note, now the only one
    finally:
        ws.close()


def test_found_targets_outside_the_vault_are_refused(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """A snapshot from elsewhere naming a path outside the workspace, or a file that is
    neither a note nor an attachment: the links are resolved again, as from the rows."""
    root = make_tree(VAULT)
    Workspace.open(root).close()
    ws = Workspace.open(root)
    expected = graph(ws)
    ws.close()
    snap = root / ".reme-tui" / SNAPSHOT_NAME
    with np.load(snap) as data:
        members = {key: data[key] for key in data.files}
    for extra in (["../../etc/passwd"], ["b/sub/not-there.md"]):
        head = json.dumps({"extra": extra, "attachments": ["img/pic.png"]}).encode()
        members["found_head"] = np.frombuffer(head, dtype=np.uint8)
        n_strings = bytes(members["link_strings"][1:]).count(b"\0") + 1
        # every link finds the extra path (string ids past the link strings are `extra`'s)
        members["found_target"] = np.full_like(members["found_target"], n_strings)
        np.savez(snap, **members)
        ws = Workspace.open(root, sync=False)
        try:
            assert graph(ws) == expected
            assert extra[0] not in {link.target_path for link in ws.outlinks("b/sub/x.md")}
        finally:
            ws.close()


def test_an_edit_after_a_warm_open_resolves_as_a_cold_one(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """The first batch after a warm open takes the snapshot's resolutions in and makes the
    name index then: a changed note's links find what a full resolution finds."""
    from reme_core import Changes

    root = make_tree(VAULT)
    Workspace.open(root).close()
    Workspace.open(root).close()
    ws = Workspace.open(root, sync=False)
    try:
        (root / "b/sub/x.md").write_text("[[Note]] [[Missing]] ![[pic.png]]\n", "utf-8")
        ws.apply(Changes(modified=["b/sub/x.md"]))  # the same notes: resolutions kept
        assert inlinks(ws, "b/Note.md") == {"b/sub/x.md"}
        assert inlinks(ws, "img/pic.png") == {"b/sub/x.md"}
        assert inlinks(ws, "b/sub/Other.md") == set()
        (root / "a/y.md").write_text("[[Note]] ![[pic.png]] [[Other]]\n", encoding="utf-8")
        (root / "b/sub/x.md").write_text("[[Note]] [[Missing]]\n", encoding="utf-8")
        ws.apply(Changes(added=["a/y.md"], modified=["b/sub/x.md"]))
        assert inlinks(ws, "a/Note.md") == {"a/y.md"}  # the nearest folder's Note from a/
        assert inlinks(ws, "b/Note.md") == {"b/sub/x.md"}
        assert inlinks(ws, "img/pic.png") == {"a/y.md"}
        assert inlinks(ws, "b/sub/Other.md") == {"a/y.md"}
    finally:
        ws.close()
