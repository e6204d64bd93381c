"""A note's lines with true line numbers, drawn with the Line API so only visible lines cost.

A 20 MiB file is held as a list of strings; each repaint renders the rows on screen. Highlighted
ranges, wikilinks and the link cursor are styles applied while rendering a row.
"""

from __future__ import annotations

import re
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

from reme_core import WikilinkMatch, find_wikilinks
from reme_tui.messages import FollowLink

_LINE_ANCHOR_RE = re.compile(r"^L(\d+)(?:-L?(\d+))?$", re.IGNORECASE)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


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


@dataclass(slots=True)
class LinkState:
    """A wikilink in the note and what following it would do."""

    match: WikilinkMatch
    target: str
    kind: str  # "note", "dangling", "attachment" or "self"


class NoteView(ScrollView, can_focus=True):
    """The reader's text: gutter, highlighted ranges, link cursor; Tab/Enter navigate links."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "next_link", "Next link"),
        Binding("shift+tab", "previous_link", "Prev link"),
        Binding("enter", "follow", "Follow"),
        Binding("home,g", "scroll_home", "Top", show=False),
        Binding("end,G", "scroll_end", "Bottom", show=False),
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

    # -- content ----------------------------------------------------------------------------
    def set_note(self, path: str, text: str, resolve: dict[str, tuple[str, str]]) -> None:
        """Show a note; `resolve` maps a written target to (resolved path, kind)."""
        self.path = path
        self.lines = [_CONTROL_RE.sub("", ln.expandtabs(4)) for ln in text.split("\n")]
        if self.lines and self.lines[-1] == "" and len(self.lines) > 1:
            self.lines.pop()
        self.links = []
        for match in find_wikilinks("\n".join(self.lines)):
            target, kind = resolve.get(match.target, (match.target, "note"))
            if not match.target:
                target, kind = path, "self"
            self.links.append(LinkState(match, target, kind))
        self.ranges = []
        self.link_cursor = None
        self._gutter = len(str(max(1, len(self.lines)))) + 2
        width = max((cell_len(ln) for ln in self.lines), default=0) + self._gutter + 1
        self.virtual_size = Size(width, len(self.lines))
        self._invalidate()

    def clear(self) -> None:
        """Show nothing (no note open, or the note is gone)."""
        self.set_note("", "", {})
        self.lines = []
        self.virtual_size = Size(0, 0)

    def show_ranges(self, ranges: list[tuple[int, int]]) -> None:
        """Highlight line ranges and bring the first one into the middle of the view."""
        self.ranges = ranges
        self._invalidate()
        if ranges:
            self.go_to_line(ranges[0][0], span=ranges[0][1] - ranges[0][0] + 1)

    def go_to_line(self, line: int, span: int = 1) -> None:
        """Scroll so that `line` (1-based) sits near the top third of the view."""
        self._pending_line = line
        top = max(0, line - 1 - max(0, (self.size.height - span) // 3))
        self.scroll_to(y=top, animate=False, immediate=True)
        self.call_after_refresh(self._settle, line, span)

    def _settle(self, line: int, span: int) -> None:
        if self._pending_line == line:
            top = max(0, line - 1 - max(0, (self.size.height - span) // 3))
            self.scroll_to(y=top, animate=False)
            self._pending_line = None

    @property
    def current_line(self) -> int:
        """Where the editor should open: the link cursor, a visible range, or the top row."""
        top = int(self.scroll_y) + 1
        if self.link_cursor is not None:
            return self.links[self.link_cursor].match.line
        bottom = top + max(0, self.size.height - 1)
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
            self.notify("This note has no wikilinks.", timeout=2)
            return
        if self.link_cursor is None:
            top = int(self.scroll_y) + 1
            after = [i for i, ln in enumerate(self.links) if ln.match.line >= top]
            index = (after[0] if after else 0) if step > 0 else (after[0] - 1 if after else -1)
        else:
            index = self.link_cursor + step
        self.link_cursor = index % len(self.links)
        self._invalidate()
        line = self.links[self.link_cursor].match.line
        if not (self.scroll_y < line <= self.scroll_y + self.size.height):
            self.go_to_line(line)

    def action_follow(self) -> None:
        """Follow the link under the cursor (Tab selects one first)."""
        link = self.selected_link
        if link is None:
            self.notify("Press Tab to select a link, then Enter to follow it.", timeout=3)
            return
        self.post_message(FollowLink(link.target, link.match.anchor, self.path))

    def on_click(self, event: events.Click) -> None:
        """Clicking a link selects and follows it."""
        row = int(self.scroll_y) + event.y + 1
        cell = int(self.scroll_x) + event.x - self._gutter
        for index, link in enumerate(self.links):
            m = link.match
            line = self.lines[m.line - 1] if m.line <= len(self.lines) else ""
            if m.line == row and cell_len(line[: m.start]) <= cell < cell_len(line[: m.end]):
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
        """Render one visible row: the gutter, then the line scrolled horizontally."""
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self.rich_style
        if index >= len(self.lines):
            return Strip.blank(width, base)
        in_range = self._in_range(index + 1)
        fill = base + self.get_component_rich_style("note--range") if in_range else base
        gutter = self._gutter_strip(index + 1, in_range)
        body = self._cache.get(index)
        if body is None:
            body = self._cache[index] = self._render_body(index, fill)
        body = body.crop_extend(scroll_x, scroll_x + max(0, width - self._gutter), fill)
        return Strip.join([gutter, body])

    def _in_range(self, line: int) -> bool:
        return any(start <= line <= end for start, end in self.ranges)

    def _gutter_strip(self, line: int, in_range: bool) -> Strip:
        style = self.rich_style + self.get_component_rich_style("note--gutter")
        if in_range:
            style += Style(bold=True) + self.get_component_rich_style("note--range")
        marker = "▌" if in_range else " "
        label = f"{line:>{self._gutter - 2}}{marker} "
        return Strip([Segment(label, style)], self._gutter)

    def _render_body(self, index: int, fill: Style) -> Strip:
        text = Text(self.lines[index], style=fill, no_wrap=True, end="")
        for number, link in enumerate(self.links):
            m = link.match
            if m.line != index + 1:
                continue
            name = "note--dangling" if link.kind == "dangling" else "note--link"
            style = self.get_component_rich_style(name)
            if number == self.link_cursor:
                style += self.get_component_rich_style("note--link-cursor")
            text.stylize(style, m.start, m.end)
        segments = list(text.render(self.app.console))
        return Strip(segments, text.cell_len)
