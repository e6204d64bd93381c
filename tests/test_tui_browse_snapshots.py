"""Snapshots (80×24) of the browsing dialogs of issue 29: the bookmarks list, the bookmark
choices, the history list, the tag tree and the template picker, on a small vault at
`<tmp>/ws` (the header shows `ws`), the watcher off."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from reme_tui.app.browser import RemeApp
from tests.test_tui_browse_views import VAULT
from tests.test_tui_snapshots import _settle

SIZE = (80, 24)

BOOKMARKS = {
    "items": [
        {"type": "file", "ctime": 1, "path": "Alpha.md"},
        {
            "type": "group",
            "ctime": 2,
            "title": "Work",
            "items": [
                {"type": "file", "ctime": 3, "path": "Beta.md", "subpath": "#Part two"},
                {"type": "folder", "ctime": 4, "path": "Journal"},
            ],
        },
        {"type": "search", "ctime": 5, "query": "tag:#project", "title": "Projects"},
        {"type": "url", "ctime": 6, "url": "https://obsidian.md/", "title": "Obsidian"},
        {"type": "graph", "ctime": 7},
    ]
}


def _vault(make_tree: Callable[[dict[str, str | bytes]], Path]) -> RemeApp:
    files = {**VAULT, ".obsidian/bookmarks.json": json.dumps(BOOKMARKS, indent=2)}
    return RemeApp(make_tree(files), watch=False)


async def _opened(pilot: Pilot, path: str) -> None:
    await _settle(pilot)
    pilot.app.main.navigator.open_path(path)
    await _settle(pilot)
    pilot.app.main.focus_reader()
    await _settle(pilot)


def test_snapshot_bookmarks_list(make_tree, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _opened(pilot, "Alpha.md")
        await pilot.press("B")
        await _settle(pilot)

    assert snap_compare(_vault(make_tree), terminal_size=SIZE, run_before=run_before)


def test_snapshot_bookmark_choices(make_tree, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _opened(pilot, "Beta.md")
        await pilot.press("ctrl+b")
        await _settle(pilot)

    assert snap_compare(_vault(make_tree), terminal_size=SIZE, run_before=run_before)


def test_snapshot_history(make_tree, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        for path in ("Alpha.md", "Gamma.md", "Beta.md"):
            await _opened(pilot, path)
        await pilot.press("H")
        await _settle(pilot)

    assert snap_compare(_vault(make_tree), terminal_size=SIZE, run_before=run_before)


def test_snapshot_tag_tree(make_tree, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _opened(pilot, "Alpha.md")
        pilot.app.main.action_tag_tree()
        await _settle(pilot)
        await pilot.press("down", "right", "down", "right")  # #project, then #alpha, open
        await _settle(pilot)

    assert snap_compare(_vault(make_tree), terminal_size=SIZE, run_before=run_before)


def test_snapshot_template_picker(make_tree, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _opened(pilot, "Alpha.md")
        await pilot.press("n")
        await _settle(pilot)

    assert snap_compare(_vault(make_tree), terminal_size=SIZE, run_before=run_before)
