"""The browser shows the loaded index first and catches up with the files after: a note
changed while it was closed reaches the search pane as a batch, with the watcher off (so
nothing but the start-up diff can bring it), and the result list follows it."""

from __future__ import annotations

import os
import time
from pathlib import Path

from reme_tui.app.browser import RemeApp
from tests.helpers import settle
from tests.test_tui_app import SIZE, search, wait_until

NOTE = "daily/2026-06-15/retrieval-regression.md"


async def test_a_note_changed_while_closed_reaches_the_results(indexed_demo: Path) -> None:
    note = indexed_demo / NOTE
    note.write_text("# Changed\n\nzyzzogeton appeared while the browser was closed\n", "utf-8")
    old = time.time() - 3600
    os.utime(note, (old, old))
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "zyzzogeton")
        pane = app.main.search_pane
        await wait_until(pilot, lambda: [h.path for h in pane.hits] == [NOTE])
        assert app.ws is not None and NOTE in app.ws.files()


async def test_the_bar_is_hidden_once_the_start_up_diff_ends(indexed_demo: Path) -> None:
    """The diff's last progress message (100 %) is drawn before the bar is hidden, however the
    worker's end and the screen's queue interleave: a bar left at 100 % says work is going on."""
    for i in range(300):  # above the parse pool's threshold: the diff reports progress
        note = indexed_demo / f"digest/wiki/added-{i:03}.md"
        note.write_text(f"# Added {i}\n\nword{i}\n", "utf-8")
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)  # the open, then the diff
        assert app.ws is not None and "digest/wiki/added-299.md" in app.ws.files()
        assert not app.main.progress_bar.display
        assert app.main.status.state.activity == ""
