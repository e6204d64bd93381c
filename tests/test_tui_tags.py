"""The Tags view (issue 14, item 3): from the command palette, every tag of a vault with its
count (inline, frontmatter and nested tags alike); Enter lists a tag's notes, Enter opens one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.widgets import Input, OptionList

from reme_core import Workspace, list_tags
from reme_tui.app.browser import RemeApp
from reme_tui.screens.tags import TagsScreen
from tests.helpers import settle
from tests.test_tui_upkeep import run_command

VAULT: dict[str, str | bytes] = {
    ".obsidian/app.json": "{}",
    "Alpha.md": "# Alpha\nabout #project/alpha and #idea\n",
    "Beta.md": "---\ntags: [project, Idea]\n---\n# Beta\n",
    "Gamma.md": "# Gamma\n`#not-a-tag` but #project/gamma\n",
    "Delta.md": "# Delta\nno tags\n",
}


def test_list_tags_counts_what_tag_search_finds(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    ws = Workspace.open(make_tree(VAULT))
    try:
        tags = [(t.tag, t.paths) for t in list_tags(ws)]
    finally:
        ws.close()
    assert tags == [
        ("project", ("Alpha.md", "Beta.md", "Gamma.md")),  # nested ones count for the parent
        ("idea", ("Alpha.md", "Beta.md")),  # one tag whatever its case (first spelling)
        ("project/alpha", ("Alpha.md",)),
        ("project/gamma", ("Gamma.md",)),
    ]


async def test_the_tags_view_opens_a_tagged_note(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    app = RemeApp(make_tree(VAULT), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run_command(pilot, "Tags")
        assert isinstance(app.screen, TagsScreen)
        options = app.screen.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert shown == ["#project  3", "#idea  2", "#project/alpha  1", "#project/gamma  1"]

        await pilot.press(*"gam")  # the filter has the focus
        await pilot.pause()
        assert options.option_count == 1
        await pilot.press("enter")  # the only tag left: its notes
        await pilot.pause()
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == [
            "Gamma.md"
        ]
        await pilot.press("escape")  # back to every tag, the filter kept
        await pilot.pause()
        assert isinstance(app.screen, TagsScreen) and options.option_count == 1
        app.screen.query_one(Input).value = ""
        await pilot.pause()
        await pilot.press("down", "down", "enter")  # "#idea": Alpha, Beta
        await pilot.pause()
        await pilot.press("down", "enter")  # Beta
        await settle(pilot)
        assert not isinstance(app.screen, TagsScreen)
        assert app.main.reader.path == "Beta.md"


async def test_down_from_the_filter_lands_on_the_first_tag(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """Down then Enter lists the first tag's notes (the list used to take the focus with no
    row highlighted, and Enter did nothing)."""
    app = RemeApp(make_tree(VAULT), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await run_command(pilot, "Tags")
        assert isinstance(app.screen, TagsScreen)
        await settle(pilot)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.screen.shown is not None and app.screen.shown.tag == "project"


async def test_the_tags_are_listed_after_the_dialog_first_drew(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """The listing (most of a second of the GIL at 50k notes) starts once the dialog has drawn
    its first frame, not while it draws it; the tags still come."""
    app = RemeApp(make_tree(VAULT), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        listing_at_first_frame: list[bool] = []
        display = app._display  # Textual's write of a composed frame

        def spied(*args: object) -> None:
            display(*args)  # type: ignore[arg-type]
            if isinstance(app.screen, TagsScreen) and not listing_at_first_frame:
                listing_at_first_frame.append(any(w.group == "tags" for w in app.screen.workers))

        app._display = spied  # type: ignore[method-assign]
        await app.main.run_action("tags")
        await settle(pilot)
        assert listing_at_first_frame == [False]
        assert app.screen.query_one(OptionList).option_count == 4
