"""The keys-and-help panel keeps its drawn table of keys between openings (issue 32, item 2),
and still shows the keys of whatever has the focus."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import HelpPanel

from reme_tui.app.browser import RemeApp
from reme_tui.widgets import keys_help
from reme_tui.widgets.keys_help import KeysTable
from tests.helpers import settle, until

NOTE = "digest/wiki/bm25.md"


def _table_text(app: RemeApp) -> str:
    table = app.screen.query_one(KeysTable)
    return "\n".join(strip.text for strip in table.render_lines(table.size.region))


async def _help_shown(pilot: Pilot) -> RemeApp:
    """A note open in the reader, which has the focus, and the help panel shown."""
    app = pilot.app
    assert isinstance(app, RemeApp)
    await settle(pilot)
    app.main.navigator.open_path(NOTE)
    await settle(pilot)
    app.main.focus_reader()
    await pilot.pause()
    app.action_show_help_panel()
    await settle(pilot)
    return app


async def test_a_second_opening_draws_no_table(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await _help_shown(pilot)
        assert app.screen.query(HelpPanel)
        assert "Follow" in _table_text(app)  # the reader's keys
        kept = dict(keys_help._drawn)
        app.action_hide_help_panel()
        await settle(pilot)
        app.action_show_help_panel()
        await settle(pilot)
        assert "Follow" in _table_text(app)
        assert keys_help._drawn.keys() == kept.keys(), "the same keys were drawn again"
        assert all(keys_help._drawn[k] is kept[k] for k in kept)


async def test_the_table_follows_the_focus(indexed_demo: Path) -> None:
    """The kept lines are the shown keys': another pane's keys show when it takes the focus."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await _help_shown(pilot)
        assert "Follow" in _table_text(app)
        app.main.search_pane.query_one("#query").focus()
        await until(pilot, lambda: "Follow" not in _table_text(app), "the search box's keys")


async def test_the_same_keys_announced_again_rebuild_nothing(indexed_demo: Path) -> None:
    """An announcement of the screen's bindings with the same keys keeps the panel's table
    (the stock panel rebuilt it, and the screen laid out again)."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await _help_shown(pilot)
        table = app.screen.query_one(KeysTable)
        app.screen.refresh_bindings()
        await settle(pilot)
        assert app.screen.query_one(KeysTable) is table
