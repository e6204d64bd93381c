"""One entry of the links pane (a group's header or a neighbour) and how Textual draws it.

Entries are built in the links worker, and no row wraps: a long name, path or description is
cut with an ellipsis at the pane's edge. So an entry's height is its row count at any width,
and an OptionList lays out thousands of them without rendering any; only the entries on
screen are drawn (as the search pane's `HitVisual` does for hits).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

from reme_tui.widgets.safe_text import drawable

# Turns a row into segments; rows carry their own styles, so no app setting changes them.
_SEGMENTS = Console(color_system=None, force_terminal=False, legacy_windows=False)

Target = tuple[str, int | None, int | None]  # path, start line, end line


@dataclass(frozen=True, slots=True)
class Entry:
    """Rows drawn one per line, and where selecting the entry goes (None: a header)."""

    rows: tuple[Text, ...]
    target: Target | None = None


def header(title: str) -> Entry:
    """A group's title (not selectable)."""
    return Entry((_styled(title, "bold underline"),))


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
    title = _styled(f"{arrow} {name or path}", "bold")
    if note:
        title.append(f"  {note}", style="italic red")
    rows = [title]
    if name:
        rows.append(_styled(f"  {path}", "dim"))
    if description:
        rows.append(_styled(f"  {description}", "italic"))
    return Entry(tuple(rows), target)


def _styled(text: str, style: str) -> Text:
    """Text whose style is a span: `Text.render` draws spans, not a Text's own style."""
    row = Text()
    row.append(text, style=style)
    return row


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
        return max(row.cell_len for row in self.entry.rows)

    def get_height(self, rules: RulesMap, width: int) -> int:
        """The entry's row count (no row wraps)."""
        return len(self.entry.rows)

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        """One strip per row, cut to the width, on the option's base style."""
        base = style.rich_style
        strips: list[Strip] = []
        for row in self.entry.rows:
            line = row.copy()
            line.truncate(width, overflow="ellipsis")
            strips.append(Strip(Segment.apply_style(line.render(_SEGMENTS), base)))
        return strips[:height]
