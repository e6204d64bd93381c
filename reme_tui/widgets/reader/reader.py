"""The reader pane: a frontmatter header over the note's lines, source or rendered Markdown.

Reading and rendering happen in thread workers (a note can be megabytes); the pane keeps
what it shows (path, highlighted ranges) so the app can re-read it when the file changes on
disk. Both views are the same `NoteView`, so links, ranges and anchors work in either; the
outline pane (`h`) lists the note's headings.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static
from textual.worker import Worker, WorkerState, get_current_worker

from reme_core import FileNode, RemeError, RenderedLine
from reme_tui.text import hints, notices
from reme_tui.widgets.outline import OutlinePane
from reme_tui.widgets.reader.note_data import NoteData, render_note
from reme_tui.widgets.reader.note_links import LinkState
from reme_tui.widgets.reader.note_view import NoteView, find_anchor_line

__all__ = ["History", "NoteData", "Place", "Reader"]


@dataclass(slots=True)
class Place:
    """Where the reader was: a note, its highlighted ranges and scroll position."""

    path: str
    ranges: list[tuple[int, int]]
    top: int = 0


class History:
    """Back/forward stacks of places, like a browser."""

    def __init__(self) -> None:
        self.back: list[Place] = []
        self.forward: list[Place] = []

    def visit(self, current: Place | None) -> None:
        """Leaving `current` for a new place: it becomes the back target."""
        if current is not None:
            self.back.append(current)
        self.forward.clear()

    def go_back(self, current: Place | None) -> Place | None:
        if not self.back:
            return None
        if current is not None:
            self.forward.append(current)
        return self.back.pop()

    def go_forward(self, current: Place | None) -> Place | None:
        if not self.forward:
            return None
        if current is not None:
            self.back.append(current)
        return self.forward.pop()

    def rename(self, src: str, dst: str) -> None:
        """A note moved: places in it now live at `dst`, so back/forward still find it."""
        for place in (*self.back, *self.forward):
            if place.path == src:
                place.path = dst


class Reader(Vertical):
    """Header, the note view (source or rendered), the outline, and a message for
    empty/deleted states."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "outline", "Outline", id="reader.outline"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.path = ""
        self.text = ""
        self.indexed = True
        self.markdown_mode = False
        self.note: NoteData | None = None
        self.history = History()

    def compose(self) -> ComposeResult:
        yield Static(id="reader-header")
        yield Static(hints.OPENING, id="reader-message")
        with Horizontal(id="reader-body"):
            yield NoteView(id="note")
            yield OutlinePane(id="outline")

    def on_mount(self) -> None:
        self.border_title = "Reader"
        self.query_one(OutlinePane).display = False
        self._show("message")

    @property
    def view(self) -> NoteView:
        return self.query_one(NoteView)

    def here(self) -> Place | None:
        """The current place, for history."""
        if not self.path:
            return None
        return Place(self.path, list(self.view.ranges), int(self.view.scroll_y))

    def show_message(self, message: str) -> None:
        """Replace the note with an explanation (empty workspace, deleted file, error)."""
        self.query_one("#reader-message", Static).update(message)
        self._show("message")

    def show_welcome(self, root: Path, *, has_notes: bool) -> None:
        """The first words once the workspace is open: the keys that matter most, or where
        notes go while there are none."""
        if has_notes:
            self.show_message(hints.WELCOME)
        else:
            self.show_message(hints.no_notes_yet(root))

    def _show(self, which: str) -> None:
        self.query_one("#reader-message").display = which == "message"
        self.query_one("#reader-header").display = which != "message"
        self.query_one("#reader-body").display = which == "note"

    def retarget(self, src: str, dst: str) -> None:
        """The open note moved: follow it (and its history) before the index refresh arrives."""
        if self.path == src:
            self.path = dst
            self.view.path = dst
        self.history.rename(src, dst)

    def forget(self, message: str) -> None:
        """The open note is gone for good (deleted from the UI): show why, keep no path."""
        self.path = ""
        self.text = ""
        self.note = None
        self.view.clear()
        self.query_one(OutlinePane).show_headings([])
        self.show_message(message)

    # -- showing ------------------------------------------------------------------------------
    def show_missing(self, path: str, reason: str, gone: bool) -> None:
        """The note cannot be shown: deleted on disk, or not a text file."""
        if gone:
            self.path = path
            self.note = None
            self.view.clear()
            self.query_one(OutlinePane).show_headings([])
            self.show_message(hints.gone(path, on_disk=True))
        else:
            self.notify(notices.attachment(path, reason), severity="warning")

    def show_note(
        self,
        note: NoteData,
        ranges: list[tuple[int, int]],
        top: int | None = None,
        anchor: str = "",
    ) -> None:
        """Display a loaded note; keep the scroll position when it is the same note re-read.

        In the rendered view a note read without its rendering is rendered first (in a
        worker), then shown, so the source never flashes by.
        """
        if self.markdown_mode and note.rendered is None:
            self._set_busy(True)
            self._rendering(note, (ranges, top, anchor))
            return
        same = note.path == self.path
        self.path, self.text, self.indexed = note.path, note.text, note.node is not None
        self.note = note
        view = self.view
        keep_top = int(view.scroll_y) if same and top is None else top
        view.set_note(
            note.path,
            note.lines,
            note.links,
            note.rendered if self.markdown_mode else None,
            note.rendered_links,
        )
        if anchor and not ranges:
            line = find_anchor_line(view.lines, anchor)
            if line is None:
                self.notify(notices.anchor_missing(anchor, note.path), timeout=3)
            ranges = [(line, line)] if line else []
        self._update_header(note.path, note.node)
        self.query_one(OutlinePane).show_headings(note.headings)
        self._show("note")
        if ranges:
            view.show_ranges(ranges)
        elif keep_top is not None:
            view.scroll_to(y=keep_top, animate=False)
        else:
            view.scroll_home(animate=False)

    def _update_header(self, path: str, node: FileNode | None) -> None:
        header = Text()
        header.append(path, style="bold")
        if node is None:
            header.append("  (not indexed)", style="italic")
        name = node.name if node else ""
        description = node.description if node else ""
        tags = node.tags if node else []
        if name:
            header.append("\n")
            header.append(name, style="bold")
        if description:
            header.append("\n")
            header.append(description, style="italic")
        if tags:
            header.append("\n")
            header.append("  ".join(f"#{t}" for t in tags), style="dim")
        self.query_one("#reader-header", Static).update(header)

    # -- rendered view ------------------------------------------------------------------------
    def toggle_markdown(self) -> None:
        """Switch between the numbered source lines and rendered Markdown (same links,
        ranges and scroll place)."""
        note = self.note
        if note is None or not self.path or self.query_one("#reader-message").display:
            self.notify(notices.OPEN_A_NOTE_FIRST, timeout=2)
            return
        self.markdown_mode = not self.markdown_mode
        if not self.markdown_mode:
            self.view.show_rendered(None)
        elif note.rendered is not None:
            self.view.show_rendered(note.rendered, note.rendered_links)
        else:
            self._set_busy(True)
            self._rendering(note, None)
        if self.app.focused is not self.view:
            self.view.focus()

    @work(thread=True, exclusive=True, group="render", name="render note", exit_on_error=False)
    def _rendering(
        self, note: NoteData, then: tuple[list[tuple[int, int]], int | None, str] | None
    ) -> None:
        """Render a note's Markdown off the UI thread; `then`: show it with these
        (ranges, top, anchor) once rendered, else switch the open note's view."""
        rendered, links = render_note(note)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Rendered(note, rendered, links, then))

    @dataclass
    class Rendered(Message):
        """A note's rendering, made by the render worker; `then` as `_rendering` took it."""

        note: NoteData
        lines: list[RenderedLine]
        links: list[LinkState]
        then: tuple[list[tuple[int, int]], int | None, str] | None

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A render that failed is said (the app's error hub only hears its own workers: the
        event does not bubble)."""
        if event.state is not WorkerState.ERROR:
            return
        self._set_busy(False)
        error = event.worker.error
        text = str(error) if isinstance(error, RemeError) else f"{type(error).__name__}: {error}"
        self.notify(
            text, title=notices.worker_failed(event.worker.name), severity="error", timeout=8
        )

    def _set_busy(self, busy: bool) -> None:
        self.border_subtitle = "rendering…" if busy else ""

    @on(Rendered)
    def _rendered(self, message: Rendered) -> None:
        note, rendered, then = message.note, message.lines, message.then
        self._set_busy(False)
        note.rendered, note.rendered_links = rendered, message.links
        if then is not None:
            self.show_note(note, *then)
        elif self.note is note and self.markdown_mode:
            self.view.show_rendered(rendered, message.links)

    # -- outline ------------------------------------------------------------------------------
    def action_outline(self) -> None:
        """Show or hide the outline of the open note's headings (Enter jumps to one)."""
        pane = self.query_one(OutlinePane)
        pane.display = not pane.display
        if pane.display:
            pane.focus()
        else:
            self.view.focus()

    @on(OutlinePane.Jump)
    def _jump(self, message: OutlinePane.Jump) -> None:
        self.view.go_to_line(message.line)
        self.view.focus()
