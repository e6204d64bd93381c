"""Showing a note in the reader with its links beside it, and moving back and forth.

A controller of `MainScreen`: it reads notes and gathers their links in the screen's workers
(so their failures reach the app's error hub); the results they post (`NoteRead`,
`NoteUnreadable`, `NeighboursGathered`) are shown by the screen on the UI thread.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from functools import partial
from typing import Any

from textual.worker import get_current_worker

from reme_core import FileRefused, PathRefused, Workspace, normalize_relpath
from reme_tui.app.host import Host
from reme_tui.messages import FollowLink, NoteUnreadable, OpenNote
from reme_tui.services import NeighboursGathered, NoteRead, gather, load_note
from reme_tui.text import notices
from reme_tui.widgets.reader.note_links import names_a_file
from reme_tui.widgets.reader.note_view import parse_line_anchor
from reme_tui.widgets.reader.reader import Place


class Navigator:
    """Which note the reader shows, where in it, and the way back."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen

    def open_path(
        self,
        path: str,
        ranges: list[tuple[int, int]] | None = None,
        anchor: str = "",
        *,
        record: bool = True,
        top: int | None = None,
    ) -> None:
        """Show a note (with ranges or an anchor) and its neighbours; explain dangling links.

        A path with no file is looked up in the index in a worker: its lock may be held for
        seconds (a reload after another process's rebuild), and the keys must not wait."""
        screen, ws = self.screen, self.screen.ws
        if ws is None:
            return
        try:
            normalize_relpath(path)
        except PathRefused as exc:  # a `../..` link out of the workspace
            screen.notify(str(exc), title="Link", severity="warning")
            return
        place = (list(ranges or []), anchor, record, top)
        if (ws.root / path).exists():
            screen.workers.cancel_group(screen, "locate")  # an earlier open, still looking
            self._show(path, *place)
            return
        screen.in_thread(partial(self._locate, ws, path, *place), "locate", "open note")

    def _locate(
        self,
        ws: Workspace,
        path: str,
        ranges: list[tuple[int, int]],
        anchor: str,
        record: bool,
        top: int | None,
    ) -> None:
        """In a worker: a path with no file is shown if the index knows it (the reader then
        says it is gone), else explained as a dangling link."""
        if ws.node(path) is None:
            dangling = notices.dangling_link(path)
            self._on_ui(self.screen.notify, dangling, title="Link", severity="warning")
        elif not get_current_worker().is_cancelled:
            self._on_ui(self._show, path, ranges, anchor, record, top)

    def _on_ui(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.screen.app.call_from_thread(fn, *args, **kwargs)

    def _show(
        self, path: str, ranges: list[tuple[int, int]], anchor: str, record: bool, top: int | None
    ) -> None:
        screen = self.screen
        reader = screen.reader
        if record and path:
            current = reader.here()
            if current is None or current.path != path or ranges or anchor:
                reader.history.visit(current)
        self.read(path, ranges, anchor, top)
        self.gather_neighbours(path)
        screen.browser.app_state.opened(path)  # first among the recent notes,
        screen.browser.app_state.save()  # saved at once (a kill keeps it)

    def reread(self) -> None:
        """Read the open note and its links again (it or a neighbour changed)."""
        path = self.screen.reader.path
        if path:
            self.read(path, list(self.screen.reader.view.ranges), "", None)
            self.gather_neighbours(path)

    def read(self, path: str, ranges: list[tuple[int, int]], anchor: str, top: int | None) -> None:
        """Read a note in a worker; a newer read (the user moved on, or a rename retargeted
        the reader) cancels this one."""
        ws = self.screen.ws
        if ws is None:
            return
        render = self.screen.reader.markdown_mode
        self.screen.in_thread(
            partial(self._read, ws, path, ranges, anchor, top, render), "reader", "read note"
        )

    def _read(
        self,
        ws: Workspace,
        path: str,
        ranges: list[tuple[int, int]],
        anchor: str,
        top: int | None,
        render: bool,
    ) -> None:
        worker = get_current_worker()
        try:
            note = load_note(ws, path, render=render)
        except FileRefused as exc:
            if not worker.is_cancelled:
                gone = not (ws.root / path).exists()
                self.screen.post_message(NoteUnreadable(path, str(exc), gone))
            return
        if not worker.is_cancelled:
            self.screen.post_message(NoteRead(note, ranges, top, anchor))

    def gather_neighbours(self, path: str) -> None:
        """Links and mentions of a note (its traverse while the pane shows traverses), in a
        worker."""
        ws = self.screen.ws
        if ws is None:
            return
        traverse = self.screen.neighbours.traverse_mode
        self.screen.in_thread(partial(self._gather, ws, path, traverse), "neighbours", "links")

    def _gather(self, ws: Workspace, path: str, traverse: bool) -> None:
        data = gather(ws, path, traverse=traverse)
        if not get_current_worker().is_cancelled:
            self.screen.post_message(NeighboursGathered(data))

    def open_note(self, message: OpenNote) -> None:
        """A pane, the switcher or the Tags view chose a note (maybe a line range of it)."""
        start = message.start_line
        ranges = [(start, message.end_line or start)] if start else []
        self.open_path(message.path, ranges, message.anchor)
        self.screen.focus_reader()

    def follow_link(self, message: FollowLink) -> None:
        """A link of the open note: a `#L9-L10` anchor is a range, any other a heading; a
        link to a place in the same note is a step in the history only with a place; a
        dangling one offers to make its note (one naming an image or another attachment
        says it is missing)."""
        link = self.screen.reader.view.selected_link
        dangling = link is not None and link.kind == "dangling" and link.target == message.target
        if link is not None and dangling and names_a_file(link):
            name = posixpath.basename(link.match.target.strip())
            self.screen.notify(notices.missing_file(name), title="Link", severity="warning")
        elif link is not None and dangling:
            self.screen.notes.offer_note(link, partial(self._follow, message))
        else:
            self._follow(message)

    def _follow(self, message: FollowLink) -> None:
        ranges = parse_line_anchor(message.anchor)
        anchor = "" if ranges else message.anchor
        if message.target == message.source:
            self.open_path(message.target, ranges, anchor, record=bool(ranges or anchor))
            return
        self.open_path(message.target, ranges, anchor)

    def back(self) -> None:
        """Return to the previous place."""
        reader = self.screen.reader
        self._travel(reader.history.go_back(reader.here()), notices.NOTHING_BEHIND)

    def forward(self) -> None:
        """Undo a back."""
        reader = self.screen.reader
        self._travel(reader.history.go_forward(reader.here()), "Nothing forward.")

    def _travel(self, place: Place | None, empty: str) -> None:
        if place is None:
            self.screen.notify(empty, timeout=2)
            return
        self.open_path(place.path, place.ranges, record=False, top=place.top)
