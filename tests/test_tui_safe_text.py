"""Escape sequences in a note never reach the terminal through the browser's widgets."""

from __future__ import annotations

from pathlib import Path

from reme_tui.app import RemeApp
from reme_tui.widgets.neighbour_entry import neighbour
from reme_tui.widgets.reader.note_view import NoteView
from reme_tui.widgets.search.hit_block import HitBlock
from tests.conftest import write_files
from tests.test_tui_app import SIZE, settle

OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"
TITLE = "\x1b]0;owned\x07"
CSI = "\x9b31m"


async def test_control_sequences_are_not_drawn(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "vault",
        {
            "Evil.md": f"---\nname: bad{TITLE}name\n---\n# Evil\n\nzircon {OSC52} and {CSI}red\n",
            "Home.md": "# Home\n\nSee [[Evil]] for zircon.\n",
        },
    )
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        hits = app.ws.search("zircon", expand_links=False).results
        for hit in hits:
            block = HitBlock.of(hit, ["zircon"])
            assert all("\x1b" not in ln and "\x9b" not in ln for _, ln in block.lines)
        app.main.navigator.open_path("Evil.md")
        await settle(pilot)
        view = app.query_one(NoteView)
        assert not any("\x1b" in ln or "\x07" in ln or "\x9b" in ln for ln in view.lines)
        assert any("zircon" in ln for ln in view.lines)
    entry = neighbour("→", "Evil.md", f"bad{TITLE}name", f"d{OSC52}")
    text = "".join(str(t) for t in entry.row_texts())
    assert "\x1b" not in text and "\x07" not in text and "bad]0;ownedname" in text
