"""Issue 30 in the browser: links and `e` inside embeds, editing a property, the local graph."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.drivers.headless_driver import HeadlessDriver
from textual.widgets import Input

from reme_tui.app import RemeApp
from reme_tui.screens.graph import GraphScreen, GraphView
from reme_tui.screens.property_edit import PropertyScreen
from reme_tui.widgets.reader.note_view import NoteView
from tests.conftest import write_files
from tests.test_tui_app import SIZE, settle, wait_until
from tests.test_tui_rendered_view import open_rendered

HUB = (
    "---\ntitle: Hub\nstatus: draft\ncount: 2\ntags: [a, b]\n---\n# Hub\n\n"
    "Intro line.\n\n![[Part#Wanted]]\n\nSee [[Leaf]] and [[Other]].\n"
)
VAULT = {
    "Hub.md": HUB,
    "Part.md": "# Part\n\ntop\n\n## Wanted\n\nInside goes to [[Target]].\n\n## After\n\nno\n",
    "Target.md": "# Target\n\nArrived.\n",
    "Leaf.md": "# Leaf\n\nBack to [[Hub]].\n\nAnd [[Deep]].\n",
    "Other.md": "# Other\n\nalone\n",
    "Deep.md": "# Deep\n\nfar\n",
    "sub/Fan.md": "# Fan\n\nI like [[Hub]].\n",
}


async def test_link_inside_an_embed_is_followed(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await open_rendered(pilot, "Hub.md")
        for _ in range(10):
            await pilot.press("tab")
            link = view.selected_link
            if link is not None and link.target == "Target.md":
                break
        assert link is not None and link.target == "Target.md" and link.source == "Part.md"
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.reader.path == "Target.md"


async def test_edit_on_an_embedded_line_opens_the_embedded_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    calls = tmp_path / "editor-args"
    editor = tmp_path / "editor.py"
    editor.write_text(f"import sys\nopen({str(calls)!r}, 'w').write(' '.join(sys.argv[1:]))\n")
    monkeypatch.setenv("VISUAL", f"{sys.executable} {editor}")
    # The headless driver has no terminal to lend the editor; let it pretend (as
    # test_tui_upkeep does): the command it runs is what is checked.
    monkeypatch.setattr(HeadlessDriver, "can_suspend", property(lambda self: True))
    monkeypatch.setattr(HeadlessDriver, "suspend_application_mode", lambda self: None)
    monkeypatch.setattr(HeadlessDriver, "resume_application_mode", lambda self: None)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await open_rendered(pilot, "Hub.md")
        for _ in range(10):
            await pilot.press("tab")
            if view.selected_link is not None and view.selected_link.target == "Target.md":
                break
        assert view.current_place == ("Part.md", 7)
        await pilot.press("e")
        await settle(pilot)
        await wait_until(pilot, calls.exists)
        assert calls.read_text() == f"+7 {root / 'Part.md'}"
        assert app.main.reader.path == "Hub.md"  # the open note stays open


async def test_editing_a_property_keeps_the_other_keys_in_order(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await open_rendered(pilot, "Hub.md")
        assert any(t.startswith("count") and "number" in t for t in view._texts)
        await pilot.press("p")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, PropertyScreen)
        dialog.query_one("#property-key", Input).value = "count"
        value = dialog.query_one("#value", Input)
        value.value = "seven"
        value.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog, "a word for a number is refused"
        value.value = "7"
        await pilot.press("enter")
        await settle(pilot)
        await wait_until(pilot, lambda: "count: 7" in (root / "Hub.md").read_text())
        text = (root / "Hub.md").read_text()
        assert text.startswith("---\ntitle: Hub\nstatus: draft\ncount: 7\ntags: [a, b]\n---\n")
        assert text.endswith(HUB.split("---\n", 2)[2])


def _labels(screen: GraphScreen) -> dict[str, str]:
    picture = screen.view.picture
    assert picture is not None
    return {key: placed.text for key, placed in picture.layout.placed.items()}


async def test_graph_walk_recentre_open_and_back(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path("Hub.md")
        await settle(pilot)
        app.main.focus_reader()
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GraphScreen)
        await wait_until(pilot, lambda: screen.view.picture is not None)
        labels = _labels(screen)
        assert labels["Hub.md"] == "Hub"
        assert labels["Leaf.md"] == "↔ Leaf"  # links both ways
        assert labels["Other.md"] == "→ Other"
        assert labels["sub/Fan.md"] == "← Fan"
        assert "Deep.md" not in labels  # depth 1
        assert screen.view.selected == "Hub.md"
        seen = set()
        for key in ("right", "down", "left", "up", "right", "down"):
            await pilot.press(key)
            seen.add(screen.view.selected)
        assert len(seen) >= 3, "arrows walk from node to node"
        screen.view.select("Leaf.md")
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: screen.view.picture is not None and "Deep.md" in _labels(screen)
        )
        assert screen.centre == "Leaf.md"
        await pilot.press("2")
        await wait_until(pilot, lambda: "Other.md" in _labels(screen))  # two links away
        screen.view.select("Deep.md")
        await pilot.press("o")
        await settle(pilot)
        assert not isinstance(app.screen, GraphScreen)
        assert app.main.reader.path == "Deep.md"
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, GraphScreen)
        assert app.main.reader.path == "Deep.md"


async def test_graph_filter_by_folder(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path("Hub.md")
        await settle(pilot)
        app.main.focus_reader()
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GraphScreen)
        await pilot.press("f")
        await pilot.press(*"sub/", "enter")
        await wait_until(pilot, lambda: "Leaf.md" not in _labels(screen))
        assert set(_labels(screen)) == {"Hub.md", "sub/Fan.md"}
        assert isinstance(screen.view, GraphView) and screen.view.has_focus
        assert isinstance(app.query_one(NoteView), NoteView)
