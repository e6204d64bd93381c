"""Asked before a web link is opened from a terminal with no display of its own."""

from __future__ import annotations

from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from reme_tui.text import hints
from reme_tui.widgets.backdrop import Backdropped
from reme_tui.widgets.safe_text import drawable

WebChoice = Literal["open", "copy"]


class OpenWebScreen(ModalScreen[WebChoice | None], Backdropped):
    """Open the address with the system browser, copy it instead, or neither."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "answer(None)", "Cancel", id="web.cancel"),
        Binding("c", "answer('copy')", "Copy link", id="web.copy"),
    ]

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(hints.OPEN_WEB_LINK, classes="title")
            yield Static(hints.no_display(drawable(self.url)))
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button("Copy link", id="copy")
                yield Button("Open here", variant="primary", id="open")

    def on_mount(self) -> None:
        self.query_one("#copy", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        choice = event.button.id
        self.dismiss(choice if choice in ("open", "copy") else None)  # type: ignore[arg-type]

    def action_answer(self, choice: WebChoice | None) -> None:
        self.dismiss(choice)
