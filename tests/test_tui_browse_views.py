"""The browsing views of issue 29 in the real app (Pilot): bookmarks shared with Obsidian's
file, today's note where `daily-notes.json` says, the daily notes around it, the history list,
a random note, the tag tree, and new notes from a vault template without our frontmatter."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Label, OptionList, Tree

from reme_core import load_bookmarks
from reme_tui.app.browser import RemeApp
from reme_tui.screens.bookmarks import BookmarksScreen
from reme_tui.screens.file_ops import NewNoteScreen
from reme_tui.screens.pick_list import PickScreen
from reme_tui.screens.tag_tree import TagTreeScreen
from reme_tui.state import bookmarks_file
from tests.helpers import said, settle
from tests.test_tui_upkeep import run_command

OBSIDIAN_BOOKMARKS = {
    "items": [
        {"type": "graph", "ctime": 1, "options": {"x": [1, 2]}},
        {
            "type": "group",
            "ctime": 2,
            "title": "Work",
            "items": [{"type": "file", "ctime": 3, "path": "Beta.md", "subpath": "#Part two"}],
        },
        {"type": "search", "ctime": 4, "query": "gamma", "title": "Find gamma"},
    ]
}
VAULT: dict[str, str | bytes] = {
    ".obsidian/app.json": "{}",
    ".obsidian/bookmarks.json": json.dumps(OBSIDIAN_BOOKMARKS, indent=2),
    ".obsidian/daily-notes.json": json.dumps(
        {"folder": "Journal", "format": "YYYY/YYYY-MM-DD", "template": "Templates/Day"}
    ),
    ".obsidian/templates.json": json.dumps({"folder": "Templates", "dateFormat": "DD.MM.YYYY"}),
    "Templates/Day.md": "# {{title}}\nplan\n",
    "Templates/Meeting.md": "# {{title}}\nmet on {{date}}\n",
    "Journal/2020/2020-01-01.md": "# first day\n",
    "Journal/2020/2020-01-02.md": "# second day\n",
    "Alpha.md": "# Alpha\nabout #project/alpha/one and #idea\n",
    "Beta.md": "---\ntags: [project]\n---\n# Beta\n## Part one\nx\n## Part two\ny\n",
    "Gamma.md": "# Gamma\n#project/gamma words\n",
}


def _rows(app: RemeApp) -> list[str]:
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def _open(pilot: Pilot, path: str) -> None:
    await settle(pilot)
    pilot.app.main.navigator.open_path(path)
    await settle(pilot)
    pilot.app.main.focus_reader()


async def test_bookmarks_are_obsidians_file_read_opened_and_added_to(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, "Alpha.md")
        await pilot.press("B")
        await settle(pilot)
        assert isinstance(app.screen, BookmarksScreen)
        rows = _rows(app)
        assert rows[0].startswith("· graph") and "kept, opens in Obsidian" in rows[0]
        assert rows[1].endswith("Work")  # a group, as a heading
        assert "Beta.md#Part two" in rows[2] and rows[3].startswith("⌕ Find gamma")
        await pilot.press("enter")  # the first choice: the heading in the group
        await settle(pilot)
        assert app.main.reader.path == "Beta.md"

        # Bookmark a heading of the open note: Ctrl+B lists the note, its headings, the search.
        await pilot.press("ctrl+b")
        await settle(pilot)
        assert isinstance(app.screen, PickScreen)
        rows = _rows(app)
        assert rows[0] == "This note  Beta.md"
        assert [r.strip() for r in rows[1:4]] == ["#Beta", "#Part one", "#Part two"]
        await pilot.press("enter")
        await settle(pilot)
    data = json.loads((root / ".obsidian/bookmarks.json").read_text(encoding="utf-8"))
    assert data["items"][:3] == OBSIDIAN_BOOKMARKS["items"]  # every entry kept as it was
    assert data["items"][3]["type"] == "file" and data["items"][3]["path"] == "Beta.md"
    assert isinstance(data["items"][3]["ctime"], int)


async def test_removing_a_bookmark_and_opening_a_folder_bookmark(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run_command(pilot, "Bookmarks")
        assert isinstance(app.screen, BookmarksScreen)
        await pilot.press("down")  # the search bookmark
        await pilot.press("d")
        await settle(pilot)
        assert not any("Find gamma" in r for r in _rows(app))
        kept = load_bookmarks(root / ".obsidian/bookmarks.json").bookmarks()
        assert [m.kind for m in kept] == ["graph", "group", "file"]
        await pilot.press("escape")
        (root / ".obsidian/bookmarks.json").write_text(
            json.dumps({"items": [{"type": "folder", "ctime": 1, "path": "Journal/2020"}]}),
            encoding="utf-8",
        )
        await run_command(pilot, "Bookmarks")
        await pilot.press("enter")  # a folder: its notes, through the search box
        await settle(pilot)
        assert app.main.search_pane.query_one("#query", Input).value == 'path:"Journal/2020/"'
        hits = app.main.search_pane.query_one("#results", OptionList)
        assert hits.option_count >= 2
    assert [m.kind for m in load_bookmarks(root / ".obsidian/bookmarks.json").bookmarks()] == [
        "folder"
    ]


async def test_memory_mode_keeps_bookmarks_in_the_state_folder(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, "digest/wiki/solar.md")
        await pilot.press("ctrl+b")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        file = bookmarks_file(indexed_demo, "memory")
        assert [m.path for m in load_bookmarks(file).bookmarks()] == ["digest/wiki/solar.md"]
        await pilot.press("B")
        await settle(pilot)
        assert "digest/wiki/solar.md" in _rows(app)[0]
    assert not (indexed_demo / ".obsidian").exists()


async def test_today_creates_the_daily_note_where_the_vault_says_and_steps_between_days(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(VAULT)
    today = date.today()
    rel = f"Journal/{today:%Y}/{today.isoformat()}.md"
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run_command(pilot, "Today")
        await settle(pilot)
        assert app.main.reader.path == rel
        assert (root / rel).read_text(encoding="utf-8") == f"# {today.isoformat()}\nplan\n"
        await pilot.press("comma")  # the daily note before today's
        await settle(pilot)
        assert app.main.reader.path == "Journal/2020/2020-01-02.md"
        await pilot.press("comma")
        await settle(pilot)
        assert app.main.reader.path == "Journal/2020/2020-01-01.md"
        await pilot.press("comma")  # none earlier: it says so and stays
        await settle(pilot)
        assert app.main.reader.path == "Journal/2020/2020-01-01.md"
        await pilot.press("full_stop")
        await settle(pilot)
        assert app.main.reader.path == "Journal/2020/2020-01-02.md"


async def test_today_in_memory_mode_is_remes_day_page(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.main.focus_reader()
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.main.reader.path == f"daily/{date.today().isoformat()}.md"


async def test_history_lists_recent_notes_newest_first_and_random_opens_a_note(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for path in ("Alpha.md", "Beta.md", "Gamma.md"):
            await _open(pilot, path)
        await pilot.press("H")
        await settle(pilot)
        assert _rows(app) == ["Gamma.md  (open)", "Beta.md", "Alpha.md"]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.main.reader.path == "Beta.md"
        await pilot.press("R")
        await settle(pilot)
        chance = app.main.reader.path
        assert chance not in ("", "Beta.md") and (root / chance).is_file()
    # Persisted per workspace: a new session lists them too.
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run_command(pilot, "History")
        assert _rows(app)[:2] == [chance, "Beta.md"]


async def test_the_tag_tree_nests_tags_with_counts_and_opens_a_note(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run_command(pilot, "Tags tree")
        assert isinstance(app.screen, TagTreeScreen)
        tree = app.screen.query_one(Tree)
        top = [(str(n.label), [str(c.label) for c in n.children]) for n in tree.root.children]
        assert top == [
            ("#idea  1", []),
            ("#project  3", ["#alpha  1", "#gamma  1"]),
        ]
        assert [str(c.label) for c in tree.root.children[1].children[0].children] == ["#one  1"]
        await pilot.press("down")  # #project
        await pilot.press("enter")  # its notes
        await settle(pilot)
        assert _rows(app) == ["Alpha.md", "Beta.md", "Gamma.md"]
        await pilot.press("escape")  # back to the tree
        assert app.screen.query_one(Tree).display
        await pilot.press("enter", "down", "enter")  # #project's notes, the second
        await settle(pilot)
        assert app.main.reader.path == "Beta.md"


async def test_new_in_a_vault_picks_a_template_and_writes_no_frontmatter(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, "Alpha.md")
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, PickScreen)
        assert _rows(app) == ["Blank note", "Templates/Day.md", "Templates/Meeting.md"]
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, NewNoteScreen)
        app.screen.query_one("#path", Input).value = "Standup.md"
        await pilot.click("#create")
        await settle(pilot)
        assert app.main.reader.path == "Standup.md"
    text = (root / "Standup.md").read_text(encoding="utf-8")
    assert text == f"# Standup\nmet on {date.today():%d.%m.%Y}\n"  # dateFormat from templates.json


def test_a_vault_without_obsidian_folder_keeps_bookmarks_in_the_state_folder(
    tmp_path: Path,
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    assert bookmarks_file(root, "vault").parent != root / ".obsidian"
    (root / ".obsidian").mkdir()
    assert bookmarks_file(root, "vault") == root / ".obsidian/bookmarks.json"
    assert bookmarks_file(root, "memory").parent != root / ".obsidian"


async def test_a_broken_bookmarks_file_is_explained_and_left_alone(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree({**VAULT, ".obsidian/bookmarks.json": '{"items": [{"type": "fi'})
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, "Alpha.md")
        await pilot.press("B")
        await settle(pilot)
        hint = str(app.screen.query_one("#pick-hint", Label).render())
        assert "bookmarks.json: not readable JSON" in hint
        await pilot.press("escape", "ctrl+b")
        await settle(pilot)
        await pilot.press("enter")  # bookmarking refuses, with one line
        await settle(pilot)
        assert any("not readable JSON" in n.message for n in said(app))
    assert (root / ".obsidian/bookmarks.json").read_text(encoding="utf-8") == (
        '{"items": [{"type": "fi'
    )
