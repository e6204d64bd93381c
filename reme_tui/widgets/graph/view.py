"""The local graph drawn: the rows of `canvas.draw`, the selected node shown reversed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget

from reme_tui.widgets.graph.canvas import CanvasRow
from reme_tui.widgets.graph.layout import Layout
from reme_tui.widgets.graph.model import LocalGraph
from reme_tui.widgets.segments import styled_segments

_STYLES = ("node", "centre", "fold", "selected", "edge-out", "edge-in", "edge-both", "edge-fold")


@dataclass(slots=True)
class Picture:
    """A drawn graph: the model, where its labels went and the rows."""

    graph: LocalGraph
    layout: Layout
    rows: list[CanvasRow]


class GraphView(Widget, can_focus=True):
    """The drawn rows, the selected node shown reversed."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"graph--{name}" for name in _STYLES}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.picture: Picture | None = None
        self.selected = ""

    def show(self, picture: Picture, selected: str) -> None:
        self.picture = picture
        self.selected = selected
        self.refresh()

    def select(self, key: str) -> None:
        self.selected = key
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        picture = self.picture
        if picture is None or y >= len(picture.rows):
            return Strip.blank(width, base)
        row = picture.rows[y]
        text = Text(row.text, style=base, no_wrap=True, end="")
        for start, end, name in row.spans:
            text.stylize(self.get_component_rich_style(f"graph--{name}"), start, end)
        chosen = picture.layout.placed.get(self.selected)
        if chosen is not None and chosen.y == y:
            start = _char_at(row.text, chosen.x)
            selected = self.get_component_rich_style("graph--selected")
            text.stylize(selected + Style(reverse=True), start, start + len(chosen.text))
        strip = Strip(styled_segments(text, base, self.app.console), text.cell_len)
        return strip.crop_extend(0, width, base) if strip.cell_length != width else strip


def _char_at(text: str, cell: int) -> int:
    """The character offset of a cell (braille and most labels: one cell a character)."""
    if text.isascii():
        return cell
    seen = 0
    for i, ch in enumerate(text):
        if seen >= cell:
            return i
        seen += cell_len(ch)
    return len(text)
