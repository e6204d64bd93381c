"""The browser shows the loaded index first and catches up with the files after: a note
changed while it was closed reaches the search pane as a batch, with the watcher off (so
nothing but the start-up diff can bring it), and the result list follows it."""

from __future__ import annotations

import inspect
import os
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import RenderableType
from textual.screen import Screen

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


class _FramesBeforeWatching(RemeApp):
    """Counts the frames the browser draws between the open's result and the watcher."""

    CSS_PATH = Path(inspect.getfile(RemeApp)).with_name("app.tcss")

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.frames_since_open = 0
        self.frames_before_watching: int | None = None

    def _display(self, screen: Screen, renderable: RenderableType | None) -> None:
        if renderable is not None and self.ws is not None:
            self.frames_since_open += 1
        super()._display(screen, renderable)

    def start_watcher(self, on_placed: Callable[[], object] | None = None) -> None:
        self.frames_before_watching = self.frames_since_open
        super().start_watcher(on_placed)


async def test_the_counts_are_drawn_before_the_watcher_is_placed(indexed_demo: Path) -> None:
    """The start-up diff and the watcher's first diff compete for the interpreter (at 50k
    notes the frame with the counts came 0.35 s later): that frame comes first, and the
    watcher still starts and sees a note written after it."""
    app = _FramesBeforeWatching(indexed_demo)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.frames_before_watching is not None)
        assert app.frames_before_watching is not None and app.frames_before_watching >= 1
        await settle(pilot)
        note = indexed_demo / "digest/wiki/after-the-watcher.md"
        note.write_text("# After\n\nquorkelbine arrived while the browser watched\n", "utf-8")
        await search(pilot, "quorkelbine")
        pane = app.main.search_pane
        want = ["digest/wiki/after-the-watcher.md"]
        await wait_until(pilot, lambda: [h.path for h in pane.hits] == want, timeout=30)
