"""Every screen and dialog of `reme_tui` drawn at 80×24 (the smallest common terminal), and the
ones no other module draws wide also at 140×40; a new screen class without a snapshot fails
`test_every_screen_class_has_a_snapshot`.

Each dialog is reached as a person reaches it (keys on a copy of the indexed demo at
`<tmp>/demo`), with the same calm-down as `test_tui_screen_snapshots.py`. The screens drawn by
other modules are named in `ELSEWHERE` with the test that draws them at 80×24.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

import reme_tui
from reme_tui.app.browser import CommandPalette
from reme_tui.screens.copy import CopyScreen
from reme_tui.screens.create_note import CreateNoteScreen
from reme_tui.screens.file_ops import DeleteScreen, MoveScreen, NewNoteScreen
from reme_tui.screens.new_folder import NewFolderScreen
from reme_tui.screens.property_edit import PropertyScreen
from reme_tui.screens.tags import TagsScreen
from reme_tui.screens.web_link import OpenWebScreen
from reme_tui.widgets.switcher import SwitcherPalette
from tests.helpers import until
from tests.test_tui_screen_snapshots import LINKS_NOTE, LINKS_TEXT, browser, calm, on_top, opened

NARROW = (80, 24)
WIDE = (140, 40)
TESTS = Path(__file__).resolve().parent

Reach = Callable[[Pilot, Path], Awaitable[None]]


async def _create_note(pilot: Pilot, root: Path) -> None:
    await opened(pilot, LINKS_NOTE)
    await pilot.press("tab", "enter")  # the link to a note that does not exist
    await on_top(pilot, CreateNoteScreen)


async def _new_folder(pilot: Pilot, root: Path) -> None:
    app = await opened(pilot, "digest/wiki/bm25.md")
    await pilot.press("ctrl+e")
    await calm(pilot)
    view = app.main.files_pane.view
    view.reveal("digest/wiki/bm25.md")
    view.focus()
    await calm(pilot)
    await pilot.press("f7")
    await on_top(pilot, NewFolderScreen)


async def _property(pilot: Pilot, root: Path) -> None:
    await opened(pilot, "digest/wiki/rrf.md")
    await pilot.press("p")
    await on_top(pilot, PropertyScreen)


async def _tags(pilot: Pilot, root: Path) -> None:
    app = await opened(pilot)
    app.main.action_tags()
    await on_top(pilot, TagsScreen)


async def _copy(pilot: Pilot, root: Path) -> None:
    await opened(pilot, "digest/wiki/rrf.md")
    await pilot.press("y")
    await on_top(pilot, CopyScreen)


async def _move(pilot: Pilot, root: Path) -> None:
    app = await opened(pilot)
    await pilot.press("r")
    await on_top(pilot, MoveScreen)
    app.screen.query_one("#dst", Input).value = "digest/wiki/retrieval-regression.md"
    await calm(pilot)


async def _delete(pilot: Pilot, root: Path) -> None:
    await opened(pilot, "digest/wiki/rrf.md")
    await pilot.press("delete")
    await on_top(pilot, DeleteScreen)
    preview = pilot.app.screen.query_one("#delete-preview")
    await until(pilot, lambda: "inbound" in str(preview.render()), "the inbound links")
    await calm(pilot)


async def _new_note(pilot: Pilot, root: Path) -> None:
    await opened(pilot, "digest/wiki/rrf.md")
    await pilot.press("n")
    await on_top(pilot, NewNoteScreen)


async def _web(pilot: Pilot, root: Path) -> None:
    await opened(pilot, LINKS_NOTE)
    await pilot.press("tab", "tab", "enter")
    await on_top(pilot, OpenWebScreen)


async def _switcher(pilot: Pilot, root: Path) -> None:
    await opened(pilot)
    await pilot.press("o")
    await on_top(pilot, SwitcherPalette)
    await pilot.press(*"rrf")
    await calm(pilot)


async def _palette(pilot: Pilot, root: Path) -> None:
    await opened(pilot)
    await pilot.press("ctrl+p")
    await on_top(pilot, CommandPalette)
    await pilot.press(*"index")  # the providers' order is not fixed: a query is
    await calm(pilot)


# Each dialog class (by name) and how a person reaches it.
REACH: dict[str, Reach] = {
    "CreateNoteScreen": _create_note,
    "NewFolderScreen": _new_folder,
    "PropertyScreen": _property,
    "TagsScreen": _tags,
    "CopyScreen": _copy,
    "MoveScreen": _move,
    "DeleteScreen": _delete,
    "NewNoteScreen": _new_note,
    "OpenWebScreen": _web,
    "SwitcherPalette": _switcher,
    "CommandPalette": _palette,
}
# Drawn at 80×24 by another module: (its file, the test).
ELSEWHERE: dict[str, tuple[str, str]] = {
    "MainScreen": ("test_tui_screen_snapshots.py", "test_snapshot_narrow_80x24"),
    "BookmarksScreen": ("test_tui_browse_snapshots.py", "test_snapshot_bookmarks_list"),
    "PickScreen": ("test_tui_browse_snapshots.py", "test_snapshot_history"),
    "TagTreeScreen": ("test_tui_browse_snapshots.py", "test_snapshot_tag_tree"),
    "GraphScreen": ("test_tui_snapshots_embeds.py", "test_snapshot_graph"),
}
# Bases that are never shown themselves: their subclasses are.
BASES = {"Host", "FileOpScreen", "TagListing", "Backdropped"}
# Drawn wide nowhere else (the rest: test_tui_screen_snapshots.py, test_tui_snapshots.py).
WIDE_TOO = ["NewFolderScreen", "PropertyScreen"]


def _screen_classes() -> set[str]:
    """Every `Screen` subclass defined in `reme_tui` (the program's entry module, which runs
    the browser, and the demo's notes are not imported)."""
    for module in pkgutil.walk_packages(reme_tui.__path__, "reme_tui."):
        if not module.name.endswith("__main__") and ".demo" not in module.name:
            importlib.import_module(module.name)
    found: set[str] = set()
    todo: list[type] = [Screen]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("reme_tui."):
                found.add(sub.__name__)
    return found


def _test_names(file: str) -> set[str]:
    tree = ast.parse((TESTS / file).read_text("utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_screen_class_has_a_snapshot() -> None:
    """A new screen or dialog gets a snapshot here (or in a module named in ELSEWHERE)."""
    classes = _screen_classes()
    covered = set(REACH) | set(ELSEWHERE) | BASES
    assert classes - covered == set(), "screens without a snapshot"
    assert covered - classes == set(), "names that are no screen class of reme_tui"
    for file, test in ELSEWHERE.values():
        assert test in _test_names(file), (file, test)


async def _reached(pilot: Pilot, name: str, root: Path) -> None:
    await REACH[name](pilot, root)
    assert type(pilot.app.screen).__name__ == name


@pytest.mark.parametrize("name", sorted(REACH))
def test_snapshot_dialog_80x24(
    name: str, indexed_demo: Path, snap_compare, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "SSH_CONNECTION", "SSH_TTY"):
        monkeypatch.delenv(var, raising=False)  # a web link asks first, as in a bare terminal
    (indexed_demo / LINKS_NOTE).write_text(LINKS_TEXT, encoding="utf-8")

    async def run_before(pilot: Pilot) -> None:
        await _reached(pilot, name, indexed_demo)

    assert snap_compare(browser(indexed_demo), terminal_size=NARROW, run_before=run_before)


@pytest.mark.parametrize("name", WIDE_TOO)
def test_snapshot_dialog_wide(name: str, indexed_demo: Path, snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _reached(pilot, name, indexed_demo)

    assert snap_compare(browser(indexed_demo), terminal_size=WIDE, run_before=run_before)
