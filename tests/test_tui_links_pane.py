"""The links pane under App.run_test on a vault whose hub note has 2,000+ links: the same
neighbours as Workspace.links, every entry selectable, the traverse gathered when asked for;
emoji variation selectors never drawn; a link out of the vault is a notification."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import OptionList

from reme_core import Workspace
from reme_tui.app.browser import RemeApp
from reme_tui.widgets.search.hit_block import HitBlock
from tests.conftest import write_files
from tests.test_tui_app import SIZE, settle, wait_until

# One worker builds the module's costly fixture once (not once per worker).
pytestmark = pytest.mark.xdist_group("tui_links_pane")

EXISTING = 60  # the hub's last links are notes; the 2,000 before them dangle
DANGLING = 2_000
INLINKING = 40
FOLDER = "🗂️ Index.md"  # U+1F5C2 U+FE0F: rich says two cells, tmux draws one


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("links") / "vault"
    links = [f"- [[Target {n:04}]]" for n in range(EXISTING + DANGLING)]
    files: dict[str, str] = {
        ".obsidian/app.json": "{}",
        "Hub.md": "# Hub\n\nSee [[🗂️ Index]] and\n\n" + "\n".join(links) + "\n",
        FOLDER: "---\nname: 🗂️ Index\ndescription: 🗂️ where the files are\n---\n# 🗂️ Index\n",
        "Away.md": "# Away\n\nOut: [[../../../etc/passwd]] and back to [[Hub]].\n",
    }
    for n in range(DANGLING, DANGLING + EXISTING):  # the last links, far down the pane
        files[f"targets/Target {n:04}.md"] = f"---\ndescription: target {n}\n---\n# T{n}\n"
    for n in range(INLINKING):
        files[f"refs/Ref {n}.md"] = f"# Ref {n}\n\nBack to [[Hub]].\n"
    return write_files(root, files)


def _rows(app: RemeApp) -> list[str]:
    listed = app.query_one("#neighbours-list", OptionList)
    return [listed.render_line(y).text for y in range(listed.size.height)]


async def _open(app: RemeApp, pilot, path: str) -> None:
    app.main.navigator.open_path(path)
    await wait_until(
        pilot,
        lambda: (
            app.main.reader.path == path
            and app.main.neighbours.data is not None
            and app.main.neighbours.data.path == path
        ),
        timeout=60,
    )


async def test_a_note_with_2000_links(vault: Path) -> None:
    expected = Workspace.open(vault).links("Hub.md")
    assert len(expected.outlinks) > EXISTING + DANGLING
    app = RemeApp(vault, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.ws is not None, timeout=60)
        await _open(app, pilot, "Hub.md")
        data = app.main.neighbours.data
        assert [n.path for n in data.outlinks] == [n.path for n in expected.outlinks]
        assert [n.path for n in data.inlinks] == [n.path for n in expected.inlinks]
        listed = app.query_one("#neighbours-list", OptionList)
        groups = len(data.outlinks) + len(data.inlinks) + len(data.mentions)
        assert listed.option_count == groups + 3  # three headers
        assert data.traverse is None  # not gathered while the pane shows links
        assert any(row.startswith(f"Outlinks ({len(data.outlinks):,})") for row in _rows(app))

        # The last entry that is a note, far below the screen, opens from the keyboard.
        targets = [t[0] if t else "" for t in app.main.neighbours._targets]
        last = max(i for i, p in enumerate(targets) if p.startswith("targets/"))
        assert last > 2_000
        listed.focus()
        listed.highlighted = last
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main.reader.path == targets[last])

        # Back to the hub in the rendered view, then its traverse.
        app.main.reader.markdown_mode = True
        await _open(app, pilot, "Hub.md")
        await wait_until(pilot, lambda: app.main.reader.view.rendered is not None)
        app.main.focus_reader()
        await pilot.press("t")
        await wait_until(pilot, lambda: app.main.neighbours.data.traverse is not None)
        data = app.main.neighbours.data
        assert "Traverse" in app.main.neighbours.border_title
        depths = {n.depth for n in data.traverse}
        assert listed.option_count == len(data.traverse) + len(depths)
        assert {n.path for n in data.traverse} >= {n.path for n in expected.inlinks}


async def test_variation_selectors_are_never_drawn(vault: Path) -> None:
    app = RemeApp(vault, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.ws is not None, timeout=60)
        await _open(app, pilot, "Hub.md")
        listed = app.query_one("#neighbours-list", OptionList)
        rows, width = _rows(app), listed.scrollable_content_region.width
        assert any("🗂 Index" in row for row in rows)
        assert any("🗂 where the files are" in row for row in rows)
        assert all("\ufe0f" not in row and cell_len(row) == width for row in rows)

        hits = app.ws.search("index", expand_links=False).results
        hit = next(h for h in hits if h.path == FOLDER)
        header = HitBlock.of(hit, ["index"]).header_text(60)
        assert "\ufe0f" not in header.plain and "🗂 Index.md" in header.plain
        app.main.status.update_state(activity=f"opened {FOLDER}")
        assert "\ufe0f" not in str(app.main.status.render())

        # Selecting the entry opens the note by its real name, selector and all.
        index = [t[0] if t else "" for t in app.main.neighbours._targets].index(FOLDER)
        listed.focus()
        listed.highlighted = index
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main.reader.path == FOLDER)


async def test_a_link_out_of_the_vault_is_a_notification(vault: Path) -> None:
    app = RemeApp(vault, watch=False)
    notes: list[str] = []
    notify = app.notify

    def record(message: str, **kwargs) -> None:  # type: ignore[no-untyped-def]
        notes.append(message)
        notify(message, **kwargs)

    app.notify = record  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.ws is not None, timeout=60)
        await _open(app, pilot, "Away.md")
        targets = [t[0] if t else "" for t in app.main.neighbours._targets]
        outside = next(i for i, p in enumerate(targets) if p.startswith("../"))
        listed = app.query_one("#neighbours-list", OptionList)
        listed.focus()
        listed.highlighted = outside
        await pilot.press("enter")
        await settle(pilot)
        assert any("escapes the workspace" in n for n in notes)
        assert app.main.reader.path == "Away.md"
        notes.clear()
        app.main.navigator.open_path("../outside.md")  # as a search hit or any caller would
        await settle(pilot)
        assert any("escapes the workspace" in n for n in notes)
        assert app.main.reader.path == "Away.md"
