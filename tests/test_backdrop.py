"""A dialog's dimmed backdrop is the screen beneath, taken once per dialog and size: what
changes beneath while it is open is not drawn again through the tint on every frame."""

from __future__ import annotations

from pathlib import Path

from reme_tui.app.browser import RemeApp
from reme_tui.screens.file_ops import NewNoteScreen
from tests.helpers import settle, until

NOTE = "digest/wiki/bm25.md"


async def test_a_dialog_takes_its_backdrop_once_and_again_after_a_resize(
    indexed_demo: Path,
) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.main.navigator.open_path(NOTE)
        await settle(pilot)
        app.main.focus_reader()
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NewNoteScreen), "the new-note dialog")
        await settle(pilot)
        backdrop = app.screen._backdrop
        assert backdrop is not None and backdrop.below is app.main
        taken = backdrop._strips
        assert len(taken) == 30
        assert "reme" in taken[0].text  # the header beneath, dimmed
        app.main.status.update_state(activity="changed beneath")  # the screen beneath redraws
        await settle(pilot)
        assert backdrop._strips is taken
        await pilot.resize_terminal(120, 40)
        # taken again once the screen beneath is laid out at the new size
        await until(pilot, lambda: len(backdrop._strips) == 40, "the backdrop at 40 rows")
        assert all(strip.cell_length == 120 for strip in backdrop._strips)
