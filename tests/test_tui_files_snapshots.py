"""Snapshots of the Files pane (issue 29) at 80×24, where it shares the left column with
search, and at 160×45 beside every pane, filtered; the open note is revealed in both."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from reme_tui.app.browser import RemeApp
from tests.test_tui_snapshots import _settle


async def _tree_with_open_note(pilot: Pilot, typed: str = "") -> None:
    app = pilot.app
    assert isinstance(app, RemeApp)
    await _settle(pilot)
    app.main.navigator.open_path("digest/wiki/bm25.md")
    await _settle(pilot)
    await pilot.press("ctrl+e")
    await _settle(pilot)
    if typed:
        await pilot.press(*typed)
        await _settle(pilot)


def test_snapshot_files_tree_80x24(demo_copy: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _tree_with_open_note(pilot)

    app = RemeApp(demo_copy, watch=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_snapshot_files_tree_filtered_160x45(demo_copy: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _tree_with_open_note(pilot, "ra")

    app = RemeApp(demo_copy, watch=False)
    assert snap_compare(app, terminal_size=(160, 45), run_before=run_before)
