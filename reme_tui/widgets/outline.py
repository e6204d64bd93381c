"""The outline of the open note: its headings, indented by level; Enter jumps to one.

Obsidian and frogmouth both keep such a pane beside the note. The headings come from
`reme_core.outline` (computed with the note, off the UI thread).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from reme_core import Heading
from reme_tui.widgets.safe_text import drawable


class OutlinePane(OptionList):
    """A list of headings; choosing one posts `Jump` with its source line."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Back to note", id="outline.leave"),
    ]

    @dataclass
    class Jump(Message):
        """Scroll the reader to this 1-based source line."""

        line: int

    def on_mount(self) -> None:
        self.border_title = "Outline"

    def show_headings(self, headings: list[Heading]) -> None:
        """Replace the list with a note's headings (or say it has none)."""
        self.clear_options()
        if not headings:
            self.add_option(Option(Text("No headings", style="italic"), disabled=True))
            return
        top = min(h.level for h in headings)
        self.add_options(
            Option(Text("  " * (h.level - top) + drawable(h.title)), id=str(h.line))
            for h in headings
        )
        self.highlighted = 0

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.Jump(int(event.option.id)))

    def action_leave(self) -> None:
        """Give the focus back to the note (the outline stays open)."""
        self.screen.query_one("NoteView").focus()
