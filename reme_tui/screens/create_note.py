"""Following a link to a note that does not exist: asking before its note is made where
Obsidian would make it (`reme_tui.services.new_note_path`)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from reme_tui.text import hints
from reme_tui.widgets.backdrop import Backdropped
from reme_tui.widgets.safe_text import drawable


class CreateNoteScreen(ModalScreen[bool], Backdropped):
    """ "Create Folder/Name.md?" — True to create it, False (or Escape) to leave it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "answer(False)", "Cancel", id="create.cancel"),
        Binding("y", "answer(True)", "Create", id="create.confirm"),
    ]

    def __init__(self, path: str, written: str) -> None:
        super().__init__()
        self.path = path
        self.written = written

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(hints.CREATE_LINKED, classes="title")
            yield Static(hints.create_linked(drawable(self.written), drawable(self.path)))
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button("Create", variant="primary", id="create")

    def on_mount(self) -> None:
        self.query_one("#create", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "create")

    def action_answer(self, create: bool) -> None:
        """y / n / Escape."""
        self.dismiss(create)
