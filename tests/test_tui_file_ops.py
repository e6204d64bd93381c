"""The move / delete / new-note screens driven through Pilot on a real workspace (issue 7).

A small host app pushes each screen and keeps what it dismisses with, the way the browser
does, so the flows are tested without depending on the rest of the UI.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import Input, Static

from reme_core import Workspace
from reme_core.file_ops import DeleteReport, MoveReport
from reme_tui.screens.file_ops import DeleteScreen, MoveScreen, NewNoteScreen

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


async def settle(app: App[None], pilot: Any) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


def preview(app: App[None]) -> str:
    return str(app.screen.query_one(".preview", Static).render())


async def test_move_screen_previews_then_moves(ws: Workspace) -> None:
    app = Host(MoveScreen(ws, "digest/wiki/bm25.md"))
    async with app.run_test() as pilot:
        await settle(app, pilot)
        assert "Type the new path" in preview(app)
        app.screen.query_one("#dst", Input).value = "digest/wiki/a#b.md"
        await settle(app, pilot)
        assert "cannot appear in a wikilink" in preview(app)

        app.screen.query_one("#dst", Input).value = "digest/rank/bm25.md"
        await settle(app, pilot)
        text = preview(app)
        assert "would rewrite 1 link in 1 file" in text
        assert "[[digest/wiki/bm25.md#L5|bm25]] -> [[digest/rank/bm25.md#L5|bm25]]" in text
        assert (ws.root / "digest/wiki/bm25.md").exists()  # the preview is a dry run

        await pilot.click("#move")
        await settle(app, pilot)
    assert isinstance(app.result, MoveReport) and app.result.dst == "digest/rank/bm25.md"
    assert (ws.root / "daily/2026-06-05/run.md").read_text() == (
        "# Run\nsee [[digest/rank/bm25.md#L5|bm25]]\n"
    )
    assert ws.node("digest/rank/bm25.md") is not None


async def test_move_screen_escape_cancels(ws: Workspace) -> None:
    app = Host(MoveScreen(ws, "digest/wiki/bm25.md"))
    async with app.run_test() as pilot:
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
    assert app.result is None
    assert (ws.root / "digest/wiki/bm25.md").exists()


async def test_delete_screen_shows_inbound_links_then_deletes_on_y(ws: Workspace) -> None:
    app = Host(DeleteScreen(ws, "digest/wiki/bm25.md"))
    async with app.run_test() as pilot:
        await settle(app, pilot)
        text = preview(app)
        assert "1 inbound link(s) will be left dangling" in text
        assert "daily/2026-06-05/run.md:2  [[digest/wiki/bm25.md#L5|bm25]]" in text
        await pilot.press("y")
        await settle(app, pilot)
    assert isinstance(app.result, DeleteReport)
    assert [x.path for x in app.result.inbound] == ["daily/2026-06-05/run.md"]
    assert not (ws.root / "digest/wiki/bm25.md").exists()


async def test_delete_screen_n_keeps_the_file(ws: Workspace) -> None:
    app = Host(DeleteScreen(ws, "digest/wiki/bm25.md"))
    async with app.run_test() as pilot:
        await settle(app, pilot)
        await pilot.press("n")
        await settle(app, pilot)
    assert app.result is None
    assert (ws.root / "digest/wiki/bm25.md").exists()


async def test_new_note_screen_creates_in_the_current_folder(ws: Workspace) -> None:
    app = Host(NewNoteScreen(ws, "digest/wiki"))
    async with app.run_test() as pilot:
        await settle(app, pilot)
        assert app.screen.query_one("#path", Input).value == "digest/wiki/"
        await pilot.press(*"hnsw.md", "enter", *"HNSW", "enter", *"graph index", "enter")
        await settle(app, pilot)
    assert app.result == "digest/wiki/hnsw.md"
    node = ws.node("digest/wiki/hnsw.md")
    assert node.name == "HNSW" and node.description == "graph index"


async def test_new_note_screen_shows_refusals(ws: Workspace) -> None:
    app = Host(NewNoteScreen(ws))
    async with app.run_test() as pilot:
        await settle(app, pilot)
        await pilot.press(*"digest/wiki/bm25.md", "enter", "enter", "enter")
        await settle(app, pilot)
        assert "already exists" in preview(app)
        assert app.result is _unset
