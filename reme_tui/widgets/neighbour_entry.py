"""One entry of the links pane (a group's header or a neighbour) and how Textual draws it.

Entries are built in the links worker, and no row wraps: a long name, path or description is
cut with an ellipsis at the pane's edge. So an entry's height is its row count at any width,
and an OptionList lays out thousands of them without rendering any; only the entries on
screen are drawn (as the search pane's `HitVisual` does for hits).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

from reme_tui.widgets.safe_text import drawable
from reme_tui.widgets.segments import styled_segments

Target = tuple[str, int | None, int | None]  # path, start line, end line
Row = tuple[tuple[str, str], ...]  # (text, style) parts of one row


@dataclass(frozen=True, slots=True)
class Entry:
    """Rows drawn one per line, and where selecting the entry goes (None: a header).

    Rows are plain (text, style) parts: a Text is made only for an entry on screen, so a
    note with thousands of links costs the worker no rich objects (~45 µs an entry)."""

    rows: tuple[Row, ...]
    target: Target | None = None

    def row_texts(self) -> list[Text]:
        """The rows as rich Text (styles as spans: `Text.render` draws spans only)."""
        texts = []
        for row in self.rows:
            text = Text()
            for part, style in row:
                text.append(part, style=style)
            texts.append(text)
        return texts


def header(title: str) -> Entry:
    """A group's title (not selectable)."""
    return Entry((((title, "bold underline"),),))


def neighbour(
    arrow: str,
    path: str,
    name: str,
    description: str,
    note: str = "",
    target: Target | None = None,
) -> Entry:
    """A neighbour: name (or path) with a marker and a note, the path, then the description;
    selecting it opens `target` (by default the path as written, not as drawn)."""
    target = target or (path, None, None)
    path, name = _one_line(path), _one_line(str(name))
    description = _one_line(str(description))
    # Without a name, the note is called by its file name, as Obsidian does: a vault's
    # paths share long folder prefixes, so cut at the pane's edge they would all look alike.
    label = name or _file_label(path)
    title: Row = ((f"{arrow} {label}", "bold"),)
    if note:
        title += ((f"  {note}", "italic red"),)
    rows = [title]
    if label != path:
        rows.append(((f"  {path}", "dim"),))
    if description:
        rows.append(((f"  {description}", "italic"),))
    return Entry(tuple(rows), target)


def _file_label(path: str) -> str:
    """A path's file name, without `.md` (a note's name in Obsidian)."""
    base = posixpath.basename(path)
    return base[:-3] if base.lower().endswith(".md") and len(base) > 3 else base or path


def _one_line(text: str) -> str:
    """Drawable text on one row (line breaks and runs of spaces become one space)."""
    text = drawable(text)
    return " ".join(text.split()) if "\n" in text or "\t" in text else text


class EntryVisual(Visual):
    """How Textual draws an `Entry`: measured by counting rows, drawn row by row."""

    def __init__(self, entry: Entry) -> None:
        self.entry = entry

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        """The widest row, uncut."""
        return max(sum(cell_len(part) for part, _ in row) for row in self.entry.rows)

    def get_height(self, rules: RulesMap, width: int) -> int:
        """The entry's row count (no row wraps)."""
        return len(self.entry.rows)

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        """One strip per row, cut to the width, on the option's base style."""
        base = style.rich_style
        strips: list[Strip] = []
        for line in self.entry.row_texts():
            line.truncate(width, overflow="ellipsis")
            strips.append(Strip(styled_segments(line, base)))
        return strips[:height]
