"""Snapshots of the main views at a fixed size (pytest-textual-snapshot).

The demo copy sits at `<tmp>/demo`, so the header shows `demo`, never an absolute path;
the watcher is off and search timings hidden so every run draws the same screen.
"""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from reme_tui.app.browser import RemeApp
from reme_tui.widgets.reader.note_view import NoteView
from tests.helpers import retake_backdrop, settle, until

SIZE = (140, 40)


async def _settle(pilot: Pilot) -> None:
    """Wait for the typing timer and the workers, and stop text cursors blinking (a blink is
    not a difference)."""
    await settle(pilot)
    await until(pilot, lambda: _wrapped_to_width(pilot.app), "the reader wrapped to its width")
    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
    await pilot.pause()
    await retake_backdrop(pilot)


def _wrapped_to_width(app: RemeApp) -> bool:
    """Every shown note view has handled its last resize: its rows are wrapped for the width
    it has now (a snapshot taken between a layout and that resize drew 8-column rows)."""
    for view in app.screen.query(NoteView):
        width = view.scrollable_content_region.width
        if width and view._texts and view._wrap_width != max(8, width - view._gutter):
            return False
    return True


def _app(indexed_demo: Path) -> RemeApp:
    return RemeApp(indexed_demo, watch=False)


def test_snapshot_search_results(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        pilot.app.main.search_pane.show_timing = False
        await _settle(pilot)
        await pilot.press(*"bm25 idf")
        await _settle(pilot)

    assert snap_compare(_app(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_reader_range_and_neighbours(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        pilot.app.main.search_pane.show_timing = False
        await _settle(pilot)
        await pilot.press(*"bm25 idf")
        await _settle(pilot)
        await pilot.press("enter", "enter")
        await _settle(pilot)

    assert snap_compare(_app(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_palette(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"index")
        await _settle(pilot)

    assert snap_compare(_app(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_rename_preview(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _settle(pilot)
        pilot.app.main.navigator.open_path("daily/2026-06-15/retrieval-regression.md")
        await _settle(pilot)
        pilot.app.main.focus_reader()
        await pilot.press("r")
        await _settle(pilot)
        pilot.app.screen.query_one("#dst", Input).value = "digest/wiki/retrieval-regression.md"
        await _settle(pilot)

    assert snap_compare(_app(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_narrow_hides_links(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        pilot.app.main.search_pane.show_timing = False
        await _settle(pilot)
        await pilot.press(*"recall regression")
        await _settle(pilot)
        await pilot.press("enter", "enter")
        await _settle(pilot)

    assert snap_compare(_app(indexed_demo), terminal_size=(100, 30), run_before=run_before)
