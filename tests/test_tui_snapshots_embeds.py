"""Snapshots of issue 30's views at 80x24 and 160x45: the rendered view with its properties
panel and each kind of embed (note, heading, block, missing, image), and the local graph on a
small note and on a hub (folded neighbours)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from reme_tui.app.browser import RemeApp
from reme_tui.screens.graph import GraphScreen
from tests.conftest import write_files
from tests.test_tui_snapshots import _settle

SIZES = [(80, 24), (160, 45)]

NOTE = (
    "---\ntitle: Embeds\nstatus: draft\nrating: 4\ndone: false\ndate: 2024-05-01\n"
    "related: '[[Plain]]'\ntags: [demo, embeds]\n---\n"
    "# Embeds\n\n"
    "![[Plain]]\n\n"
    "![[Sections#Second]]\n\n"
    "![[Sections#^quote]]\n\n"
    "![[Nowhere]]\n\n"
    "![[pic.png]]\n\nThe end.\n"
)
VAULT: dict[str, str | bytes] = {
    "Embeds.md": NOTE,
    "Plain.md": "# Plain\n\nA whole note, with a [[Sections|link]].\n",
    "Sections.md": (
        "# Sections\n\n## First\n\nnot shown\n\n## Second\n\nshown **here**\n\n"
        "- one\n- two ^quote\n- three\n\n## Third\n\nnot shown either\n"
    ),
    "pic.png": b"\x89PNG\r\n\x1a\n" + b"\0" * 2040,
}
for i in range(30):
    VAULT[f"{['people', 'places', 'things'][i % 3]}/Item {i:02}.md"] = (
        f"# Item {i}\n\nSee [[Embeds]]" + (" and [[Plain]]." if i % 4 == 0 else ".")
    )


def _app(tmp_path: Path) -> RemeApp:
    root = write_files(tmp_path / "vault", VAULT)
    (root / ".obsidian").mkdir()
    return RemeApp(root, watch=False)


async def _open(pilot: Pilot, path: str) -> None:
    app = pilot.app
    await _settle(pilot)
    app.main.navigator.open_path(path)
    await _settle(pilot)
    app.main.focus_reader()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x45"])
def test_snapshot_rendered_embeds_and_properties(tmp_path: Path, snap_compare, size) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _open(pilot, "Embeds.md")
        await pilot.press("m")
        await _settle(pilot)

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x45"])
@pytest.mark.parametrize("note", ["Sections.md", "Embeds.md"], ids=["small", "hub"])
def test_snapshot_graph(tmp_path: Path, snap_compare, size, note: str) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _open(pilot, note)
        await pilot.press("v")
        await _settle(pilot)
        assert isinstance(pilot.app.screen, GraphScreen)
        await pilot.press("right")
        await _settle(pilot)

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)
