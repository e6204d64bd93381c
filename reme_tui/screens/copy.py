"""What to copy, for the note (or hit, or link) in focus: a small typed choice dialog."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

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

PREVIEW_CHARS = 70


@dataclass(frozen=True, slots=True)
class CopyChoice:
    """One thing that can be copied: what it is (`Path`, `Wikilink`, ...) and the text."""

    what: str
    text: str


class CopyScreen(ModalScreen[CopyChoice | None], Backdropped):
    """The copy choices of one note, each with a preview; dismisses with the one chosen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="copy.cancel"),
    ]

    def __init__(self, title: str, choices: list[CopyChoice]) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(drawable(self.title_text), classes="title")
            yield OptionList(*(self._option(c) for c in self.choices), id="copy-choices")

    @staticmethod
    def _option(choice: CopyChoice) -> Option:
        first = choice.text.splitlines()[0] if choice.text else ""
        preview = first if len(first) <= PREVIEW_CHARS else first[: PREVIEW_CHARS - 1] + "…"
        if "\n" in choice.text:
            preview += f"  (+{choice.text.count(chr(10))} lines)"
        prompt = Text.assemble((f"{choice.what:<16}", "bold"), (drawable(preview), "dim"))
        return Option(prompt)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.choices[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)
