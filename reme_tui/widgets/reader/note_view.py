"""A note's lines, numbered, or rendered Markdown, drawn with the Line API (only visible rows cost).

The view shows *items*: in source mode the note's lines, in rendered mode the lines of
`render_markdown`, each of which knows its source line. Soft wrapping, the gutter, the
highlighted ranges (source lines), links (Tab/Shift+Tab, Enter, click) and scrolling to a
line work the same on both, so a hit's range and `#L9` anchors land in either view. A 20 MiB
file is held as a list of strings; each repaint renders the rows on screen.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from reme_core import RenderedLine
from reme_tui.messages import FollowLink
from reme_tui.text import notices
from reme_tui.widgets.reader.anchors import find_anchor_line, parse_line_anchor
from reme_tui.widgets.reader.markdown_styles import MarkdownStyles
from reme_tui.widgets.reader.note_links import LinkState
from reme_tui.widgets.reader.wrap import wrap_cuts
from reme_tui.widgets.safe_text import drawable
from reme_tui.widgets.segments import styled_segments

__all__ = ["LinkState", "NoteView", "find_anchor_line", "parse_line_anchor", "prepare_lines"]


def prepare_lines(text: str) -> list[str]:
    """A note's lines as the view holds them: tabs expanded, control characters dropped,
    and emoji variation selectors (U+FE0F) dropped: rich counts `🗂️` as two cells but
    tmux and wcwidth-based terminals draw one, so the pane's border would move; without
    the selector every one of them agrees on one cell."""
    if "\ufe0f" in text:
        text = text.replace("\ufe0f", "")
    lines = [drawable(ln.expandtabs(4)) for ln in text.split("\n")]
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()
    return lines


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
    }  # the rendered view's `md--*` styles are `MarkdownStyles`'s

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.path = ""
        self.lines: list[str] = []
        self.links: list[LinkState] = []
        self.rendered: list[RenderedLine] | None = None
        self.rendered_links: list[LinkState] | None = None
        self.ranges: list[tuple[int, int]] = []
        self.link_cursor: int | None = None
        self._cache: dict[int, Strip] = {}
        self._styles: dict[str, Style] = {}
        self._gutter = 2
        self._pending_line: int | None = None
        self._anchor: tuple[int, int, int] | None = None  # (line, span, top row) of a range
        self._wrap_width = 0
        self._texts: list[str] = []  # the items' text
        self._sources: list[int] | None = None  # rendered mode: each item's source line
        self._item_links: dict[int, list[tuple[int, int, int]]] = {}  # item → (start, end, link)
        self._link_at: dict[int, tuple[int, int]] = {}  # link → (item, start)
        self._nav: list[int] = []  # the links shown, in reading order
        self._cuts: list[list[int]] = []
        self._row_of_item: list[int] = []
        self._base: Style | None = None  # the widget's style during one `render_lines`

    # -- content ----------------------------------------------------------------------------
    def set_note(
        self,
        path: str,
        lines: list[str],
        links: list[LinkState],
        rendered: list[RenderedLine] | None = None,
        rendered_links: list[LinkState] | None = None,
    ) -> None:
        """Show a note's source lines (from `prepare_lines`) and its links, or its
        `rendered` lines when given (`rendered_links`: the links they number, embedded
        notes' too)."""
        self.path = path
        self.lines = lines
        self.links = links
        self.rendered = rendered
        self.rendered_links = rendered_links
        self.ranges = []
        self.link_cursor = None
        self._anchor = None
        self._gutter = len(str(max(1, len(self.lines)))) + 2
        self._layout()

    def show_rendered(
        self, rendered: list[RenderedLine] | None, links: list[LinkState] | None = None
    ) -> None:
        """Switch to the rendered lines (None: back to the source), keeping the top line;
        `links`: the links they number."""
        top = self.line_at_row(int(self.scroll_y))
        self.rendered = rendered
        self.rendered_links = links
        self._anchor = None
        self._layout()
        if self.link_cursor is not None and self.link_cursor not in self._link_at:
            self.link_cursor = None
        self.scroll_to(y=self.row_of(top), animate=False, immediate=True)

    def _layout(self) -> None:
        """Index the items and their links for the current mode, then wrap them."""
        self._item_links = {}
        self._link_at = {}
        if self.rendered is None:
            self._texts, self._sources = self.lines, None
            for index, link in enumerate(self.links):
                m = link.match
                self._item_links.setdefault(m.line - 1, []).append((m.start, m.end, index))
                self._link_at[index] = (m.line - 1, m.start)
        else:
            self._texts = [r.text for r in self.rendered]
            # An embedded line counts as the open note's line it is embedded at, so that
            # the items' source lines stay in order for the look-ups by line.
            self._sources = []
            own = 1
            for r in self.rendered:
                own = own if r.path else r.source
                self._sources.append(own)
            for item, r in enumerate(self.rendered):
                if r.links:
                    self._item_links[item] = r.links
                    for start, _, index in r.links:
                        self._link_at.setdefault(index, (item, start))
        self._nav = sorted(self._link_at, key=self._link_at.__getitem__)
        self._rewrap()

    def _rewrap(self) -> None:
        """Recompute the soft-wrapped rows for the current width (on load and on resize)."""
        width = max(8, self.scrollable_content_region.width - self._gutter)
        self._wrap_width = width
        self._cuts = [wrap_cuts(text, width) for text in self._texts]
        self._row_of_item = []
        rows = 0
        for cuts in self._cuts:
            self._row_of_item.append(rows)
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
        if self._texts and width != self._wrap_width:
            top = self.line_at_row(int(self.scroll_y))
            self._rewrap()
            if not anchored:
                self.scroll_to(y=self.row_of(top), animate=False)
        if anchored and self._anchor is not None:
            line, span, _ = self._anchor
            self._place(line, span)

    def _item_at_row(self, row: int) -> int:
        return max(0, bisect_right(self._row_of_item, row) - 1)

    def _source_of(self, item: int) -> int:
        return item + 1 if self._sources is None else self._sources[item]

    def _item_of(self, line: int) -> int:
        """The item showing a 1-based source line (the next one shown, if it is hidden)."""
        count = len(self._texts)
        if self._sources is None:
            return min(max(line, 1), count) - 1
        return min(bisect_left(self._sources, line), count - 1)

    def line_at_row(self, row: int) -> int:
        """The 1-based source line shown on a (virtual) row."""
        if not self._row_of_item:
            return 1
        return self._source_of(self._item_at_row(row))

    def row_of(self, line: int, column: int = 0) -> int:
        """The virtual row showing a 1-based source line (and a column of its item)."""
        if not self._row_of_item:
            return 0
        item = self._item_of(line)
        return self._row_of_item[item] + bisect_right(self._cuts[item], column) - 1

    def clear(self) -> None:
        """Show nothing (no note open, or the note is gone)."""
        self.set_note("", [], [])

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
        last = self._source_of(len(self._texts) - 1) if self._texts else 0
        rows = self.row_of(line + span) - self.row_of(line) if line + span <= last else 1
        return max(0, self.row_of(line) - max(0, (self.size.height - rows) // 3))

    def _settle(self, line: int, span: int) -> None:
        if self._pending_line == line:
            self._place(line, span)
            self._pending_line = None

    def _place(self, line: int, span: int) -> None:
        self.scroll_to(y=self._top_for(line, span), animate=False, immediate=True)
        self._anchor = (line, span, int(self.scroll_y))  # as clamped by the scroll range

    @property
    def shown_links(self) -> list[LinkState]:
        """The links the items number: the note's, or in the rendered view those of its
        rendered lines (embedded notes' links too)."""
        if self.rendered is not None and self.rendered_links is not None:
            return self.rendered_links
        return self.links

    @property
    def current_place(self) -> tuple[str, int]:
        """Where the editor should open, as (file, 1-based line): the link cursor, a visible
        range, or the top row; a line shown inside an embed is its own file's line."""
        top = self.line_at_row(int(self.scroll_y))
        if self.link_cursor is not None:
            link = self.shown_links[self.link_cursor]
            return link.source or self.path, link.match.line
        bottom = self.line_at_row(int(self.scroll_y) + max(0, self.size.height - 1))
        for start, _ in self.ranges:
            if top <= start <= bottom:
                return self.path, start
        if self.rendered is not None and self._texts:
            shown = self.rendered[self._item_at_row(int(self.scroll_y))]
            if shown.path:
                return shown.path, shown.source
        return self.path, top

    @property
    def selected_link(self) -> LinkState | None:
        """The link under the cursor, if any."""
        return None if self.link_cursor is None else self.shown_links[self.link_cursor]

    # -- links --------------------------------------------------------------------------------
    def action_next_link(self) -> None:
        """Move the cursor to the next link (starting from the top visible row)."""
        self._move_link(+1)

    def action_previous_link(self) -> None:
        """Move the cursor to the previous link."""
        self._move_link(-1)

    def _move_link(self, step: int) -> None:
        if not self._nav:
            self.notify(notices.NO_LINKS_HERE, timeout=2)
            return
        if self.link_cursor is None or self.link_cursor not in self._link_at:
            top = self._item_at_row(int(self.scroll_y))
            after = [i for i, k in enumerate(self._nav) if self._link_at[k][0] >= top]
            position = (after[0] if after else 0) if step > 0 else (after[0] - 1 if after else -1)
        else:
            position = self._nav.index(self.link_cursor) + step
        self.link_cursor = self._nav[position % len(self._nav)]
        self._invalidate()
        item, start = self._link_at[self.link_cursor]
        row = self._row_of_item[item] + bisect_right(self._cuts[item], start) - 1
        if not (self.scroll_y <= row < self.scroll_y + self.size.height):
            self.go_to_line(self._source_of(item))

    def action_follow(self) -> None:
        """Follow the link under the cursor (Tab selects one first)."""
        link = self.selected_link
        if link is None:
            self.notify(notices.SELECT_A_LINK, timeout=3)
            return
        self.post_message(
            FollowLink(
                link.target, link.match.anchor, link.source or self.path, web=link.kind == "web"
            )
        )

    def on_click(self, event: events.Click) -> None:
        """Clicking a link selects and follows it."""
        if not self._texts or event.x < self._gutter:
            return
        row = int(self.scroll_y) + event.y
        item = self._item_at_row(row)
        text = self._texts[item]
        cuts = self._cuts[item]
        part = row - self._row_of_item[item]
        if part >= len(cuts):
            return
        cell = cell_len(text[: cuts[part]]) + event.x - self._gutter
        for start, end, index in self._item_links.get(item, []):
            if cell_len(text[:start]) <= cell < cell_len(text[:end]):
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
        self._styles.clear()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            carrier = self.screen.query_one(MarkdownStyles) if name.startswith("md--") else self
            style = self._styles[name] = carrier.get_component_rich_style(name)
        return style

    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows in `crop`, one look at the widget's style for all (it walks the ancestors'
        styles, ~0.1 ms: two per row were half of a frame, all panes redraw on help/files)."""
        self._base = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._base = None

    def render_line(self, y: int) -> Strip:
        """Render one visible row: the gutter (number on a line's first row), then its text."""
        row = int(self.scroll_y) + y
        width = self.size.width
        base = self._base or self.rich_style
        if not self._texts or row >= self.virtual_size.height:
            return Strip.blank(width, base)
        item = self._item_at_row(row)
        part = row - self._row_of_item[item]
        line = self._source_of(item)
        in_range = any(start <= line <= end for start, end in self.ranges)
        fill = base + self._style("note--range") if in_range else base
        sources = self._sources
        first = part == 0 and (sources is None or item == 0 or sources[item - 1] != line)
        gutter = self._gutter_strip(line if first else None, in_range)
        body = self._cache.get(row)
        if body is None:
            body = self._cache[row] = self._render_row(item, part, fill)
        body = body.crop_extend(0, max(0, width - self._gutter), fill)
        return Strip.join([gutter, body])

    def _gutter_strip(self, line: int | None, in_range: bool) -> Strip:
        style = (self._base or self.rich_style) + self._style("note--gutter")
        if in_range:
            style += Style(bold=True) + self._style("note--range")
        marker = "▌" if in_range else " "
        label = f"{'' if line is None else line:>{self._gutter - 2}}{marker} "
        return Strip([Segment(label, style)], self._gutter)

    def _render_row(self, item: int, part: int, fill: Style) -> Strip:
        cuts = self._cuts[item]
        text = self._texts[item]
        start = cuts[part]
        end = cuts[part + 1] if part + 1 < len(cuts) else len(text)
        # Only this row's slice is styled: a 90 KB one-line drawing costs a row, not a line.
        piece = Text(text[start:end], style=fill, no_wrap=True, end="")
        if self.rendered is not None:
            for s, e, name in self.rendered[item].styles:
                if e > start and s < end:
                    piece.stylize(self._style(f"md--{name}"), max(s - start, 0), e - start)
        for s, e, index in self._item_links.get(item, []):
            if e <= start or s >= end:
                continue
            kind = self.shown_links[index].kind
            style = self._style("note--dangling" if kind == "dangling" else "note--link")
            if index == self.link_cursor:
                style += self._style("note--link-cursor")
            piece.stylize(style, max(s - start, 0), e - start)
        return Strip(styled_segments(piece, fill, self.app.console), piece.cell_len)
