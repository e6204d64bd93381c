"""A note's lines with true line numbers, drawn with the Line API so only visible lines cost.

A 20 MiB file is held as a list of strings; each repaint renders the rows on screen. Highlighted
ranges, wikilinks and the link cursor are styles applied while rendering a row.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from reme_core import MarkdownLinkMatch, WikilinkMatch, find_markdown_links, find_wikilinks
from reme_tui.messages import FollowLink
from reme_tui.widgets.safe_text import drawable

_LINE_ANCHOR_RE = re.compile(r"^L(\d+)(?:-L?(\d+))?$", re.IGNORECASE)


def parse_line_anchor(anchor: str) -> list[tuple[int, int]]:
    """`L9`, `L9-L10` or `L9-L10,L15-L20` → line ranges; anything else → []."""
    ranges: list[tuple[int, int]] = []
    for part in anchor.split(","):
        match = _LINE_ANCHOR_RE.match(part.strip())
        if not match:
            return []
        start = int(match.group(1))
        end = int(match.group(2) or start)
        ranges.append((min(start, end), max(start, end)))
    return ranges


def find_anchor_line(lines: list[str], anchor: str) -> int | None:
    """The 1-based line of a `#Heading` or `#^block` anchor, if the note has it."""
    wanted = anchor.strip().lower()
    if wanted.startswith("^"):
        return next((i for i, ln in enumerate(lines, 1) if ln.rstrip().endswith(anchor)), None)
    for number, line in enumerate(lines, 1):
        stripped = line.lstrip()
        if stripped.startswith("#") and stripped.lstrip("#").strip().lower() == wanted:
            return number
    return None


def wrap_cuts(line: str, width: int) -> list[int]:
    """Character offsets where the rows of a soft-wrapped line start (always begins with 0).

    Breaks after a space when one is in reach, else mid-word; wide (CJK) characters count
    two cells and are never split.
    """
    cuts = [0]
    if width < 4 or cell_len(line) <= width:
        return cuts
    if line.isascii():
        pos = 0
        while len(line) - pos > width:
            space = line.rfind(" ", pos + 1, pos + width)
            pos = space + 1 if space > pos else pos + width
            cuts.append(pos)
        return cuts
    cells, space = 0, -1
    start = 0
    for index, char in enumerate(line):
        w = cell_len(char)
        if cells + w > width:
            start = space + 1 if space >= start else index
            cuts.append(start)
            cells = cell_len(line[start:index])
            space = -1
        if char == " ":
            space = index
        cells += w
    return cuts


@dataclass(slots=True)
class LinkState:
    """A link in the note (a wikilink, or in a vault a Markdown link to a note) and what
    following it would do."""

    match: WikilinkMatch | MarkdownLinkMatch
    target: str
    kind: str  # "note", "dangling", "attachment" or "self"


class NoteView(ScrollView, can_focus=True):
    """The reader's text: gutter, highlighted ranges, link cursor; Tab/Enter navigate links."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "next_link", "Link", id="reader.next_link"),
        Binding("shift+tab", "previous_link", "Prev link", show=False, id="reader.previous_link"),
        Binding("enter", "follow", "Follow", id="reader.follow"),
        Binding("home,g", "scroll_home", "Top", show=False, id="reader.top"),
        Binding("end,G", "scroll_end", "Bottom", show=False, id="reader.bottom"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "note--gutter",
        "note--range",
        "note--link",
        "note--dangling",
        "note--link-cursor",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.path = ""
        self.lines: list[str] = []
        self.links: list[LinkState] = []
        self.ranges: list[tuple[int, int]] = []
        self.link_cursor: int | None = None
        self._cache: dict[int, Strip] = {}
        self._gutter = 2
        self._pending_line: int | None = None
        self._anchor: tuple[int, int, int] | None = None  # (line, span, top row) of a range
        self._wrap_width = 0
        self._cuts: list[list[int]] = []
        self._row_of_line: list[int] = []

    # -- content ----------------------------------------------------------------------------
    def set_note(self, path: str, text: str, resolve: dict[str, tuple[str, str]]) -> None:
        """Show a note; `resolve` maps a written target to (resolved path, kind)."""
        self.path = path
        self.lines = [drawable(ln.expandtabs(4)) for ln in text.split("\n")]
        if self.lines and self.lines[-1] == "" and len(self.lines) > 1:
            self.lines.pop()
        self.links = []
        body = "\n".join(self.lines)
        for match in find_wikilinks(body):
            target, kind = resolve.get(match.target, (match.target, "note"))
            if not match.target:
                target, kind = path, "self"
            self.links.append(LinkState(match, target, kind))
        if "](" in body:  # Markdown links to notes: only those the index took as links (vaults)
            for md in find_markdown_links(body):
                if md.target in resolve:
                    self.links.append(LinkState(md, *resolve[md.target]))
            self.links.sort(key=lambda link: (link.match.line, link.match.start))
        self.ranges = []
        self.link_cursor = None
        self._anchor = None
        self._gutter = len(str(max(1, len(self.lines)))) + 2
        self._rewrap()

    def _rewrap(self) -> None:
        """Recompute the soft-wrapped rows for the current width (on load and on resize)."""
        width = max(8, self.scrollable_content_region.width - self._gutter)
        self._wrap_width = width
        self._cuts = [wrap_cuts(line, width) for line in self.lines]
        self._row_of_line = []
        rows = 0
        for cuts in self._cuts:
            self._row_of_line.append(rows)
            rows += len(cuts)
        self.virtual_size = Size(width + self._gutter, rows)
        self._invalidate()

    def on_resize(self) -> None:
        """Re-wrap when the width changes, keeping the top line in place.

        A range placed by `go_to_line` and not scrolled away from is placed again instead:
        the first layout passes (header height, a scrollbar appearing) resize the view.
        """
        width = max(8, self.scrollable_content_region.width - self._gutter)
        anchored = self._anchor is not None and int(self.scroll_y) == self._anchor[2]
        if self.lines and width != self._wrap_width:
            top = self.line_at_row(int(self.scroll_y))
            self._rewrap()
            if not anchored:
                self.scroll_to(y=self._row_of_line[top - 1], animate=False)
        if anchored and self._anchor is not None:
            line, span, _ = self._anchor
            self._place(line, span)

    def line_at_row(self, row: int) -> int:
        """The 1-based line shown on a (virtual) row."""
        if not self._row_of_line:
            return 1
        return max(1, bisect_right(self._row_of_line, row))

    def row_of(self, line: int, column: int = 0) -> int:
        """The virtual row showing a 1-based line (and a character column within it)."""
        if not self._row_of_line:
            return 0
        index = min(max(line, 1), len(self.lines)) - 1
        cuts = self._cuts[index]
        return self._row_of_line[index] + bisect_right(cuts, column) - 1

    def clear(self) -> None:
        """Show nothing (no note open, or the note is gone)."""
        self.set_note("", "", {})
        self.lines = []
        self._rewrap()

    def show_ranges(self, ranges: list[tuple[int, int]]) -> None:
        """Highlight line ranges and bring the first one into the middle of the view."""
        self.ranges = ranges
        self._invalidate()
        if ranges:
            self.go_to_line(ranges[0][0], span=ranges[0][1] - ranges[0][0] + 1)

    def go_to_line(self, line: int, span: int = 1) -> None:
        """Scroll so that `line` (1-based) sits near the top third of the view."""
        self._pending_line = line
        self.scroll_to(y=self._top_for(line, span), animate=False, immediate=True)
        self.call_after_refresh(self._settle, line, span)

    def _top_for(self, line: int, span: int) -> int:
        rows = self.row_of(line + span) - self.row_of(line) if line + span <= len(self.lines) else 1
        return max(0, self.row_of(line) - max(0, (self.size.height - rows) // 3))

    def _settle(self, line: int, span: int) -> None:
        if self._pending_line == line:
            self._place(line, span)
            self._pending_line = None

    def _place(self, line: int, span: int) -> None:
        self.scroll_to(y=self._top_for(line, span), animate=False, immediate=True)
        self._anchor = (line, span, int(self.scroll_y))  # as clamped by the scroll range

    @property
    def current_line(self) -> int:
        """Where the editor should open: the link cursor, a visible range, or the top row."""
        top = self.line_at_row(int(self.scroll_y))
        if self.link_cursor is not None:
            return self.links[self.link_cursor].match.line
        bottom = self.line_at_row(int(self.scroll_y) + max(0, self.size.height - 1))
        for start, _ in self.ranges:
            if top <= start <= bottom:
                return start
        return top

    @property
    def selected_link(self) -> LinkState | None:
        """The link under the cursor, if any."""
        return None if self.link_cursor is None else self.links[self.link_cursor]

    # -- links --------------------------------------------------------------------------------
    def action_next_link(self) -> None:
        """Move the cursor to the next link (starting from the top visible row)."""
        self._move_link(+1)

    def action_previous_link(self) -> None:
        """Move the cursor to the previous link."""
        self._move_link(-1)

    def _move_link(self, step: int) -> None:
        if not self.links:
            self.notify("This note has no links.", timeout=2)
            return
        if self.link_cursor is None:
            top = self.line_at_row(int(self.scroll_y))
            after = [i for i, ln in enumerate(self.links) if ln.match.line >= top]
            index = (after[0] if after else 0) if step > 0 else (after[0] - 1 if after else -1)
        else:
            index = self.link_cursor + step
        self.link_cursor = index % len(self.links)
        self._invalidate()
        match = self.links[self.link_cursor].match
        row = self.row_of(match.line, match.start)
        if not (self.scroll_y <= row < self.scroll_y + self.size.height):
            self.go_to_line(match.line)

    def action_follow(self) -> None:
        """Follow the link under the cursor (Tab selects one first)."""
        link = self.selected_link
        if link is None:
            self.notify("Press Tab to select a link, then Enter to follow it.", timeout=3)
            return
        self.post_message(FollowLink(link.target, link.match.anchor, self.path))

    def on_click(self, event: events.Click) -> None:
        """Clicking a link selects and follows it."""
        row = int(self.scroll_y) + event.y
        number = self.line_at_row(row)
        if not self.lines or event.x < self._gutter:
            return
        line = self.lines[number - 1]
        start = self._cuts[number - 1][row - self._row_of_line[number - 1]]
        cell = cell_len(line[:start]) + event.x - self._gutter
        for index, link in enumerate(self.links):
            m = link.match
            if m.line == number and cell_len(line[: m.start]) <= cell < cell_len(line[: m.end]):
                self.link_cursor = index
                self._invalidate()
                self.action_follow()
                return

    # -- rendering ----------------------------------------------------------------------------
    def _invalidate(self) -> None:
        self._cache.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        """Theme or CSS changed: cached rows carry old colours."""
        super().notify_style_update()
        self._cache.clear()

    def render_line(self, y: int) -> Strip:
        """Render one visible row: the gutter (number on a line's first row), then its text."""
        row = int(self.scroll_y) + y
        width = self.size.width
        base = self.rich_style
        if not self.lines or row >= self.virtual_size.height:
            return Strip.blank(width, base)
        number = self.line_at_row(row)
        part = row - self._row_of_line[number - 1]
        in_range = self._in_range(number)
        fill = base + self.get_component_rich_style("note--range") if in_range else base
        gutter = self._gutter_strip(number if part == 0 else None, in_range)
        body = self._cache.get(row)
        if body is None:
            body = self._cache[row] = self._render_row(number, part, fill)
        body = body.crop_extend(0, max(0, width - self._gutter), fill)
        return Strip.join([gutter, body])

    def _in_range(self, line: int) -> bool:
        return any(start <= line <= end for start, end in self.ranges)

    def _gutter_strip(self, line: int | None, in_range: bool) -> Strip:
        style = self.rich_style + self.get_component_rich_style("note--gutter")
        if in_range:
            style += Style(bold=True) + self.get_component_rich_style("note--range")
        marker = "▌" if in_range else " "
        label = f"{'' if line is None else line:>{self._gutter - 2}}{marker} "
        return Strip([Segment(label, style)], self._gutter)

    def _render_row(self, number: int, part: int, fill: Style) -> Strip:
        cuts = self._cuts[number - 1]
        line = self.lines[number - 1]
        start = cuts[part]
        end = cuts[part + 1] if part + 1 < len(cuts) else len(line)
        text = Text(line, style=fill, no_wrap=True, end="")
        for index, link in enumerate(self.links):
            m = link.match
            if m.line != number or m.end <= start or m.start >= end:
                continue
            name = "note--dangling" if link.kind == "dangling" else "note--link"
            style = self.get_component_rich_style(name)
            if index == self.link_cursor:
                style += self.get_component_rich_style("note--link-cursor")
            text.stylize(style, m.start, m.end)
        piece = text[start:end]
        return Strip(list(piece.render(self.app.console)), piece.cell_len)
