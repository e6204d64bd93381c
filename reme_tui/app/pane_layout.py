"""Which of the three panes show, by the terminal's width and the user's choice.

Wide: search, reader and links side by side (links from `NARROW_WIDTH` columns on, or as the
user chose with `l` or `links_pane:`). Below `SINGLE_PANE_WIDTH` the panes would squeeze to
unreadable widths, so they stack: only the pane with the focus shows, and moving the focus
(F6, `/`, opening a hit) brings its pane forward.
"""

from __future__ import annotations

from textual.widget import Widget

NARROW_WIDTH = 110  # below this many columns the links pane starts hidden (`l` shows it)
SINGLE_PANE_WIDTH = 74  # below this, one pane at a time (search's 34 + a 40-column reader)

SEARCH, READER, LINKS = 0, 1, 2


class PaneLayout:
    """Shows and hides the panes (search, reader, links); the screen asks it where focus may go."""

    def __init__(self, screen: Widget, search: Widget, reader: Widget, links: Widget) -> None:
        self.screen = screen  # takes the `-single-pane` class: the shown pane's full width
        self.panes = (search, reader, links)
        self.links_choice: bool | None = None  # None: the links pane follows the width
        self.width = 0
        self.current = SEARCH  # the pane shown when only one is

    @property
    def single(self) -> bool:
        """One pane at a time (a narrow terminal)."""
        return 0 < self.width < SINGLE_PANE_WIDTH

    @property
    def links_available(self) -> bool:
        """Whether F6 may take the focus to the links pane."""
        if self.links_choice is not None:
            return self.links_choice
        return self.single or self.width >= NARROW_WIDTH

    def pane_of(self, widget: Widget | None) -> int:
        """The pane `widget` is in (`SEARCH`, `READER`, `LINKS`), -1 for none."""
        for index, pane in enumerate(self.panes):
            if widget is not None and (widget is pane or pane in widget.ancestors):
                return index
        return -1

    def step(self, focused: Widget | None, step: int) -> int:
        """The pane F6 (+1) or Shift+F6 (-1) moves the focus to, brought forward."""
        count = len(self.panes)
        index = (self.pane_of(focused) + step) % count
        if index == LINKS and not self.links_available:
            index = (index + step) % count
        self.bring_forward(index)
        return index

    def resized(self, width: int) -> None:
        self.width = width
        self.apply()

    def choose_links(self, show: bool) -> None:
        """The user's choice (`l`, `links_pane:`), which the width no longer overrides."""
        self.links_choice = show
        if show:
            self.current = LINKS if self.single else self.current
        elif self.current == LINKS:
            self.current = READER
        self.apply()

    def bring_forward(self, pane: int) -> None:
        """`pane` is about to take the focus: in the single layout it becomes the one shown."""
        if pane >= 0:
            self.current = pane
            if self.single:
                self.apply()

    def apply(self) -> None:
        search, reader, links = self.panes
        self.screen.set_class(self.single, "-single-pane")
        if self.single:
            for index, pane in enumerate(self.panes):
                pane.display = index == self.current
            return
        search.display = reader.display = True
        links.display = self.links_available
