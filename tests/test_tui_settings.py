"""User settings and workspace state across sessions, under App.run_test() with the config and
state folders in tmp_path: a theme and a remapped key chosen in one session hold in the next,
the last query and recent notes come back, bad entries are named with file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.widgets import Input

from reme_tui.app.browser import RemeApp
from reme_tui.settings import load_settings, save_setting, settings_path
from reme_tui.state import load_state
from reme_tui.widgets.outline import OutlinePane
from reme_tui.widgets.switcher import SwitcherPalette
from tests.test_tui_app import settle, wait_until


@pytest.fixture
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path


async def test_theme_and_keymap_hold_in_the_next_session(
    indexed_demo: Path, user_dirs: Path
) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.ws is not None)
        assert app.theme != "nord"
        app.theme = "nord"  # what the palette's theme picker does
        await settle(pilot)
    path = settings_path()
    assert path.is_relative_to(user_dirs / "config")
    assert load_settings(path).theme == "nord"
    with path.open("a", encoding="utf-8") as f:
        f.write("keymap:\n  switcher: ctrl+k\n")

    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.ws is not None)
        assert app.theme == "nord"
        app.screen.query_one("#note").focus()
        await pilot.press("ctrl+k")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("o")  # the remapped binding left its old key
        await settle(pilot)
        assert not isinstance(app.screen, CommandPalette)
    assert "# reme-tui browser settings" in path.read_text(encoding="utf-8")  # comments kept


async def test_last_query_and_recent_notes_come_back(indexed_demo: Path, user_dirs: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.ws is not None)
        await pilot.press(*"solar")
        await wait_until(pilot, lambda: bool(app.main.search_pane.hits))
        app.main.navigator.open_path("digest/wiki/solar.md")
        await settle(pilot)
    state = load_state(indexed_demo)
    assert state.path.is_relative_to(user_dirs / "state")
    assert state.last_query == "solar" and state.recent[0] == "digest/wiki/solar.md"

    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: bool(app.main.search_pane.hits))
        assert app.query_one("#query", Input).value == "solar"


async def test_bad_settings_are_named_and_the_rest_applies(
    indexed_demo: Path, user_dirs: Path
) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text(
        "theme: no-such-theme\nlinks_pane: hide\nkeymap:\n  nope: ctrl+k\n  back: 'a b'\n"
        "reader_mode: sideways\n",
        encoding="utf-8",
    )
    notes: list[str] = []
    app = RemeApp(indexed_demo, watch=False)
    app.notify = lambda message, **_: notes.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.ws is not None)
        assert not app.main.neighbours.display  # links_pane: hide applied despite the rest
    text = "\n".join(notes)
    assert f"{path}:1: theme: unknown theme 'no-such-theme'" in text
    assert f"{path}:4: keymap.nope: unknown binding id" in text
    assert f"{path}:5: keymap.back: expected keys" in text
    assert f"{path}:6: reader_mode: must be one of source, rendered" in text


def test_save_setting_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.yaml"
    path.write_text("# mine\ntheme: nord\nlinks_pane: show  # always\n", encoding="utf-8")
    save_setting(path, "theme", "gruvbox")
    assert path.read_text(encoding="utf-8") == (
        "# mine\ntheme: gruvbox\nlinks_pane: show  # always\n"
    )
    path.write_text("theme: [1\n", encoding="utf-8")
    problems = load_settings(path).problems
    assert problems and f"{path}:2:1: not valid YAML" in problems[0]


async def test_newer_bindings_can_be_remapped(indexed_demo: Path, user_dirs: Path) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text(
        "keymap:\n  reader.outline: j\n  outline.leave: ctrl+g\n  switcher.close: ctrl+g\n"
        "  create.confirm: c\n  create.cancel: x\n  tags.back: ctrl+g\n",
        encoding="utf-8",
    )
    notes: list[str] = []
    app = RemeApp(indexed_demo, watch=False)
    app.notify = lambda message, **_: notes.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.ws is not None)
        app.main.navigator.open_path("digest/wiki/solar.md")
        await settle(pilot)
        outline = app.screen.query_one(OutlinePane)
        app.main.focus_reader()
        await pilot.press("h")  # the outline's old key does nothing now
        await settle(pilot)
        assert not outline.display
        await pilot.press("j")
        await settle(pilot)
        assert outline.display and app.focused is outline
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert app.focused is app.screen.query_one("#note")
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, SwitcherPalette))
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: not isinstance(app.screen, SwitcherPalette))
    assert not [n for n in notes if "keymap" in n], notes
