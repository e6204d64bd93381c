"""The bookmarks list (palette "Bookmarks", `B`): every bookmark of the workspace, Obsidian's
groups as headings; Enter opens one, `d`/Delete removes it. In a vault the list is Obsidian's
own `.obsidian/bookmarks.json`, read and written through `reme_core` (unknown entries kept).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Label
from textual.worker import Worker, WorkerState

from reme_core import Bookmark, load_bookmarks, remove_bookmark
from reme_tui.screens.pick_list import PickScreen
from reme_tui.text import hints
from reme_tui.widgets.safe_text import drawable

KIND_MARK = {"file": "▪", "search": "⌕", "folder": "▸", "url": "↗", "group": "▾"}
OPENABLE = {"file", "search", "folder", "url"}


def bookmark_label(mark: Bookmark) -> Text:
    """A bookmark's row: its kind's mark, title, and what it points at when titled."""
    indent = "  " * (len(mark.where) - 1)
    text = Text(f"{indent}{KIND_MARK.get(mark.kind, '·')} ")
    text.append(drawable(mark.title), "bold" if mark.kind == "group" else "")
    target = f"{mark.path}{mark.subpath}" or mark.query or mark.url
    if target and target != mark.title:
        text.append(f"  {drawable(target)}", "dim")
    if mark.kind not in OPENABLE and mark.kind != "group":
        text.append(hints.foreign_bookmark(drawable(mark.kind)), "dim italic")
    return text


class BookmarksScreen(PickScreen[Bookmark]):
    """Dismisses with the bookmark chosen (a note, a heading, a search, a folder or a URL)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close", id="bookmarks.cancel"),
        Binding("d,delete", "remove", "Remove", id="bookmarks.remove"),
    ]

    def __init__(self, file: Path) -> None:
        super().__init__("Bookmarks", [], "Reading bookmarks…")
        self.file = file

    def on_mount(self) -> None:
        super().on_mount()
        self._load()

    @work(thread=True, exclusive=True, group="bookmarks", exit_on_error=False)
    def _load(self) -> None:
        self.post_message(self.Loaded(load_bookmarks(self.file).bookmarks()))

    @work(thread=True, exclusive=True, group="bookmarks", exit_on_error=False)
    def _remove(self, mark: Bookmark) -> None:
        remove_bookmark(self.file, mark)
        self.post_message(self.Loaded(load_bookmarks(self.file).bookmarks()))

    @dataclass
    class Loaded(Message):
        """The bookmarks as the file holds them now."""

        marks: list[Bookmark]

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        rows = [(bookmark_label(m), m if m.kind in OPENABLE else None) for m in message.marks]
        self.show_rows(rows)
        n = sum(1 for m in message.marks if m.kind != "group")
        self._hint(hints.bookmarks_hint(n))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A file that cannot be read or written says so here (nothing is lost)."""
        if event.worker.group == "bookmarks" and event.state is WorkerState.ERROR:
            self._hint(str(event.worker.error))

    def _hint(self, text: str) -> None:
        self.query_one("#pick-hint", Label).update(Text(text))

    def action_remove(self) -> None:
        """Remove the highlighted bookmark from the file."""
        mark = self.chosen()
        if mark is not None:
            self._remove(mark)
