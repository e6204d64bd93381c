"""A small modal list that ends with the value of the row chosen (typed), or None on Escape:
the History view, the bookmark choices and the template picker share it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Generic, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from reme_tui.widgets.backdrop import Backdropped
from reme_tui.widgets.safe_text import drawable

T = TypeVar("T")

PICK_CSS = """
PickScreen { align: center middle; }
PickScreen > Vertical {
    width: 80%; max-width: 100; height: auto; max-height: 80%;
    border: thick $accent; background: $surface; padding: 1 2;
}
PickScreen .title { text-style: bold; margin-bottom: 1; }
PickScreen OptionList { height: auto; max-height: 1fr; margin: 1 0; }
PickScreen .hint { color: $text-muted; }
"""


class PickScreen(ModalScreen[T | None], Backdropped, Generic[T]):
    """Rows of (label, value); a row whose value is None is a heading, not a choice."""

    DEFAULT_CSS = PICK_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close", id="pick.cancel"),
    ]

    def __init__(
        self, title: str, rows: Sequence[tuple[str | Text, T | None]], hint: str = ""
    ) -> None:
        super().__init__()
        self.title_text = title
        self.rows = list(rows)
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(drawable(self.title_text), classes="title")
            yield OptionList(id="pick-list")
            yield Label(self.hint, classes="hint", id="pick-hint")

    def on_mount(self) -> None:
        self.show_rows(self.rows)
        self.query_one(OptionList).focus()

    def show_rows(self, rows: Sequence[tuple[str | Text, T | None]]) -> None:
        """Replace the list (the first choice highlighted)."""
        self.rows = list(rows)
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(
            Option(label if isinstance(label, Text) else Text(drawable(label)), disabled=v is None)
            for label, v in rows
        )
        first = next((i for i, (_, v) in enumerate(rows) if v is not None), None)
        options.highlighted = first

    def chosen(self) -> T | None:
        """The value of the highlighted row."""
        index = self.query_one(OptionList).highlighted
        return self.rows[index][1] if index is not None and index < len(self.rows) else None

    @on(OptionList.OptionSelected, "#pick-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        value = self.rows[event.option_index][1]
        if value is not None:
            self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)
