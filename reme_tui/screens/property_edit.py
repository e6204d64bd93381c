"""Editing one property of the open note (`p`): its key and value, typed as the row's kind.

The value goes through the one write path of `write --meta` (`Workspace.write(metadata=)`),
which keeps every other key, its order and its exact text. The property offered first is
the one on the current line (or the first); a value that is not of the row's kind (a word
for a number) is refused in the dialog, and nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from reme_core import Property, RemeError, property_value
from reme_tui.text import hints
from reme_tui.widgets.backdrop import Backdropped
from reme_tui.widgets.safe_text import drawable


@dataclass(frozen=True, slots=True)
class PropertyChange:
    """What the dialog answers: the key and the value to write."""

    key: str
    value: object


def property_at(rows: list[Property], line: int) -> Property | None:
    """The property written on a 1-based line, else the first (None without any)."""
    for row in rows:
        if row.line <= line <= row.last:
            return row
    return rows[0] if rows else None


class PropertyScreen(ModalScreen[PropertyChange | None], Backdropped):
    """Key and value inputs; Enter writes, Escape leaves the note as it is."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="property.cancel"),
    ]

    def __init__(self, path: str, rows: list[Property], line: int) -> None:
        super().__init__()
        self.path = path
        self.rows = {row.key: row for row in rows}
        chosen = property_at(rows, line)
        self.key = chosen.key if chosen else ""
        self.value = ", ".join(chosen.values) if chosen else ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Edit a property", classes="title")
            yield Static(Text.assemble("of ", (drawable(self.path), "bold")))
            yield Input(self.key, placeholder="key", id="property-key")
            yield Input(self.value, placeholder="value (a list: items, by, commas)", id="value")
            yield Static("", id="property-kind")
            yield Static("", id="property-error")

    def on_mount(self) -> None:
        self._kind_hint()
        self.query_one("#value", Input).focus()

    def _kind(self) -> str:
        row = self.rows.get(self.query_one("#property-key", Input).value.strip())
        return row.kind if row else "text"

    @on(Input.Changed, "#property-key")
    def _kind_hint(self) -> None:
        self.query_one("#property-kind", Static).update(f"kind: {self._kind()}")

    @on(Input.Submitted)
    def _submit(self) -> None:
        key = self.query_one("#property-key", Input).value.strip()
        error = self.query_one("#property-error", Static)
        if not key:
            error.update(hints.NEEDS_A_KEY)
            return
        try:
            value = property_value(self._kind(), self.query_one("#value", Input).value)
        except RemeError as exc:
            error.update(str(exc))
            return
        self.dismiss(PropertyChange(key, value))

    def action_cancel(self) -> None:
        """Escape: nothing is written."""
        self.dismiss(None)
