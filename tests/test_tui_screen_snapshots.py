"""A snapshot of every screen and dialog and of the main screen's states (pytest-textual-snapshot).

Each is reached as a person reaches it (keys, the palette's actions) on a copy of the demo
workspace at `<tmp>/demo`, so no absolute path shows; the watcher is off, search timings are
hidden and text cursors do not blink, so every run draws the same screen. The views of the
main screen drawn in `test_tui_snapshots.py` (search results, the reader with a range, the
palette, the rename preview, a narrow terminal) are not repeated here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList

from reme_tui.app.browser import RemeApp
from reme_tui.screens.copy import CopyScreen
from reme_tui.screens.create_note import CreateNoteScreen
from reme_tui.screens.file_ops import DeleteScreen, NewNoteScreen
from reme_tui.screens.tags import TagsScreen
from reme_tui.screens.web_link import OpenWebScreen
from reme_tui.widgets.outline import OutlinePane
from reme_tui.widgets.switcher import SwitcherPalette
from tests.helpers import retake_backdrop, settle, until

SIZE = (140, 40)
NOTE = "daily/2026-06-15/retrieval-regression.md"
# A note of the snapshots' own: a link to a note that does not exist, and a web link.
LINKS_NOTE = "digest/wiki/zz-links.md"
LINKS_TEXT = (
    "# Links\n\nThe plan is in [[Missing idea]].\n\nThe paper: <https://example.org/reme/paper>\n"
)


async def calm(pilot: Pilot) -> None:
    """The app settled, no button in its press effect, and the text cursors still (a blink is
    not a difference)."""
    await settle(pilot)
    buttons = [b for s in pilot.app.screen_stack for b in s.query(Button)]
    await until(pilot, lambda: not any(b.has_class("-active") for b in buttons), "press effects")
    for screen in pilot.app.screen_stack:
        for box in screen.query(Input):
            box.cursor_blink = False
    await pilot.pause()
    await retake_backdrop(pilot)


def browser(root: Path) -> RemeApp:
    """The browser without the watcher, its toasts kept until the snapshot however slow the
    machine (one that timed out would be missing from it)."""
    app = RemeApp(root, watch=False)
    app.NOTIFICATION_TIMEOUT = 600
    return app


async def opened(pilot: Pilot, path: str = NOTE) -> RemeApp:
    """The browser, settled, with `path` open in the reader and the reader in focus."""
    app = pilot.app
    assert isinstance(app, RemeApp)
    app.main.search_pane.show_timing = False
    await calm(pilot)
    app.main.navigator.open_path(path)
    await calm(pilot)
    app.main.focus_reader()
    await calm(pilot)
    return app


async def on_top(pilot: Pilot, kind: type) -> None:
    """Until a screen of this kind is on top (some are pushed from a worker), then settled."""
    await until(pilot, lambda: isinstance(pilot.app.screen, kind), kind.__name__)
    await calm(pilot)


def test_snapshot_start_screen(indexed_demo: Path, snap_compare) -> None:
    """Nothing typed yet: the search box's help with the workspace's own examples."""

    async def run_before(pilot: Pilot) -> None:
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_query_error(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await calm(pilot)
        await pilot.press(*"bm25 after:2026-13-45")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_reader_rendered(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        app = await opened(pilot)
        await pilot.press("m")
        await until(pilot, lambda: app.main.reader.markdown_mode, "the rendered view")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_outline(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        app = await opened(pilot, "digest/wiki/rrf.md")
        await pilot.press("h")
        await until(pilot, lambda: bool(app.query(OutlinePane)), "the outline")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_links_pane_focused(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        app = await opened(pilot, "digest/wiki/rrf.md")
        await pilot.press("f6")
        assert app.focused is not None and app.focused.id == "neighbours-list"
        await pilot.press("down")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_links_pane_traverse(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        app = await opened(pilot, "digest/wiki/rrf.md")
        await pilot.press("t")
        await until(pilot, lambda: "Traverse" in str(app.main.neighbours.border_title), "traverse")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_switcher(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await opened(pilot)
        await pilot.press("o")
        await on_top(pilot, SwitcherPalette)
        await pilot.press(*"rrf")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_tags(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        app = await opened(pilot)
        app.main.action_tags()
        await on_top(pilot, TagsScreen)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_tags_notes_of_a_tag(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        app = await opened(pilot)
        app.main.action_tags()
        await on_top(pilot, TagsScreen)
        await pilot.press("enter")  # the most used tag's notes
        await until(pilot, lambda: app.screen.shown is not None, "a tag's notes")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_help_panel(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        app = await opened(pilot)
        app.action_show_help_panel()
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_delete_with_inbound_links(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        app = await opened(pilot, "digest/wiki/rrf.md")
        await pilot.press("delete")
        await on_top(pilot, DeleteScreen)
        preview = app.screen.query_one("#delete-preview")
        await until(pilot, lambda: "inbound" in str(preview.render()), "the inbound links")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_new_note_filled_in(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await opened(pilot, "digest/wiki/rrf.md")
        await pilot.press("n")
        await on_top(pilot, NewNoteScreen)
        await pilot.press(*"zz-graph-notes.md", "enter", *"Graph notes", "enter", *"links")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_new_note_refused(indexed_demo: Path, snap_compare) -> None:
    """Creating a note where one exists: the refusal in the dialog, nothing written."""

    async def run_before(pilot: Pilot) -> None:
        app = await opened(pilot, "digest/wiki/rrf.md")
        await pilot.press("n")
        await on_top(pilot, NewNoteScreen)
        await pilot.press(*"rrf.md")
        app.screen.query_one("#create").press()
        preview = app.screen.query_one("#new-preview")
        await until(pilot, lambda: bool(str(preview.render()).strip()), "the refusal")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_undo_after_delete(indexed_demo: Path, snap_compare) -> None:
    """Delete, then Ctrl+Z: the note is back in the reader and the toast says where from."""

    async def run_before(pilot: Pilot) -> None:
        app = await opened(pilot, "digest/wiki/rrf.md")
        await pilot.press("delete")
        await on_top(pilot, DeleteScreen)
        app.screen.query_one("#delete").press()
        await until(pilot, lambda: not (indexed_demo / "digest/wiki/rrf.md").exists(), "the delete")
        await calm(pilot)
        assert [n.title for n in app._notifications] == ["Deleted"]
        app.clear_notifications()
        await pilot.press("ctrl+z")
        await until(pilot, lambda: (indexed_demo / "digest/wiki/rrf.md").exists(), "the undo")
        await until(pilot, lambda: app.main.reader.path == "digest/wiki/rrf.md", "the reopen")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_copy_choices(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await opened(pilot, "digest/wiki/rrf.md")
        await pilot.press("y")
        await on_top(pilot, CopyScreen)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_create_linked_note_confirm(indexed_demo: Path, snap_compare) -> None:
    """Following a link to a note that does not exist asks before creating it."""
    (indexed_demo / LINKS_NOTE).write_text(LINKS_TEXT, encoding="utf-8")

    async def run_before(pilot: Pilot) -> None:
        await opened(pilot, LINKS_NOTE)
        await pilot.press("tab", "enter")
        await on_top(pilot, CreateNoteScreen)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_web_link_without_display(
    indexed_demo: Path, snap_compare, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A web link followed in a terminal with no display of its own asks first."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SSH_CONNECTION", "SSH_TTY"):
        monkeypatch.delenv(name, raising=False)
    (indexed_demo / LINKS_NOTE).write_text(LINKS_TEXT, encoding="utf-8")

    async def run_before(pilot: Pilot) -> None:
        await opened(pilot, LINKS_NOTE)
        await pilot.press("tab", "tab", "enter")
        await on_top(pilot, OpenWebScreen)

    assert snap_compare(browser(indexed_demo), terminal_size=SIZE, run_before=run_before)


def test_snapshot_narrow_80x24(indexed_demo: Path, snap_compare) -> None:
    """The smallest common terminal: one pane at a time, the footer's keys still there."""

    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, RemeApp)
        app.main.search_pane.show_timing = False
        await calm(pilot)
        await pilot.press(*"bm25 idf")
        await calm(pilot)
        assert app.query_one("#results", OptionList).option_count

    assert snap_compare(browser(indexed_demo), terminal_size=(80, 24), run_before=run_before)


def test_snapshot_narrow_80x24_reader(indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        assert isinstance(app, RemeApp)
        app.main.search_pane.show_timing = False
        await calm(pilot)
        await pilot.press(*"bm25 idf")
        await calm(pilot)
        await pilot.press("enter", "enter")
        await calm(pilot)

    assert snap_compare(browser(indexed_demo), terminal_size=(80, 24), run_before=run_before)
