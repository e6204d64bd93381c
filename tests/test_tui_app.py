"""The browser driven like a person would, on a copy of the demo workspace."""

from __future__ import annotations

import time
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from reme_core import Workspace
from reme_tui.app.browser import RemeApp
from reme_tui.screens.create_note import CreateNoteScreen
from reme_tui.widgets.reader.note_view import NoteView
from tests.helpers import said, settle

SIZE = (140, 40)
NOTE = "daily/2026-06-15/retrieval-regression.md"


async def wait_until(pilot: Pilot, condition, timeout: float = 10.0) -> None:
    """Poll a condition while the app runs (for the watcher's asynchronous refresh)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await settle(pilot)


async def search(pilot: Pilot, query: str) -> None:
    app = pilot.app
    await settle(pilot)
    app.query_one("#query").focus()
    await pilot.press(*query)
    await settle(pilot)


def visible_text(app: RemeApp) -> str:
    """What the reader shows, row by row, as plain text."""
    view = app.query_one(NoteView)
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


async def test_typing_shows_result_blocks(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "bm25 idf")
        pane = app.main.search_pane
        assert pane.hits, "typing a query shows hits"
        first = pane.hits[0]
        results = app.query_one("#results", OptionList)
        block = results.get_option_at_index(0).prompt
        assert (
            block.header == f"{first.path}:{first.start_line}-{first.end_line} [{first.score:.4f}]"
        )
        lines = (indexed_demo / first.path).read_text("utf-8").split("\n")
        assert block.lines, "the block shows lines of the chunk"
        for number, text in block.lines:
            assert first.start_line <= number <= first.end_line
            assert lines[number - 1] == text, "snippet lines carry their true line numbers"
        assert any("bm25" in text.lower() or "idf" in text.lower() for _, text in block.lines)
        assert "hits" in str(app.query_one("#search-status").render())


async def test_query_syntax_filters_results(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "bm25 path:digest/")
        assert app.main.search_pane.hits
        assert all(h.path.startswith("digest/") for h in app.main.search_pane.hits)
        await pilot.press("ctrl+u", *"bm25 after:bad-date")
        await settle(pilot)
        assert "Query error" in str(app.query_one("#search-status").render())


async def test_enter_opens_hit_with_highlighted_range(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "bm25 idf")
        hit = app.main.search_pane.hits[0]
        await pilot.press("enter", "enter")
        await settle(pilot)
        view = app.query_one(NoteView)
        assert app.main.reader.path == hit.path
        assert view.ranges == [(hit.start_line, hit.end_line)]
        assert app.focused is view
        shown = visible_text(app)
        assert f"{hit.start_line}▌" in shown.replace(" ", ""), "range lines are marked"


async def test_a_longer_query_starts_at_its_best_hit_not_where_a_shorter_one_was(
    indexed_demo: Path,
) -> None:
    """Hits of a half-typed query can be painted while one types on (the debounce fired under
    load): the finished query's Enter must still open its own best hit, not the note the cursor
    sat on a moment before."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "retrieval")
        results = app.query_one("#results", OptionList)
        before = app.main.search_pane.hits[results.highlighted or 0].path
        await pilot.press(*" regression")
        await settle(pilot)
        hits = app.main.search_pane.hits
        assert hits[0].path != before and before in {h.path for h in hits}, "a shared hit moved"
        assert results.highlighted == 0
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert app.main.reader.path == hits[0].path


async def test_tab_follows_link_and_back_returns(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path("digest/wiki/bm25.md")
        await settle(pilot)
        app.main.focus_reader()
        view = app.query_one(NoteView)
        await pilot.press("tab")
        link = view.selected_link
        assert link is not None
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.reader.path == link.target
        await pilot.press("b")
        await settle(pilot)
        assert app.main.reader.path == "digest/wiki/bm25.md"
        await pilot.press("f")
        await settle(pilot)
        assert app.main.reader.path == link.target


async def test_line_anchor_link_highlights_lines(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path(NOTE)
        await settle(pilot)
        view = app.query_one(NoteView)
        index = next(i for i, ln in enumerate(view.links) if ln.match.anchor == "L9-L10")
        view.link_cursor = index
        view.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.reader.path == "digest/wiki/solar.md"
        assert view.ranges == [(9, 10)]


async def test_neighbours_match_workspace_links(indexed_demo: Path) -> None:
    expected = Workspace.open(indexed_demo).links("digest/wiki/bm25.md")
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path("digest/wiki/bm25.md")
        await settle(pilot)
        data = app.main.neighbours.data
        assert data is not None
        assert [n.path for n in data.outlinks] == [n.path for n in expected.outlinks]
        assert [n.path for n in data.inlinks] == [n.path for n in expected.inlinks]
        inlinking = {n.path for n in expected.inlinks}
        assert all(m.path not in inlinking for m in data.mentions)
        listed = app.query_one("#neighbours-list", OptionList)
        assert listed.option_count >= len(data.outlinks) + len(data.inlinks) + 3
        app.main.focus_reader()
        await pilot.press("t")
        assert "Traverse" in app.main.neighbours.border_title


async def test_palette_optimize_reports_before_after(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"optimize")
        await settle(pilot)  # the palette searches its providers in a worker
        await pilot.press("enter")
        await settle(pilot)
        assert any(
            line.startswith("tombstones:") and "->" in line
            for line in app.main.upkeep.last_optimize
        )
        assert any("before → after" in (n.title or "") for n in said(app))


async def test_toggle_vectors_explains_when_unavailable(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.action_toggle_vectors()
        await settle(pilot)
        if getattr(app.ws, "toggle_vectors", None) is None:
            assert any("not available" in n.message for n in said(app))


async def test_file_change_refreshes_results_and_reader(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "zyzzyvaquux")
        assert not app.main.search_pane.hits
        app.main.navigator.open_path("digest/wiki/bm25.md")
        await settle(pilot)
        note = indexed_demo / "digest/wiki/bm25.md"
        note.write_text(note.read_text(encoding="utf-8") + "\nzyzzyvaquux appears\n", "utf-8")
        await wait_until(pilot, lambda: bool(app.main.search_pane.hits))
        assert app.main.search_pane.hits[0].path == "digest/wiki/bm25.md"
        await wait_until(pilot, lambda: "zyzzyvaquux" in app.main.reader.text)


async def test_the_header_counts_in_words(indexed_demo: Path) -> None:
    """`1 tombstone` once a one-chunk note is edited (the header read `1 tombstones`)."""
    note = indexed_demo / "digest/wiki/one-chunk.md"
    note.write_text("# One chunk\n\nshort\n", "utf-8")
    app = RemeApp(indexed_demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        header = lambda: str(app.query_one("#status").render())  # noqa: E731
        assert "· 0 tombstones  │" in header()
        note.write_text("# One chunk\n\nshort, and edited\n", "utf-8")
        await wait_until(pilot, lambda: "tombstones  │" not in header())
        assert "· 1 tombstone  │" in header()


async def test_deleted_open_file_shows_message(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path("digest/wiki/rrf.md")
        await settle(pilot)
        (indexed_demo / "digest/wiki/rrf.md").unlink()
        message = app.query_one("#reader-message")
        await wait_until(pilot, lambda: message.display)
        assert "was deleted" in str(message.render())


async def test_dangling_link_and_empty_workspace_are_explained(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("see [[missing.md]]\n", "utf-8")
    app = RemeApp(tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path("a.md")
        await settle(pilot)
        view = app.query_one(NoteView)
        view.focus()
        await pilot.press("tab", "enter")
        await settle(pilot)
        assert isinstance(app.screen, CreateNoteScreen), "a dangling link offers its note"
        await pilot.press("escape")
        await settle(pilot)
        assert app.main.reader.path == "a.md"
        assert not (tmp_path / "missing.md").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    app = RemeApp(empty, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "no notes yet" in str(app.query_one("#reader-message").render())


async def test_keyboard_pane_cycling_and_switcher(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.focused.id == "query"
        await pilot.press("f6")
        assert app.focused.id == "note"
        await pilot.press("f6")
        assert app.focused.id == "neighbours-list"
        await pilot.press("o")
        await pilot.pause()
        await pilot.press(*"Reciprocal Rank")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.reader.path == "digest/wiki/rrf.md"


async def test_slash_in_the_empty_search_box_only_focuses_it(indexed_demo: Path) -> None:
    """The box has focus at launch; `/` out of habit must not start the query with a `/`."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        box = app.query_one("#query", Input)
        assert box.has_focus
        await pilot.press("slash", *"bm25")
        await settle(pilot)
        assert box.value == "bm25"
        assert app.main.search_pane.hits
        await pilot.press("slash")  # inside a query it is typed as it is
        assert box.value == "bm25/"
