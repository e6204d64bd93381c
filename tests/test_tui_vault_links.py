"""Every link form an Obsidian vault writes is followed from the keyboard in the reader.

The first version mapped the reader's links by their written target, so in a vault `[[Note]]`
led to "Dangling link: Note does not exist" although the links pane resolved it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reme_tui.app import RemeApp
from reme_tui.widgets.reader.note_view import NoteView
from tests.conftest import write_files
from tests.test_tui_app import SIZE, settle

VAULT = {
    "Home.md": (
        "# Home\n\n"
        "- by name: [[Solar panels]]\n"
        "- by path: [[Energy/Wind turbines]]\n"
        "- any case: [[battery storage]]\n"
        "- with a heading: [[Solar panels#Efficiency]]\n"
        "- a Markdown link: [the wind](Energy/Wind%20turbines.md)\n"
        "- by alias: [[PV]]\n"
    ),
    "Energy/Solar panels.md": (
        "---\naliases: [PV]\n---\n# Solar panels\n\nIntro.\n\n"
        + "filler\n" * 40
        + "## Efficiency\n\nAbout 22 percent.\n"
    ),
    "Energy/Wind turbines.md": "# Wind turbines\n\nBlades.\n",
    "Storage/Battery Storage.md": "# Battery Storage\n\nCells.\n",
}

EXPECTED = [
    ("Solar panels", "Energy/Solar panels.md"),
    ("Energy/Wind turbines", "Energy/Wind turbines.md"),
    ("battery storage", "Storage/Battery Storage.md"),
    ("Solar panels", "Energy/Solar panels.md"),
    ("Energy/Wind turbines.md", "Energy/Wind turbines.md"),
]


@pytest.mark.parametrize("nth", range(len(EXPECTED)))
async def test_each_vault_link_form_is_followed_with_tab_and_enter(tmp_path: Path, nth: int):
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path("Home.md")
        await settle(pilot)
        app.main.focus_reader()
        view = app.query_one(NoteView)
        for _ in range(nth + 1):
            await pilot.press("tab")
        link = view.selected_link
        assert link is not None and link.match.target == EXPECTED[nth][0]
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.reader.path == EXPECTED[nth][1]
        if nth == 3:  # `#Efficiency` scrolls to the heading
            line = next(
                i for i, text in enumerate(app.main.reader.view.lines, 1) if text == "## Efficiency"
            )
            assert view.current_place[1] <= line <= view.current_place[1] + view.size.height


async def test_a_link_to_an_alias_is_dangling_in_the_reader(tmp_path: Path) -> None:
    """Obsidian never resolves a link by alias (SPEC §4): `[[PV]]`, PV being only an alias
    of `Energy/Solar panels.md`, is a dangling link in the reader as in the links pane."""
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path("Home.md")
        await settle(pilot)
        app.main.focus_reader()
        view = app.query_one(NoteView)
        for _ in range(len(EXPECTED) + 1):
            await pilot.press("tab")
        link = view.selected_link
        assert link is not None and link.match.target == "PV"
        assert (link.target, link.kind) == ("PV", "dangling")
