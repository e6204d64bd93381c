"""The move screen of a vault: its preview lists every link that changes and every one that
cannot, and a note leaving `.md` is moved only after a warning (issue 14, item 2)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import Button, Input

from reme_core import MoveReport, Workspace
from reme_tui.screens.file_ops import MoveScreen
from tests.helpers import until
from tests.test_tui_file_ops import Host, _unset, preview, settle

FILES: dict[str, str | bytes] = {
    ".obsidian/app.json": "{}",
    "Concepts/Digital garden.md": "# Garden\nsee [t](../other/Target.md)\n",
    "other/Target.md": "# Target\n",
    "index.md": "[[Digital garden]] and [[Concepts/Digital garden|the garden]]\n",
}


@pytest.fixture
def vault(make_tree: Callable[[dict[str, str | bytes]], Path]) -> Iterator[Workspace]:
    ws = Workspace.open(make_tree(FILES))
    yield ws
    ws.close()


async def test_the_preview_lists_changed_and_broken_links(vault: Workspace) -> None:
    app = Host(MoveScreen(vault, "Concepts/Digital garden.md"))
    async with app.run_test(size=(140, 50)) as pilot:
        app.screen.query_one("#dst", Input).value = "Archive/2024/Digital gardening.md"
        await settle(pilot)
        text = preview(app)
        assert "would rewrite 3 links in 2 files" in text
        assert "    1: [[Digital garden]] -> [[Digital gardening]]" in text
        assert (
            "    1: [[Concepts/Digital garden|the garden]] -> "
            "[[Archive/2024/Digital gardening|the garden]]"
        ) in text
        assert "    2: [t](../other/Target.md) -> [t](../../other/Target.md)" in text

        await pilot.click("#rewrite")  # rewriting off: the same links, listed as broken
        await settle(pilot)
        text = preview(app)
        assert "would rewrite 0 links in 0 files; 3 links would be left broken" in text
        assert "3 links cannot be rewritten:" in text
        assert "    2: [t](../other/Target.md)  (rewriting turned off)" in text
        assert (vault.root / "Concepts/Digital garden.md").exists()


async def test_leaving_md_warns_before_moving(vault: Workspace) -> None:
    app = Host(MoveScreen(vault, "Concepts/Digital garden.md"))
    async with app.run_test(size=(140, 50)) as pilot:
        app.screen.query_one("#dst", Input).value = "Concepts/Digital garden.txt"
        await settle(pilot)
        assert "warning:" in preview(app) and "no longer be a note" in preview(app)
        await pilot.click("#move")
        await settle(pilot)
        assert app.result is _unset  # the first Move only warns
        assert "Press Move again" in preview(app)
        assert (vault.root / "Concepts/Digital garden.md").exists()
        # a button ignores presses during its press effect
        button = app.screen.query_one("#move", Button)
        await until(pilot, lambda: not button.has_class("-active"), "the press effect to end")
        await pilot.click("#move")
        await settle(pilot)
    assert isinstance(app.result, MoveReport)
    assert (vault.root / "Concepts/Digital garden.txt").exists()
    assert (vault.root / "index.md").read_text() == (
        "[[Digital garden.txt]] and [[Concepts/Digital garden.txt|the garden]]\n"
    )
