"""Copying from the browser (`y`): what reaches the clipboard is what the dialog offered, in
the workspace's link style, for the hit, the links-pane entry or the note in focus.

`App.clipboard` holds what Textual sent to the terminal (as OSC 52) with `copy_to_clipboard`.
"""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import OptionList

from reme_tui.app.browser import RemeApp
from reme_tui.screens.copy import CopyScreen
from tests.conftest import write_files
from tests.helpers import settle
from tests.test_tui_app import SIZE, wait_until


async def _copy(pilot: Pilot, what: str) -> str:
    """Press `y`, choose `what`, and return what went to the clipboard."""
    app = pilot.app
    await pilot.press("y")
    # pushed is not yet composed: under load the list can be a frame later than the screen
    await wait_until(
        pilot, lambda: isinstance(app.screen, CopyScreen) and bool(app.screen.query(OptionList))
    )
    screen = app.screen
    assert isinstance(screen, CopyScreen)
    offered = [c.what for c in screen.choices]
    assert what in offered, offered
    screen.query_one(OptionList).highlighted = offered.index(what)
    await pilot.press("enter")
    await wait_until(pilot, lambda: not isinstance(app.screen, CopyScreen))
    return app.clipboard


async def _search(pilot: Pilot, query: str) -> None:
    await wait_until(pilot, lambda: pilot.app.ws is not None, timeout=60)
    await pilot.press(*query)
    await wait_until(pilot, lambda: bool(pilot.app.main.search_pane.hits))
    await pilot.press("down")


async def test_a_hit_copies_its_path_line_link_and_lines(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await _search(pilot, "solar")
        hit = app.main.search_pane.hits[0]
        assert (hit.path, hit.start_line, hit.end_line) == ("digest/wiki/solar.md", 7, 49)
        assert await _copy(pilot, "Path") == "digest/wiki/solar.md"
        assert await _copy(pilot, "Wikilink") == "[[digest/wiki/solar.md]]"  # memory: literal
        assert await _copy(pilot, "Wikilink L7-L49") == "[[digest/wiki/solar.md#L7-L49]]"
        markdown = await _copy(pilot, "Markdown link")
        assert markdown == "[Solar Energy Research](digest/wiki/solar.md)"
        lines = (indexed_demo / hit.path).read_text(encoding="utf-8").splitlines()[6:49]
        assert await _copy(pilot, "Lines 7-49") == "\n".join(lines)


async def test_in_a_vault_a_wikilink_is_the_shortest_unambiguous_name(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "vault",
        {
            ".obsidian/app.json": "{}",
            "Projects/Unique Name.md": "# Unique\n\nzebracorn [[A/Note]]\n",
            "A/Note.md": "# A note\n\nzebracorn\n",
            "B/note.md": "# Another note of the same name\n",
        },
    )
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await _search(pilot, "Unique")
        assert app.main.search_pane.highlighted_target()[0] == "Projects/Unique Name.md"
        assert await _copy(pilot, "Wikilink") == "[[Unique Name]]"
        assert await _copy(pilot, "Markdown link") == "[Unique Name](Projects/Unique%20Name.md)"
        await pilot.press("enter")  # open it; its links pane lists A/Note.md
        await settle(pilot)
        await wait_until(pilot, lambda: app.main.neighbours.data is not None)
        app.main.neighbours.query_one(OptionList).focus()
        await pilot.pause()
        assert app.main.pane_in_focus() == "links"
        target = app.main.neighbours.highlighted_target()
        assert target is not None and target[0] == "A/Note.md"
        assert await _copy(pilot, "Wikilink") == "[[A/Note]]"  # B/note.md shares the name


async def test_copy_with_nothing_in_focus_says_so(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.ws is not None, timeout=60)
        app.main.focus_reader()
        await pilot.pause()
        said: list[str] = []
        app.main.notify = lambda message, **kw: said.append(str(message))  # type: ignore[method-assign]
        await pilot.press("y")
        await pilot.pause()
        assert not isinstance(app.screen, CopyScreen)
        assert said == ["Open or highlight a note to copy from."]
        assert app.clipboard == ""
