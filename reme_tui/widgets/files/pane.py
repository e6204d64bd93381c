"""The Files pane: a line that says the filter, the sort and the counts, over the tree.

It draws what the controller (`reme_tui.app.files_tree.FilesTree`) hands it and posts what
the user asks for: open a note (the view's `Chosen`), and the file operations on the
highlighted row (`Asked`), which the controller carries out with the link-safe dialogs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from reme_tui.text import hints
from reme_tui.text.words import plural
from reme_tui.widgets.files.model import FilesModel
from reme_tui.widgets.files.view import FilesView

Operation = Literal["move", "delete", "new_note", "new_folder", "sort"]

SORT_WORDS = {"name": "by name", "modified": "newest first"}


class FilesPane(Vertical):
    """The tree of the workspace's indexed notes, with its filter line."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f2", "ask('move')", "Rename", id="files.move"),
        Binding("delete", "ask('delete')", "Delete", id="files.delete"),
        Binding("ctrl+n", "ask('new_note')", "New note", id="files.new_note"),
        Binding("f7", "ask('new_folder')", "New folder", id="files.new_folder"),
        Binding("ctrl+s", "ask('sort')", "Sort", id="files.sort"),
    ]

    @dataclass
    class Asked(Message):
        """A file operation on the highlighted row (`path`: a note or a folder, "" none)."""

        operation: Operation
        path: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Files"
        self.status = Static(hints.READING_NOTES, id="files-status")
        self.view = FilesView(id="files-tree")

    def compose(self) -> ComposeResult:
        yield self.status
        yield self.view

    @property
    def model(self) -> FilesModel | None:
        return self.view.model

    def show_model(self, model: FilesModel) -> None:
        """A freshly read tree (the filter, the sort and the open folders carried over)."""
        old = self.view.model
        if old is not None:
            model.expanded = {p for p in old.expanded if model.is_folder(p)}
            model.set_sort(old.sort)
            model.set_filter(old.filter)
        self.view.set_model(model)
        self.describe()

    def changed(self) -> None:
        """The model was changed in place (a batch of the watcher's, a sort)."""
        self.view.rows_changed()
        self.describe()

    def describe(self) -> None:
        """The status line: the filter being typed, or how to filter; the count; the sort."""
        model = self.view.model
        if model is None:
            return
        count = plural(model.shown_notes, "note", commas=True)
        if model.filter:  # what is typed first: a narrow pane cuts the line's end
            line = Text.assemble((model.filter, "bold"), ("▏", "dim"), (f" {count}", "dim"))
        else:
            line = Text.assemble((hints.TYPE_TO_FILTER, "dim"), f"  {count}")
        if model.sort != "name":
            line.append(f"  {SORT_WORDS[model.sort]}", "dim")
        self.status.update(line)

    @on(FilesView.FilterChanged)
    def _filter_changed(self) -> None:
        self.describe()

    def action_ask(self, operation: Operation) -> None:
        row = self.view.highlighted
        self.post_message(self.Asked(operation, row.path if row else ""))
