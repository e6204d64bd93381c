"""The Files pane in the real browser (Pilot) on a copy of the demo: Ctrl+E and the palette,
counts, type-to-filter, Enter and clicks, the open note revealed, the watcher's batches, the
link-safe file operations from the tree, and the layouts by width (issue 29)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Static

from reme_tui.app.browser import RemeApp
from reme_tui.screens.file_ops import DeleteScreen, MoveScreen, NewNoteScreen
from reme_tui.screens.new_folder import NewFolderScreen
from reme_tui.widgets.files.view import FilesView
from tests.helpers import said
from tests.test_tui_app import settle, wait_until
from tests.test_tui_upkeep import run_command

SIZE = (140, 40)


def tree(app: RemeApp) -> FilesView:
    return app.main.files_pane.view


def paths(app: RemeApp) -> list[str]:
    return [r.path for r in tree(app).rows]


def shown_panes(app: RemeApp) -> list[str]:
    return [
        p
        for p in ("files", "search", "reader", "neighbours")
        if app.main.query_one(f"#{p}").display
    ]


def drawn(app: RemeApp) -> str:
    """The tree as the screen shows it, row by row."""
    view = tree(app)
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


async def open_tree(pilot: Pilot) -> FilesView:
    await settle(pilot)
    await pilot.press("ctrl+e")
    await settle(pilot)
    app = pilot.app
    assert isinstance(app, RemeApp)
    assert app.main.files_pane.display and app.screen.focused is tree(app)
    return tree(app)


async def test_ctrl_t_shows_the_indexed_notes_by_folder_with_counts(indexed_demo: Path) -> None:
    (indexed_demo / "daily" / "notes.bin").write_bytes(b"\0binary")  # not indexed: not listed
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_tree(pilot)
        assert app.ws is not None
        indexed = app.ws.files()
        top = {r.path: r.notes for r in view.rows if r.folder}
        assert top == {
            f: sum(p.startswith(f"{f}/") for p in indexed)
            for f in {p.split("/")[0] for p in indexed if "/" in p}
        }
        assert sum(top.values()) + sum("/" not in p for p in indexed) == len(indexed)
        assert f"{top['daily']}" in drawn(app)
        await pilot.press("ctrl+e")  # hidden again, the focus back in the reader
        await settle(pilot)
        assert not app.main.files_pane.display
        assert app.main.pane_in_focus() == "reader"


async def test_the_palette_reaches_the_tree_by_files(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await run_command(pilot, "Files")
        await settle(pilot)
        assert app.main.files_pane.display
        assert paths(app)


async def test_typing_filters_enter_opens_and_escape_clears(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_tree(pilot)
        before = paths(app)
        await pilot.press(*"solar inv")  # letters the screen binds (o, e, n, ...) filter too
        await settle(pilot)
        notes = [r.path for r in view.rows if not r.folder]
        assert notes == ["daily/2026-06-17/solar-inverters.md"]
        assert "solar inv" in str(app.main.files_pane.status.render())
        assert view.highlighted is not None
        assert view.highlighted.path == notes[0], "the cursor lands on the first match"
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.reader.path == "daily/2026-06-17/solar-inverters.md"
        assert app.main.pane_in_focus() == "reader"
        view.focus()
        await pilot.press("backspace", "backspace", "backspace", "backspace")
        await settle(pilot)
        assert len([r for r in view.rows if not r.folder]) > 1
        await pilot.press("escape")
        await settle(pilot)
        assert app.main.files_pane.model is not None
        assert app.main.files_pane.model.filter == ""
        assert "type to filter" in str(app.main.files_pane.status.render())
        assert [p for p in paths(app) if p in before] == before


async def test_the_open_note_is_revealed_and_marked(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path("digest/wiki/bm25.md")
        await settle(pilot)
        view = await open_tree(pilot)  # first shown: the open note's folders open
        assert view.highlighted is not None
        assert view.highlighted.path == "digest/wiki/bm25.md"
        assert view.open_path == "digest/wiki/bm25.md"
        app.main.navigator.open_path("daily/2026-06-10/solar-reading.md")  # while shown
        await settle(pilot)
        assert view.highlighted is not None
        assert view.highlighted.path == "daily/2026-06-10/solar-reading.md"
        assert "daily/2026-06-10" in paths(app)
        assert "solar-reading" in drawn(app)
        view.focus()
        await pilot.press("home")
        app.main.navigator.reread()  # the open note changed on disk: read again
        await settle(pilot)
        assert view.cursor == 0, "reading the same note again leaves the cursor alone"


async def test_clicks_open_and_close_folders_and_open_notes(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_tree(pilot)
        row = paths(app).index("digest")
        await pilot.click(view, offset=(2, row))
        await settle(pilot)
        assert "digest/wiki" in paths(app)
        row = paths(app).index("digest/wiki")
        await pilot.click(view, offset=(4, row))
        await settle(pilot)
        note = next(p for p in paths(app) if p.startswith("digest/wiki/"))
        await pilot.click(view, offset=(6, paths(app).index(note)))
        await settle(pilot)
        assert app.main.reader.path == note
        await pilot.click(view, offset=(2, paths(app).index("digest")))
        await settle(pilot)
        assert "digest/wiki" not in paths(app)


async def test_the_watcher_adds_and_removes_notes_in_place(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_tree(pilot)
        model = app.main.files_pane.model
        assert model is not None
        digest = model.root.folders["digest"]
        count = digest.count
        new = indexed_demo / "digest" / "fresh" / "watched note.md"
        new.parent.mkdir()
        new.write_text("# Watched\n", "utf-8")
        await wait_until(pilot, lambda: "digest/fresh/watched note.md" in model)
        assert app.main.files_pane.model is model, "the batch changed the tree in place"
        assert model.root.folders["digest"] is digest and digest.count == count + 1
        view.reveal("digest/fresh/watched note.md")
        assert "watched note" in drawn(app)
        (indexed_demo / "digest/wiki/rrf.md").unlink()
        await wait_until(pilot, lambda: "digest/wiki/rrf.md" not in model)
        assert digest.count == count
        assert "digest/wiki/rrf.md" not in paths(app)


async def highlight(pilot: Pilot, path: str) -> None:
    app = pilot.app
    assert isinstance(app, RemeApp)
    tree(app).reveal(path)
    tree(app).focus()
    await settle(pilot)
    assert tree(app).highlighted is not None and tree(app).highlighted.path == path


def preview(app: RemeApp) -> str:
    return str(app.screen.query_one(".preview", Static).render())


async def test_rename_from_the_tree_previews_the_links_then_moves(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_tree(pilot)
        app.main.navigator.open_path("daily/2026-06-10.md")  # another note is open
        await settle(pilot)
        await highlight(pilot, "digest/wiki/bm25.md")
        await pilot.press("f2")
        await settle(pilot)
        assert isinstance(app.screen, MoveScreen) and app.screen.src == "digest/wiki/bm25.md"
        app.screen.query_one("#dst", Input).value = "digest/ranking/bm25.md"
        await settle(pilot)
        assert "would rewrite" in preview(app)
        await pilot.click("#move")
        await settle(pilot)
        assert (indexed_demo / "digest/ranking/bm25.md").is_file()
        assert "digest/ranking/bm25.md" in app.main.files_pane.model  # type: ignore[operator]
        assert tree(app).highlighted is not None
        assert tree(app).highlighted.path == "digest/ranking/bm25.md", "the cursor follows it"
        assert "digest/wiki/bm25.md" not in app.main.files_pane.model  # type: ignore[operator]
        assert app.main.reader.path == "daily/2026-06-10.md", "the open note stays open"


async def test_delete_from_the_tree_previews_inbound_links_then_trashes(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_tree(pilot)
        await highlight(pilot, "digest/wiki/bm25.md")
        await pilot.press("delete")
        await settle(pilot)
        assert isinstance(app.screen, DeleteScreen) and app.screen.path == "digest/wiki/bm25.md"
        assert "inbound link" in preview(app)
        await pilot.click("#delete")
        await settle(pilot)
        assert not (indexed_demo / "digest/wiki/bm25.md").exists()
        assert (indexed_demo / ".trash/digest/wiki/bm25.md").is_file()
        assert "digest/wiki/bm25.md" not in paths(app)


async def test_a_folder_refuses_rename_and_delete(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_tree(pilot)
        await highlight(pilot, "digest")
        await pilot.press("delete")
        await settle(pilot)
        assert not isinstance(app.screen, DeleteScreen)
        assert (indexed_demo / "digest").is_dir()
        assert any("highlight a note" in n.message for n in said(app))


async def test_new_folder_then_new_note_here(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_tree(pilot)
        await highlight(pilot, "digest/wiki/bm25.md")
        await pilot.press("f7")
        await settle(pilot)
        assert isinstance(app.screen, NewFolderScreen)
        box = app.screen.query_one("#folder-path", Input)
        assert box.value == "digest/wiki/"
        box.value = "../outside"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NewFolderScreen), "an escape is refused in the dialog"
        assert not (indexed_demo.parent / "outside").exists()
        box.value = "digest/wiki/topics"
        await pilot.press("enter")
        await settle(pilot)
        assert (indexed_demo / "digest/wiki/topics").is_dir()
        view = tree(app)
        assert view.highlighted is not None and view.highlighted.path == "digest/wiki/topics"
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, NewNoteScreen)
        assert app.screen.query_one("#path", Input).value == "digest/wiki/topics/"
        app.screen.query_one("#path", Input).value = "digest/wiki/topics/first.md"
        await pilot.click("#create")
        await settle(pilot)
        assert (indexed_demo / "digest/wiki/topics/first.md").is_file()
        assert "digest/wiki/topics/first.md" in paths(app)
        assert app.main.reader.path == "digest/wiki/topics/first.md"


async def test_sort_by_modified_puts_the_newest_note_first(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_tree(pilot)
        await pilot.press(*".md")  # every note, folders open
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.ws is not None
        times = app.ws.note_times()
        notes = [r.path for r in view.rows if not r.folder and "/" not in r.path]
        assert notes == sorted(notes, key=lambda p: -times[p])
        assert "newest first" in str(app.main.files_pane.status.render())
        top = [r.path for r in view.rows if r.folder and r.depth == 0]
        newest = {f: max(t for p, t in times.items() if p.startswith(f"{f}/")) for f in top}
        assert top == sorted(top, key=lambda f: -newest[f])


async def test_narrow_terminals_share_the_left_column_or_stack(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(90, 30)) as pilot:
        await open_tree(pilot)
        assert app.main.files_pane.display and not app.main.search_pane.display
        await pilot.press("f6")  # search takes the left column back
        await settle(pilot)
        assert app.main.search_pane.display and not app.main.files_pane.display
        assert app.main.pane_in_focus() == "search"
        await pilot.press("f6", "f6")  # the reader, then the tree (links hide when narrow)
        await settle(pilot)
        assert app.main.pane_in_focus() == "files" and app.main.files_pane.display
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(60, 20)) as pilot:
        await open_tree(pilot)
        shown = [
            p
            for p in ("files", "search", "reader", "neighbours")
            if app.main.query_one(f"#{p}").display
        ]
        assert shown == ["files"]
        await pilot.press(*"solar")
        await pilot.press("enter")
        await settle(pilot)
        shown = [
            p
            for p in ("files", "search", "reader", "neighbours")
            if app.main.query_one(f"#{p}").display
        ]
        assert shown == ["reader"]


async def test_search_narrows_beside_the_tree_and_widens_after(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        search = app.main.search_pane
        alone = search.size.width
        await open_tree(pilot)
        assert search.has_class("-with-files") and not app.main.has_class("-with-files")
        assert search.size.width < alone
        await pilot.press("ctrl+e")
        await settle(pilot)
        assert not search.has_class("-with-files") and search.size.width == alone
