"""The move / delete / new-note screens driven through Pilot on a real workspace (issue 7).

First a small host app pushes each screen and keeps what it dismisses with; then the same
flows run through the real browser's keys on a copy of the demo workspace.
"""

from __future__ import annotations

import os
import string
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Input, Label, Static

from reme_core import DeleteReport, MoveReport, Workspace
from reme_tui.app.browser import RemeApp
from reme_tui.screens.file_ops import (
    DeleteScreen,
    FileOpScreen,
    MoveScreen,
    NewNoteScreen,
    PreviewPane,
)
from tests.helpers import said, settle, tree_bytes
from tests.test_tui_upkeep import run_command

FILES: dict[str, str | bytes] = {
    "digest/wiki/bm25.md": "---\nname: BM25\ndescription: ranking\n---\n# BM25\nsaturation\n",
    "daily/2026-06-05/run.md": "# Run\nsee [[digest/wiki/bm25.md#L5|bm25]]\n",
}

_unset = object()


class Host(App[None]):
    """Pushes one screen and records its result."""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self.screen_to_push = screen
        self.result: Any = _unset

    def on_mount(self) -> None:
        self.push_screen(self.screen_to_push, self._done)

    def _done(self, result: Any) -> None:
        self.result = result


@pytest.fixture
def ws(make_tree: Callable[[dict[str, str | bytes]], Path]) -> Iterator[Workspace]:
    workspace = Workspace.open(make_tree(FILES))
    yield workspace
    workspace.close()


def preview(app: App[None]) -> str:
    return str(app.screen.query_one(".preview", Static).render())


async def test_move_screen_previews_then_moves(ws: Workspace) -> None:
    app = Host(MoveScreen(ws, "digest/wiki/bm25.md"))
    async with app.run_test() as pilot:
        await settle(pilot)
        assert "Type the new path" in preview(app)
        app.screen.query_one("#dst", Input).value = "digest/wiki/a#b.md"
        await settle(pilot)
        assert "cannot appear in a wikilink" in preview(app)

        app.screen.query_one("#dst", Input).value = "digest/rank/bm25.md"
        await settle(pilot)
        text = preview(app)
        assert "would rewrite 1 link in 1 file" in text
        edit = "    2: [[digest/wiki/bm25.md#L5|bm25]] -> [[digest/rank/bm25.md#L5|bm25]]"
        assert f"  daily/2026-06-05/run.md\n{edit}" in text
        assert (ws.root / "digest/wiki/bm25.md").exists()  # the preview is a dry run

        await pilot.click("#move")
        await settle(pilot)
    assert isinstance(app.result, MoveReport) and app.result.dst == "digest/rank/bm25.md"
    assert (ws.root / "daily/2026-06-05/run.md").read_text() == (
        "# Run\nsee [[digest/rank/bm25.md#L5|bm25]]\n"
    )
    assert ws.node("digest/rank/bm25.md") is not None


async def test_move_screen_escape_cancels(ws: Workspace) -> None:
    app = Host(MoveScreen(ws, "digest/wiki/bm25.md"))
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
    assert app.result is None
    assert (ws.root / "digest/wiki/bm25.md").exists()


async def test_delete_screen_opens_on_cancel_and_no_letter_confirms(ws: Workspace) -> None:
    app = Host(DeleteScreen(ws, "digest/wiki/bm25.md"))
    async with app.run_test() as pilot:
        await settle(pilot)
        text = preview(app)
        assert "1 inbound link will be left dangling" in text
        assert "daily/2026-06-05/run.md:2  [[digest/wiki/bm25.md#L5|bm25]]" in text
        assert app.screen.focused is not None and app.screen.focused.id == "cancel"
        await pilot.press(*"yYes")  # a bare y (or any word) deletes nothing
        await settle(pilot)
        assert isinstance(app.screen, DeleteScreen) and app.result is _unset
        assert (ws.root / "digest/wiki/bm25.md").exists()
        await pilot.press("tab", "enter")  # on purpose: to the Delete button, then press it
        await settle(pilot)
    assert isinstance(app.result, DeleteReport)
    assert [x.path for x in app.result.inbound] == ["daily/2026-06-05/run.md"]
    assert not (ws.root / "digest/wiki/bm25.md").exists()
    assert (ws.root / ".trash/digest/wiki/bm25.md").exists()


@pytest.mark.parametrize("keys", [("n",), ("enter",), ("escape",)])
async def test_delete_screen_n_enter_escape_keep_the_file(
    ws: Workspace, keys: tuple[str, ...]
) -> None:
    app = Host(DeleteScreen(ws, "digest/wiki/bm25.md"))
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press(*keys)
        await settle(pilot)
    assert app.result is None
    assert (ws.root / "digest/wiki/bm25.md").exists()


async def test_move_screen_cannot_complete_by_letters_alone(ws: Workspace) -> None:
    before = tree_bytes(ws.root)
    app = Host(MoveScreen(ws, "digest/wiki/bm25.md"))
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press(*"yes rename it Dynamic")
        await settle(pilot)
        assert isinstance(app.screen, MoveScreen) and app.result is _unset
    assert tree_bytes(ws.root) == before


async def test_new_note_screen_creates_in_the_current_folder(ws: Workspace) -> None:
    app = Host(NewNoteScreen(ws, "digest/wiki"))
    async with app.run_test() as pilot:
        await settle(pilot)
        assert app.screen.query_one("#path", Input).value == "digest/wiki/"
        await pilot.press(*"zz-graph-notes.md", "enter", *"HNSW", "enter", *"graph index", "enter")
        await settle(pilot)
    assert app.result == "digest/wiki/zz-graph-notes.md"
    node = ws.node("digest/wiki/zz-graph-notes.md")
    assert node.name == "HNSW" and node.description == "graph index"


async def test_new_note_screen_shows_refusals(ws: Workspace) -> None:
    app = Host(NewNoteScreen(ws))
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press(*"digest/wiki/bm25.md", "enter", "enter", "enter")
        await settle(pilot)
        assert "already exists" in preview(app)
        assert app.result is _unset


# -- the same flows through the real browser, on a copy of the demo workspace ----------------

NOTE = "daily/2026-06-15/retrieval-regression.md"


async def open_note(pilot: Any, path: str) -> None:
    await settle(pilot)
    pilot.app.main.navigator.open_path(path)
    await settle(pilot)
    pilot.app.main.focus_reader()


Dialog = TypeVar("Dialog", bound=FileOpScreen[Any])


async def dialog_on_a_note(pilot: Any, key: str, kind: type[Dialog]) -> Dialog:
    """The dialog `key` opens on a note of the demo (the one the browser then keeps)."""
    await open_note(pilot, "digest/wiki/rrf.md")
    await pilot.press(key)
    await settle(pilot)
    assert isinstance(pilot.app.screen, kind)
    return pilot.app.screen


async def test_app_rename_rewrites_inbound_links_and_follows_the_note(indexed_demo: Path) -> None:
    dst = "digest/wiki/retrieval-regression.md"
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_note(pilot, NOTE)
        inlinks = sorted(n.path for n in app.main.neighbours.data.inlinks)
        assert inlinks, "the demo note has inbound links"
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, MoveScreen)
        app.screen.query_one("#dst", Input).value = dst
        await settle(pilot)
        assert f"in {len(inlinks)} files" in preview(app)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, MoveScreen)
        assert not (indexed_demo / NOTE).exists() and (indexed_demo / dst).exists()
        for source in inlinks:
            text = (indexed_demo / source).read_text("utf-8")
            assert f"[[{dst}" in text and f"[[{NOTE}" not in text, source
        assert app.main.reader.path == dst
        assert str(app.query_one("#reader-header", Static).render()).startswith(dst)
        assert sorted(n.path for n in app.main.neighbours.data.inlinks) == inlinks
        assert any(n.title == "Moved" for n in said(app))


async def test_the_kept_rename_dialog_opens_on_the_note_now_open(indexed_demo: Path) -> None:
    """The rename dialog is kept between openings too: opened on another note it names that
    note, starts from its path with links rewritten, and a preview worked out for the last
    opening never lands in this one."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        first = await dialog_on_a_note(pilot, "r", MoveScreen)
        await pilot.press("space")  # the path and the checkbox changed: the next opening
        first.query_one("#rewrite", Checkbox).value = False  # must start them afresh
        await settle(pilot)
        last_opening = first.opening
        await pilot.press("escape")
        await settle(pilot)
        await open_note(pilot, NOTE)
        await pilot.press("r")
        await settle(pilot)
        assert app.screen is first
        assert str(first.query_one("#move-title", Label).render()) == f"Move or rename {NOTE}"
        assert first.query_one("#dst", Input).value == NOTE
        assert first.query_one("#rewrite", Checkbox).value is True
        assert preview(app) == "Type the new path."
        first.say(last_opening, "a preview of the last opening")
        await settle(pilot)
        assert preview(app) == "Type the new path."
        dst = "digest/wiki/kept-rename.md"
        first.query_one("#dst", Input).value = dst
        await settle(pilot)
        assert f"-> [[{dst}" in preview(app)  # this note's links, rewritten to go along
        await pilot.press("enter")
        await settle(pilot)
        assert not (indexed_demo / NOTE).exists() and (indexed_demo / dst).exists()
        assert app.main.reader.path == dst


async def test_a_long_rename_preview_scrolls_and_keeps_the_buttons_on_a_24_row_screen(
    indexed_demo: Path,
) -> None:
    """At 80x24 the preview of a rename that rewrites 9 links holds more lines than the dialog
    has rows for: the buttons stay on screen, and Tab reaches the preview to read its end."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_note(pilot, NOTE)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, MoveScreen)
        app.screen.query_one("#dst", Input).value = "digest/wiki/retrieval-regression.md"
        await settle(pilot)
        await pilot.pause()
        move = app.screen.query_one("#move", Button)
        assert move.region.bottom <= 24 and move.region.height > 0
        box = app.screen.query_one(PreviewPane)
        assert box.max_scroll_y > 0, "the preview holds more lines than it shows"
        await pilot.press("tab", "tab")  # the path, the checkbox, then the preview
        assert app.focused is box
        await pilot.press("end")
        await pilot.pause()
        assert box.scroll_y == box.max_scroll_y


async def test_app_delete_lists_inbound_links_then_trashes_and_ctrl_z_restores(
    indexed_demo: Path,
) -> None:
    path = "digest/wiki/rrf.md"
    original = (indexed_demo / path).read_bytes()
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_note(pilot, path)
        sources = {n.path for n in app.main.neighbours.data.inlinks}
        await pilot.press("delete")
        await settle(pilot)
        assert isinstance(app.screen, DeleteScreen)
        text = preview(app)
        assert "will be left dangling" in text
        assert all(f"  {source}:" in text for source in sources)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, DeleteScreen) and (indexed_demo / path).exists()
        await pilot.press("tab", "enter")
        await settle(pilot)
        assert not (indexed_demo / path).exists()
        assert (indexed_demo / ".trash" / path).read_bytes() == original
        assert app.ws.node(path) is None
        assert "was deleted" in str(app.query_one("#reader-message", Static).render())
        assert any("now dangling" in n.message for n in said(app))

        await pilot.press("ctrl+z")
        await settle(pilot)
        assert (indexed_demo / path).read_bytes() == original
        assert not (indexed_demo / ".trash" / path).exists()
        assert app.ws.node(path) is not None and app.main.reader.path == path
        assert {n.path for n in app.main.neighbours.data.inlinks} == sources
        assert any(n.title == "Undone" for n in said(app))


async def test_typing_dynamic_in_the_reader_deletes_nothing(indexed_demo: Path) -> None:
    """The word "Dynamic" typed with the reader focused once meant D (delete) then y (yes)."""
    before = tree_bytes(indexed_demo)
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_note(pilot, NOTE)
        await pilot.press(*"Dynamic")
        await settle(pilot)
        assert not isinstance(app.screen, DeleteScreen)
    assert tree_bytes(indexed_demo) == before
    assert not (indexed_demo / ".trash").exists()


# The 52 letters in four runs of 13: each run is its own test, so parallel workers share them.
LETTER_RUNS = [string.ascii_letters[i : i + 13] for i in range(0, 52, 13)]


@pytest.mark.parametrize("letters", LETTER_RUNS)
async def test_no_letter_typed_in_the_reader_changes_a_file(
    indexed_demo: Path, letters: str
) -> None:
    """Every letter, each followed by a word, from the reader: dialogs may open (and get the
    word), but nothing is written, moved or deleted until a non-letter key asks for it. At the
    smallest supported size: what a key does is the same at any size, and repaints cost less."""
    before = tree_bytes(indexed_demo)
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_note(pilot, NOTE)
        for letter in letters:
            await pilot.press(letter, *"yes")
            await settle(pilot)
            while len(app.screen_stack) > 1:
                await pilot.press("escape")
                await settle(pilot)
            if app.main.reader.path != NOTE:
                app.main.navigator.open_path(NOTE)
                await settle(pilot)
            app.main.focus_reader()
    assert tree_bytes(indexed_demo) == before


async def test_palette_undo_reverts_a_move_made_by_the_cli(indexed_demo: Path) -> None:
    """The undo record is the workspace's: the browser undoes what `reme-tui move` did."""
    dst = "digest/wiki/retrieval-regression.md"
    before = tree_bytes(indexed_demo)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    done = subprocess.run(
        [sys.executable, "-m", "reme_tui", "-w", str(indexed_demo), "move", NOTE, dst],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_note(pilot, dst)
        await run_command(pilot, "Undo")
        assert app.main.reader.path == NOTE
        assert any(n.title == "Undone" for n in said(app))
        assert app.ws.node(NOTE) is not None and app.ws.node(dst) is None
        await pilot.press("ctrl+z")  # nothing left to undo: said, not raised
        await settle(pilot)
        assert any("nothing to undo" in n.message for n in said(app))
    after = tree_bytes(indexed_demo)
    assert {k: v for k, v in after.items() if not k.startswith(".")} == {
        k: v for k, v in before.items() if not k.startswith(".")
    }


async def test_app_new_note_is_created_opened_and_searchable(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_note(pilot, "digest/wiki/rrf.md")
        await pilot.press("n")
        await settle(pilot)
        assert app.screen.query_one("#path", Input).value == "digest/wiki/"
        await pilot.press(
            *"zz-graph-notes.md", "enter", *"Zyzzyva graphs", "enter", *"notes", "enter"
        )
        await settle(pilot)
        assert (indexed_demo / "digest/wiki/zz-graph-notes.md").exists()
        assert app.main.reader.path == "digest/wiki/zz-graph-notes.md"
        app.main.action_focus_search()
        await pilot.press(*"zyzzyva")
        await settle(pilot)
        await settle(pilot)
        assert [h.path for h in app.main.search_pane.hits] == ["digest/wiki/zz-graph-notes.md"]


async def test_the_kept_new_note_dialog_opens_fresh_each_time(indexed_demo: Path) -> None:
    """The browser keeps one new-note dialog between openings: each opening starts in the
    open note's folder with empty fields, no word of the last one, and the screen beneath as
    it is now; what it creates is opened like any new note."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        first = await dialog_on_a_note(pilot, "n", NewNoteScreen)
        first_backdrop = first._backdrop
        await pilot.press("ctrl+u", *"digest/wiki/bm25.md", "enter", *"Typed", "enter", "enter")
        await settle(pilot)
        assert "already exists" in preview(app)
        await pilot.press("escape")
        await settle(pilot)
        await open_note(pilot, NOTE)
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is first  # kept, not composed again
        assert first._backdrop is not first_backdrop  # taken again over the note now open
        values = [
            app.screen.query_one(f"#{i}", Input).value for i in ("path", "name", "description")
        ]
        assert values == ["daily/2026-06-15/", "", ""]
        assert preview(app) == ""
        assert app.screen.focused is app.screen.query_one("#path", Input)
        await pilot.press(*"fresh.md", "enter", *"Quokka", "enter", *"kept", "enter")
        await settle(pilot)
        assert (indexed_demo / "daily/2026-06-15/fresh.md").exists()
        assert app.main.reader.path == "daily/2026-06-15/fresh.md"
        assert "Typed" not in (indexed_demo / "digest/wiki/bm25.md").read_text()


async def test_file_keys_type_into_the_search_box(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_note(pilot, NOTE)
        app.main.action_focus_search()
        await pilot.press("r", "D", "n", "delete")
        assert app.query_one("#query", Input).value == "rDn"
        assert not isinstance(app.screen, FileOpScreen)
