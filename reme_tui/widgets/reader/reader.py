"""The reader pane: a frontmatter header over the note's lines, or its rendered Markdown.

Reading happens in a thread worker (a note can be megabytes); the pane keeps what it shows
(path, highlighted ranges) so the app can re-read it when the file changes on disk.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Markdown, Static

from reme_core import FileNode, RemeError, Workspace
from reme_tui.widgets.reader.note_view import NoteView, find_anchor_line


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


@dataclass(slots=True)
class NoteData:
    """A note read off the UI thread: its text, node and link kinds."""

    path: str
    text: str
    node: FileNode | None
    resolve: dict[str, tuple[str, str]]


def load_note(ws: Workspace, path: str) -> NoteData:
    """Everything the reader needs about a note (raises FileRefused when it cannot be read)."""
    return NoteData(path, read_whole(ws, path), ws.node(path), link_targets(ws, path))


def read_whole(ws: Workspace, path: str) -> str:
    """The full text of a workspace file, paging past `read_max_lines`."""
    result = ws.read(path)
    parts = [result.text]
    while result.truncated and result.next_start_line:
        result = ws.read(path, result.next_start_line)
        parts.append(result.text)
    return "\n".join(parts)


def link_targets(ws: Workspace, path: str) -> dict[str, tuple[str, str]]:
    """Written link target → (resolved path, kind) for the links of an indexed note.

    Targets come resolved from the link graph, as the links pane shows them: in a vault
    `[[Note]]`, `[[folder/Note]]` and `[[lowercase note]]` lead to the file they name.
    """
    try:
        links = ws.outlinks(path)
        kinds = {
            n.path: "dangling" if n.dangling else "note" if n.indexed else "attachment"
            for n in ws.links(path)["outlinks"]
        }
    except RemeError:
        return {}
    return {
        (link.raw_target or link.target_path): (
            link.target_path,
            kinds.get(link.target_path, "note"),
        )
        for link in links
    }


class Reader(Vertical):
    """Header, line view, rendered Markdown view, and a message for empty/deleted states."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.path = ""
        self.text = ""
        self.indexed = True
        self.markdown_mode = False
        self.history = History()

    def compose(self) -> ComposeResult:
        yield Static(id="reader-header")
        yield Static("Opening the workspace…", id="reader-message")
        yield NoteView(id="note")
        with VerticalScroll(id="markdown-scroll"):
            yield Markdown(id="markdown")

    def on_mount(self) -> None:
        self.border_title = "Reader"
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

    def _show(self, which: str) -> None:
        self.query_one("#reader-message").display = which == "message"
        self.query_one("#reader-header").display = which != "message"
        self.query_one(NoteView).display = which == "note"
        self.query_one("#markdown-scroll").display = which == "markdown"

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
        self.view.clear()
        self.show_message(message)

    # -- showing ------------------------------------------------------------------------------
    def show_missing(self, path: str, reason: str, gone: bool) -> None:
        """The note cannot be shown: deleted on disk, or not a text file."""
        if gone:
            self.path = path
            self.view.clear()
            self.show_message(
                f"[b]{path}[/b] was deleted (or moved) on disk.\n\n"
                "Press [b]b[/b] to go back, or search for another note."
            )
        else:
            self.notify(f"{path} is an attachment, not a note ({reason}).", severity="warning")

    def show_note(
        self,
        note: NoteData,
        ranges: list[tuple[int, int]],
        top: int | None = None,
        anchor: str = "",
    ) -> None:
        """Display a loaded note; keep the scroll position when it is the same note re-read."""
        same = note.path == self.path
        self.path, self.text, self.indexed = note.path, note.text, note.node is not None
        view = self.view
        keep_top = int(view.scroll_y) if same and top is None else top
        view.set_note(note.path, note.text, note.resolve)
        if anchor and not ranges:
            line = find_anchor_line(view.lines, anchor)
            if line is None:
                self.notify(f"#{anchor} is not in {note.path}; showing the top.", timeout=3)
            ranges = [(line, line)] if line else []
        self._update_header(note.path, note.node)
        self._show("markdown" if self.markdown_mode else "note")
        if self.markdown_mode:
            self._render_markdown()
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

    # -- Markdown view --------------------------------------------------------------------------
    def toggle_markdown(self) -> None:
        """Switch between the numbered source lines and rendered Markdown."""
        if not self.path or self.query_one("#reader-message").display:
            self.notify("Open a note first.", timeout=2)
            return
        self.markdown_mode = not self.markdown_mode
        if self.markdown_mode:
            self._render_markdown()
        self._show("markdown" if self.markdown_mode else "note")
        target = "#markdown-scroll" if self.markdown_mode else "#note"
        self.query_one(target).focus()

    def _render_markdown(self) -> None:
        body = self.text
        if body.startswith("---\n"):
            end = body.find("\n---", 4)
            if end != -1:
                body = body[end + 4 :].lstrip("\n")
        self.query_one(Markdown).update(body)
