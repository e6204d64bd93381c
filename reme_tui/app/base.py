"""What every part of the browser shares: its panes, how a note is shown, progress, counts.

`RemeApp` (reme_tui.app.browser) is built on this, beside the parts that add actions to it
(`NoteOps`, `Upkeep`, `Preferences`); each worker here posts its result as a message, handled
on the UI thread.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from textual import on, work
from textual.app import App
from textual.widgets import ProgressBar
from textual.worker import get_current_worker

from reme_core import FileRefused, PathRefused, Workspace
from reme_tui.messages import (
    IndexProgress,
    NeighboursGathered,
    NoteRead,
    NoteUnreadable,
    StatsCounted,
)
from reme_tui.state import WorkspaceState
from reme_tui.widgets.neighbours import NeighboursPane, gather
from reme_tui.widgets.reader.reader import Place, Reader, load_note
from reme_tui.widgets.search.pane import SearchPane
from reme_tui.widgets.status import StatusBar

PROGRESS_EVERY = 0.1


class BrowserBase(App[None]):
    """The browser's panes (made by `RemeApp.compose`) and the ways to fill them."""

    _status: StatusBar
    _search: SearchPane
    _reader: Reader
    _neighbours: NeighboursPane
    _progress_bar: ProgressBar
    app_state: WorkspaceState  # loaded by Preferences.apply_settings at mount

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.root = Path(path)
        self.ws: Workspace | None = None
        self.last_optimize: list[str] = []
        self._watch_stop: asyncio.Event | None = None

    # -- parts ----------------------------------------------------------------------------------
    @property
    def status(self) -> StatusBar:
        return self._status

    @property
    def reader(self) -> Reader:
        return self._reader

    @property
    def search_pane(self) -> SearchPane:
        return self._search

    @property
    def neighbours(self) -> NeighboursPane:
        return self._neighbours

    def _progress(self, verb: str) -> Callable[[int, int], None]:
        """A thread-safe, throttled progress callback feeding the bar and the header."""
        last = [0.0]

        def report(done: int, total: int) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY or done >= total:
                last[0] = now
                self.post_message(IndexProgress(verb, done, total))

        return report

    @on(IndexProgress)
    def _index_progress(self, message: IndexProgress) -> None:
        self._show_progress(message.verb, message.done, message.total)

    def _show_progress(self, verb: str, done: int, total: int) -> None:
        bar = self._progress_bar
        bar.display = True
        bar.update(total=max(total, 1), progress=done)
        self.status.update_state(activity=f"{verb}: {total:,} notes found, {done:,} read")

    def _progress_done(self, activity: str = "") -> None:
        self._progress_bar.display = False
        self.status.update_state(activity=activity)

    def remember_note(self, path: str) -> None:
        """A note opened: first among the recent notes, saved at once (a kill keeps it)."""
        self.app_state.opened(path)
        self.app_state.save()

    def open_path(
        self,
        path: str,
        ranges: list[tuple[int, int]] | None = None,
        anchor: str = "",
        *,
        record: bool = True,
        top: int | None = None,
    ) -> None:
        """Show a note (with ranges or an anchor) and its neighbours; explain dangling links."""
        if self.ws is None:
            return
        try:
            node = self.ws.node(path)
        except PathRefused as exc:  # a `../..` link out of the workspace
            self.notify(str(exc), title="Link", severity="warning")
            return
        if node is None and not (self.ws.root / path).exists():
            self.notify(
                f"Dangling link: {path} does not exist (yet).", title="Link", severity="warning"
            )
            return
        if record and path:
            current = self.reader.here()
            if current is None or current.path != path or ranges or anchor:
                self.reader.history.visit(current)
        self.read_worker(path, list(ranges or []), anchor, top)
        self.neighbours_worker(path)
        self.remember_note(path)

    @work(thread=True, exclusive=True, group="reader", name="read note", exit_on_error=False)
    def read_worker(
        self, path: str, ranges: list[tuple[int, int]], anchor: str, top: int | None
    ) -> None:
        """Read a note off the UI thread, then show it (or say why not)."""
        assert self.ws is not None
        worker = get_current_worker()
        try:
            note = load_note(self.ws, path, render=self.reader.markdown_mode)
        except FileRefused as exc:
            if not worker.is_cancelled:
                gone = not (self.ws.root / path).exists()
                self.post_message(NoteUnreadable(path, str(exc), gone))
            return
        # A newer read (the user moved on, or a rename retargeted the reader) wins.
        if not worker.is_cancelled:
            self.post_message(NoteRead(note, ranges, top, anchor))

    @on(NoteRead)
    def _note_read(self, message: NoteRead) -> None:
        self.reader.show_note(message.note, message.ranges, message.top, message.anchor)

    @on(NoteUnreadable)
    def _note_unreadable(self, message: NoteUnreadable) -> None:
        self.reader.show_missing(message.path, message.reason, message.gone)
        if message.gone:
            self.neighbours.clear(f"{message.path} is gone.")

    @work(thread=True, exclusive=True, group="neighbours", name="links", exit_on_error=False)
    def neighbours_worker(self, path: str) -> None:
        """Links and mentions of a note (its traverse while the pane shows traverses), off
        the UI thread."""
        assert self.ws is not None
        data = gather(self.ws, path, traverse=self.neighbours.traverse_mode)
        if not get_current_worker().is_cancelled:
            self.post_message(NeighboursGathered(data))

    @on(NeighboursGathered)
    def _neighbours_gathered(self, message: NeighboursGathered) -> None:
        self.neighbours.show(message.data)

    @work(thread=True, exclusive=True, group="stats", name="stats", exit_on_error=False)
    def refresh_stats(self) -> None:
        """Header counts after a change (stats take the index lock, so not on the UI thread)."""
        assert self.ws is not None
        self.post_message(StatsCounted(self.ws.stats()))

    @on(StatsCounted)
    def _stats_counted(self, message: StatsCounted) -> None:
        self.status.update_stats(message.stats)

    def focus_reader(self) -> None:
        """Focus the reader's note view (source or rendered: the same widget)."""
        self.query_one("#note").focus()

    def _travel(self, place: Place | None, empty: str) -> None:
        if place is None:
            self.notify(empty, timeout=2)
            return
        self.open_path(place.path, place.ranges, record=False, top=place.top)

    def action_go_back(self) -> None:
        """Return to the previous place."""
        self._travel(self.reader.history.go_back(self.reader.here()), "Nothing to go back to.")

    def action_forward(self) -> None:
        """Undo a back."""
        self._travel(self.reader.history.go_forward(self.reader.here()), "Nothing forward.")
