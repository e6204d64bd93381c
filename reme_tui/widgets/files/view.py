"""The files tree drawn line by line: only the rows on screen are rendered (50k notes scroll
as fast as 50), from a `FilesModel` the controller keeps current.

Typing filters the tree (letters, digits, spaces, Backspace; Esc clears), Enter opens the
highlighted note or opens/closes a folder, Left/Right close/open, a click selects and opens.
The view only posts what the user asked for; the screen's controller acts on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from reme_tui.messages import OpenNote
from reme_tui.widgets.files.model import FilesModel, Row
from reme_tui.widgets.safe_text import drawable

OPEN, CLOSED = "▾ ", "▸ "
FILTER_DELAY = 0.05  # seconds: keys typed faster than this filter once, at the last


def shown_name(row: Row) -> str:
    """A note as Obsidian lists it (no `.md`); folders and other files by their name."""
    name = row.name[:-3] if not row.folder and row.name.endswith(".md") else row.name
    return drawable(name)


def _clip(text: str, width: int) -> str:
    """`text` cut to `width` cells, with an ellipsis when cut."""
    if cell_len(text) <= width:
        return text
    out, used = [], 0
    for char in text:
        used += cell_len(char)
        if used > width - 1:
            break
        out.append(char)
    return "".join(out) + "…"


class FilesView(ScrollView, can_focus=True):
    """The tree's visible rows; a cursor; typing filters."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Open", id="files.open"),
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "cursor_to(0)", "First", show=False),
        Binding("end", "cursor_to(-1)", "Last", show=False),
        Binding("left", "close", "Close folder", show=False),
        Binding("right", "open", "Open folder", show=False),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="files.clear"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "files--cursor",
        "files--folder",
        "files--count",
        "files--open-note",
    }

    @dataclass
    class FilterChanged(Message):
        """The typed filter changed (the pane says it; the view has applied it)."""

        text: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model: FilesModel | None = None
        self.cursor = 0
        self.open_path = ""  # the reader's note, marked in the tree
        self._rows: Sequence[Row] = []
        self._typed: str | None = None  # keys not yet applied to the filter
        self._typing: Timer | None = None
        self._pass: dict[str, Style] | None = None  # the styles during one `render_lines`

    # -- content ----------------------------------------------------------------------------
    def set_model(self, model: FilesModel | None) -> None:
        """Show `model` (None: empty until the tree is read), keeping the highlighted path."""
        keep = self.highlighted
        self.model = model
        self.rows_changed(keep.path if keep else None)

    def rows_changed(self, keep: str | None = None) -> None:
        """The model changed: lay out its rows again, the cursor on `keep` when it shows."""
        if keep is None and self.highlighted is not None:
            keep = self.highlighted.path
        self._rows = self.model.rows() if self.model is not None else []
        index = self.model.index_of(keep) if self.model is not None and keep else None
        self.virtual_size = Size(self.size.width, len(self._rows))
        self._set_cursor(self.cursor if index is None else index)
        self.refresh()

    @property
    def rows(self) -> Sequence[Row]:
        return self._rows

    @property
    def highlighted(self) -> Row | None:
        return self._rows[self.cursor] if 0 <= self.cursor < len(self._rows) else None

    def reveal(self, path: str) -> None:
        """Open the folders above `path` and put the cursor on it (when it shows)."""
        if self.model is None:
            return
        index = self.model.reveal(path)
        self.rows_changed(path if index is not None else None)
        if index is not None:
            self._set_cursor(index, center=True)

    def _set_cursor(self, index: int, center: bool = False) -> None:
        count = len(self._rows)
        self.cursor = max(0, min(index, count - 1)) if count else 0
        height = max(1, self.scrollable_content_region.height)
        top = int(self.scroll_y)
        if center and not top <= self.cursor < top + height:
            self.scroll_to(y=max(0, self.cursor - height // 2), animate=False, immediate=True)
        elif self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)
        self.refresh()

    # -- drawing ----------------------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows in `crop`, with one look at each style for all of them (a look at the
        widget's own walks the ancestors' styles, ~0.1 ms: per row, most of a frame)."""
        self._pass = {}
        try:
            return super().render_lines(crop)
        finally:
            self._pass = None

    def _looked(self, name: str) -> Style:
        """The widget's style ("") or a component's, looked at once per `render_lines`."""
        kept = self._pass
        if kept is not None and name in kept:
            return kept[name]
        style = self.get_component_rich_style(name) if name else self.rich_style
        if kept is not None:
            kept[name] = style
        return style

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_y) + y
        width = self.scrollable_content_region.width
        base = self._looked("")
        if not 0 <= index < len(self._rows):
            return Strip([Segment(" " * width, base)], width)
        row = self._rows[index]
        style = base
        if row.folder:
            style += self._looked("files--folder")
        elif row.path == self.open_path:
            style += self._looked("files--open-note")
        if index == self.cursor:
            cursor = self._looked("files--cursor")
            style += cursor if self.has_focus else Style(reverse=False, bgcolor=cursor.bgcolor)
        indent = "  " * row.depth
        marker = (OPEN if row.expanded else CLOSED) if row.folder else "  "
        count = f" {row.notes:,}" if row.folder else ""
        room = max(1, width - cell_len(indent + marker) - len(count))
        name = _clip(shown_name(row), room)
        pad = " " * max(0, room - cell_len(name))
        segments = [Segment(indent + marker + name + pad, style)]
        if count:
            segments.append(Segment(count, style + self._looked("files--count")))
        return Strip(segments, width).crop(0, width)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self._rows))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- keys and mouse ---------------------------------------------------------------------
    def action_cursor(self, step: int) -> None:
        self._set_cursor(self.cursor + step)

    def action_page(self, step: int) -> None:
        self._set_cursor(self.cursor + step * max(1, self.scrollable_content_region.height - 1))

    def action_cursor_to(self, index: int) -> None:
        self._set_cursor(index if index >= 0 else len(self._rows) - 1)

    def action_choose(self) -> None:
        """Open the highlighted note; open or close the highlighted folder."""
        self._apply_typed()
        row = self.highlighted
        if row is None:
            return
        if row.folder:
            self._toggle(row)
        else:
            self.post_message(OpenNote(row.path))

    def action_open(self) -> None:
        row = self.highlighted
        if row is not None and row.folder and not row.expanded:
            self._toggle(row)

    def action_close(self) -> None:
        """Close the highlighted folder, or go to the folder above."""
        row = self.highlighted
        if row is None or self.model is None:
            return
        if row.folder and row.expanded and not self.model.filter:
            self._toggle(row)
            return
        parent = row.path.rpartition("/")[0]
        index = self.model.index_of(parent) if parent else None
        if index is not None:
            self._set_cursor(index)

    def _toggle(self, row: Row) -> None:
        if self.model is not None and not self.model.filter:  # a filter shows every match
            self.model.toggle(row.path)
            self.rows_changed(row.path)

    def action_clear_filter(self) -> None:
        self._typed = ""  # and whatever was typed but not yet applied
        self._apply_typed()

    def set_filter(self, text: str) -> None:
        """Filter by `text`; the cursor stays on its note when it still shows, else the first
        note that does."""
        if self.model is None:
            return
        keep = self.highlighted.path if self.highlighted else None
        self.model.set_filter(text)
        self.rows_changed(keep)
        kept = keep is not None and self.model.index_of(keep) is not None
        if text and (not kept or self.highlighted is None or self.highlighted.folder):
            first = next((i for i, r in enumerate(self._rows) if not r.folder), 0)
            self._set_cursor(first)
        self.post_message(self.FilterChanged(text))

    def on_key(self, event: events.Key) -> None:
        """Printable keys and Backspace edit the filter (before the screen's letter keys);
        keys typed within `FILTER_DELAY` of each other filter once."""
        if self.model is None:
            return
        text = self.model.filter if self._typed is None else self._typed
        if event.key == "backspace":
            text = text[:-1]
        elif event.is_printable and event.character and event.character.isprintable():
            text += event.character
        else:
            return
        event.stop()
        event.prevent_default()
        self._typed = text
        if self._typing is not None:
            self._typing.stop()
        self._typing = self.set_timer(FILTER_DELAY, self._apply_typed)

    def _apply_typed(self) -> None:
        """The filter as typed so far, applied (Enter and Esc apply it first)."""
        if self._typing is not None:
            self._typing.stop()
            self._typing = None
        text, self._typed = self._typed, None
        if text is not None and self.model is not None and text != self.model.filter:
            self.set_filter(text)

    def on_click(self, event: events.Click) -> None:
        """A click selects a row: a note opens, a folder opens or closes."""
        index = int(self.scroll_y) + event.y
        if 0 <= index < len(self._rows):
            self._set_cursor(index)
            self.action_choose()
