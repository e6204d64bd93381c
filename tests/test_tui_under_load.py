"""Issue 32, item 2: no key waits on the index, and a batch moves no cursor.

Every dialog (and the files tree) appears, and opening a note leaves the keys live, while
another thread holds the workspace's locks: the writer's, the readers' (held that long by a
reload after another process's rebuild) and the state folder's (a `--reindex` elsewhere).
Not a timing test: the holder lets go only after the dialog appeared, or after a long safety
bound, and the test asks whether the dialog was on screen *before* the locks were let go.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import HelpPanel, Input, OptionList

from reme_core import Changes, Workspace
from reme_tui.app.browser import RemeApp
from tests.helpers import parts, settle

SAFETY_S = 10.0  # the holder lets go by then, so a blocked event loop fails instead of hanging
NOTE = "digest/wiki/bm25.md"


class Holder(threading.Thread):
    """Holds the workspace's writer, readers' and state locks until `done` is set."""

    def __init__(self, ws: Workspace) -> None:
        super().__init__(daemon=True)
        self.ws = ws
        self.held = threading.Event()
        self.done = threading.Event()
        self.holding = False

    def run(self) -> None:
        p = parts(self.ws)
        with p.write_lock, self.ws.state_lock.held(), p.lock:
            self.holding = True
            self.held.set()
            self.done.wait(SAFETY_S)
            self.holding = False


def _screen(name: str) -> Callable[[Any], bool]:
    return lambda app: type(app.screen).__name__ == name


# (name, keys, or an action of the main screen ("app." for the app's), what shows it)
DIALOGS: list[tuple[str, tuple[str, ...], str, Callable[[Any], bool]]] = [
    ("new note", ("n",), "", _screen("NewNoteScreen")),
    ("rename", ("r",), "", _screen("MoveScreen")),
    ("delete", ("delete",), "", _screen("DeleteScreen")),
    ("switcher", ("ctrl+o",), "", _screen("SwitcherPalette")),
    ("palette", ("ctrl+p",), "", _screen("CommandPalette")),
    ("files", ("ctrl+e",), "", lambda app: app.main.files_pane.display),
    ("tags", (), "tags", _screen("TagsScreen")),
    ("tag tree", (), "tag_tree", _screen("TagTreeScreen")),
    ("bookmarks", ("B",), "", _screen("BookmarksScreen")),
    ("bookmark", ("ctrl+b",), "", _screen("PickScreen")),
    ("history", ("H",), "", _screen("PickScreen")),
    ("graph", ("v",), "", _screen("GraphScreen")),
    ("property", ("p",), "", _screen("PropertyScreen")),
    ("help", (), "app.show_help_panel", lambda app: bool(app.screen.query(HelpPanel))),
]


@pytest.mark.parametrize(("name", "keys", "action", "shown"), DIALOGS, ids=[d[0] for d in DIALOGS])
async def test_a_dialog_appears_while_another_thread_holds_the_index(
    indexed_demo: Path,
    name: str,
    keys: tuple[str, ...],
    action: str,
    shown: Callable[[Any], bool],
) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.ws is not None
        app.main.navigator.open_path(NOTE)
        await settle(pilot)
        assert app.main.reader.path == NOTE
        app.main.focus_reader()
        await pilot.pause()
        holder = Holder(app.ws)
        holder.start()
        assert holder.held.wait(SAFETY_S)
        try:
            if action:
                target = app if action.startswith("app.") else app.main
                await target.run_action(action.removeprefix("app."))
            else:
                await pilot.press(*keys)
            seen_while_held = False
            while holder.holding and not seen_while_held:
                await pilot.pause(0.01)
                seen_while_held = shown(app) and holder.holding
        finally:
            holder.done.set()
            holder.join()
        assert seen_while_held, f"the {name} dialog waited for the index's locks"
        await settle(pilot)


async def test_opening_a_note_while_another_thread_holds_the_index_leaves_the_keys_live(
    indexed_demo: Path,
) -> None:
    """Enter on a search result while the index is held: the note shows once it is free,
    and meanwhile the next key is still handled (the event loop never waited for the lock)."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.ws is not None
        box = app.main.search_pane.query_one("#query", Input)
        box.value = "bm25"
        await settle(pilot)
        results = app.main.search_pane.query_one("#results", OptionList)
        assert results.option_count
        results.focus()
        results.highlighted = 0
        await pilot.pause()
        holder = Holder(app.ws)
        holder.start()
        assert holder.held.wait(SAFETY_S)
        try:
            await pilot.press("enter")
            await pilot.press("slash")  # back to the search box
            await pilot.pause()
            live_while_held = app.focused is box and holder.holding
        finally:
            holder.done.set()
            holder.join()
        assert live_while_held, "opening a note waited for the index's locks"
        await settle(pilot)
        assert app.main.reader.path.startswith("digest/wiki/bm25")


async def test_the_results_cursor_stays_on_its_note_when_a_batch_rewrites_it(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """A watcher batch that rewrites the highlighted note gives its chunks new ids; the
    results painted again keep the cursor on that note, not on the first hit."""
    root = make_tree({f"note{i}.md": f"# Note {i}\nalpha {'beta ' * i}\n" for i in range(4)})
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        ws = app.ws
        assert ws is not None
        pane = app.main.search_pane
        pane.query_one("#query", Input).value = "alpha"
        await settle(pilot)
        results = pane.query_one("#results", OptionList)
        assert results.option_count == 4
        results.focus()
        results.highlighted = 2
        chosen = pane.hits[2].path
        with open(root / chosen, "a", encoding="utf-8") as fh:
            fh.write("alpha again, in the same chunk\n")
        ws.apply(Changes(modified=[chosen]))
        await settle(pilot)
        assert results.highlighted is not None
        assert pane.hits[results.highlighted].path == chosen


async def test_following_a_dangling_link_while_the_index_is_held_leaves_the_keys_live(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """Enter on a dangling link asks the index whether its note exists by now: in a worker,
    so the next key is handled while the index is held; the offer to create it comes after."""
    root = make_tree({"Home.md": "# Home\n\nSee [[Missing]].\n"})
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.ws is not None
        app.main.navigator.open_path("Home.md")
        await settle(pilot)
        app.main.focus_reader()
        await pilot.press("tab")
        holder = Holder(app.ws)
        holder.start()
        assert holder.held.wait(SAFETY_S)
        try:
            await pilot.press("enter")
            await pilot.press("slash")  # to the search box
            await pilot.pause()
            box = app.main.search_pane.query_one("#query", Input)
            live_while_held = app.focused is box and holder.holding
        finally:
            holder.done.set()
            holder.join()
        assert live_while_held, "following a dangling link waited for the index's locks"
        await settle(pilot)
        assert type(app.screen).__name__ == "CreateNoteScreen"
