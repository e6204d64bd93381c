"""Which of the panes show, by the terminal's width and the user's choice.

Wide: search, reader and links side by side (links from `NARROW_WIDTH` columns on, from
`FILES_NARROW_WIDTH` beside the files tree, or as the user chose with `l` or `links_pane:`),
and the files tree left of search when the user shows it (Ctrl+E); below `NARROW_WIDTH` the
tree and search share the left column, the one last brought forward showing. Below
`SINGLE_PANE_WIDTH` the panes would squeeze to unreadable widths, so they stack: only the
pane with the focus shows, and moving the focus (F6, `/`, opening a hit) brings its pane
forward.
"""

from __future__ import annotations

from textual.widget import Widget

NARROW_WIDTH = 110  # below this many columns the links pane starts hidden (`l` shows it)
FILES_NARROW_WIDTH = 150  # with the files tree shown, the links pane starts hidden below this
SINGLE_PANE_WIDTH = 74  # below this, one pane at a time (search's 34 + a 40-column reader)

# F6 goes up the numbers: the tree (leftmost) comes after links, so the cycle runs left to right.
SEARCH, READER, LINKS, FILES = 0, 1, 2, 3


class PaneLayout:
    """Shows and hides the panes (search, reader, links, files); the screen asks it where
    focus may go."""

    def __init__(
        self, screen: Widget, search: Widget, reader: Widget, links: Widget, files: Widget
    ) -> None:
        self.screen = screen  # takes the `-single-pane` class: the shown pane's full width
        self.panes = (search, reader, links, files)
        self.links_choice: bool | None = None  # None: the links pane follows the width
        self.files_shown = False  # the user's choice (Ctrl+E, the palette)
        self.left = SEARCH  # search or the tree: which has the left column when they share it
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
        wide = FILES_NARROW_WIDTH if self.files_shown else NARROW_WIDTH
        return self.single or self.width >= wide

    def available(self, pane: int) -> bool:
        """Whether F6 may take the focus to `pane`."""
        if pane == LINKS:
            return self.links_available
        return self.files_shown if pane == FILES else True

    def pane_of(self, widget: Widget | None) -> int:
        """The pane `widget` is in (`SEARCH`, `READER`, `LINKS`, `FILES`), -1 for none."""
        for index, pane in enumerate(self.panes):
            if widget is not None and (widget is pane or pane in widget.ancestors):
                return index
        return -1

    def step(self, focused: Widget | None, step: int) -> int:
        """The pane F6 (+1) or Shift+F6 (-1) moves the focus to, brought forward."""
        count = len(self.panes)
        index = (self.pane_of(focused) + step) % count
        while not self.available(index):
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

    def choose_files(self, show: bool) -> None:
        """Show or hide the files tree (it takes the left column where it shares it)."""
        self.files_shown = show
        if show:
            self.left = FILES
            self.current = FILES if self.single else self.current
        else:
            self.left = SEARCH
            if self.current == FILES:
                self.current = READER
        self.apply()

    def bring_forward(self, pane: int) -> None:
        """`pane` is about to take the focus: in the single layout it becomes the one shown,
        and search or the tree takes the left column where they share it."""
        if pane < 0:
            return
        self.current = pane
        shared = self.files_shown and self.width < NARROW_WIDTH
        if pane in (SEARCH, FILES) and self.left != pane:
            self.left = pane
            if shared:
                self.apply()
        if self.single:
            self.apply()

    def apply(self) -> None:
        search, reader, links, files = self.panes
        self.screen.set_class(self.single, "-single-pane")
        if self.single:
            for index, pane in enumerate(self.panes):
                pane.display = index == self.current
            search.set_class(False, "-with-files")
            return
        reader.display = True
        links.display = self.links_available
        shared = self.width < NARROW_WIDTH
        files.display = self.files_shown and (not shared or self.left == FILES)
        search.display = not (files.display and shared)
        # On search, the one widget it restyles: on the screen, toggling it restyled every
        # widget (~0.3 s at 50k notes, the files tree's rows included).
        search.set_class(files.display and search.display, "-with-files")
