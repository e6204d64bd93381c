"""The local graph view (`v`, palette "Graph"): the open note among its links, walked by keyboard.

A screen of its own over the browser: the note in the centre, its links and backlinks on a
ring around it (and theirs on a second ring at depth 2), edges in braille, arrows on the
labels for the link's direction. Arrow keys move to the nearest node that way, Enter makes
the selected note the centre, `o` opens it in the reader, Esc returns. `f` filters by tag
(`tag:x`) or folder; `1`/`2` set the depth. The walk, the layout and the drawing run in a
thread worker; the UI thread only shows the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from reme_core import RemeError, Workspace
from reme_tui.services import local_graph
from reme_tui.text import hints, notices
from reme_tui.text.words import plural
from reme_tui.widgets.graph.canvas import draw
from reme_tui.widgets.graph.layout import layout, nearest
from reme_tui.widgets.graph.view import GraphView, Picture
from reme_tui.widgets.key_footer import KeyFooter
from reme_tui.widgets.safe_text import drawable


def ring_limit(width: int, height: int) -> int:
    """How many notes a ring shows before folding the rest: what the area can label."""
    return max(6, min(40, width * height // 110))


class GraphScreen(Screen[str | None]):
    """Walk the local graph; dismissed with a note to open in the reader, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move('left')", "←", show=False, id="graph.left"),
        Binding("right", "move('right')", "→", show=False, id="graph.right"),
        Binding("up", "move('up')", "↑", show=False, id="graph.up"),
        Binding("down", "move('down')", "Move", key_display="←↑→↓", id="graph.down"),
        Binding("enter", "recentre", "Centre", id="graph.recentre"),
        Binding("o", "open", "Open", id="graph.open"),
        Binding("1", "depth(1)", "Depth 1", id="graph.depth1"),
        Binding("2", "depth(2)", "Depth 2", id="graph.depth2"),
        Binding("f", "filter", "Filter", id="graph.filter"),
        Binding("escape", "back", "Back", id="graph.back"),
    ]

    @dataclass
    class Drawn(Message):
        """A picture the worker made (for the centre and settings it was asked for)."""

        picture: Picture | None
        error: str
        selected: str

    def __init__(self, ws: Workspace, path: str) -> None:
        super().__init__()
        self.ws = ws
        self.centre = path
        self.depth = 1
        self.filter = ""
        self.view = GraphView(id="graph-view")
        self.header = Static(id="graph-header")

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.view
        yield Input(placeholder="tag:x or folder/ (Enter applies, empty clears)", id="graph-filter")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#graph-filter", Input).display = False
        self.view.focus()
        self._say(hints.DRAWING_GRAPH)

    def on_resize(self) -> None:
        self._redraw(self.centre)

    def _say(self, words: str) -> None:
        self.header.update(Text(words))

    def _redraw(self, selected: str) -> None:
        size = self.view.size
        if size.width and size.height:
            self._build(self.centre, self.depth, self.filter, size.width, size.height, selected)

    @work(thread=True, exclusive=True, group="graph", name="graph", exit_on_error=False)
    def _build(
        self, centre: str, depth: int, words: str, width: int, height: int, selected: str
    ) -> None:
        """Walk, lay out and draw off the UI thread."""
        try:
            graph = local_graph(self.ws, centre, depth, words, ring_limit(width, height))
        except RemeError as exc:
            self.post_message(self.Drawn(None, str(exc), selected))
            return
        placed = layout(graph.layout_nodes(), width, height)
        styles = {n.key: "fold" for n in graph.nodes if n.folded}
        styles[centre] = "centre"
        rows = draw(placed, graph.edges, styles)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Drawn(Picture(graph, placed, rows), "", selected))

    @on(Drawn)
    def _drawn(self, message: Drawn) -> None:
        picture = message.picture
        if picture is None:
            self._say(hints.no_graph(drawable(self.centre), message.error))
            return
        graph = picture.graph
        selected = message.selected if message.selected in picture.layout.placed else graph.centre
        self.view.show(picture, selected)
        notes = sum(1 for n in graph.nodes if n.path) - 1
        folded = sum(n.folded for n in graph.nodes)
        header = Text()
        header.append(drawable(graph.centre), style="bold")
        header.append(f"  depth {graph.depth}  {plural(notes, 'linked note')}")
        if folded:
            header.append(f", {folded} folded")
        if picture.layout.hidden:
            header.append(f", {len(picture.layout.hidden)} without room")
        if graph.filter:
            header.append(f"  filter: {drawable(graph.filter)}", style="italic")
        header.append(hints.GRAPH_LEGEND, style="dim")
        self.header.update(header)

    # -- keys ----------------------------------------------------------------------------------
    def action_move(self, direction: str) -> None:
        """To the nearest node that way."""
        picture = self.view.picture
        if picture is None:
            return
        key = nearest(picture.layout.placed, self.view.selected, direction)
        if key is not None:
            self.view.select(key)

    def _selected_note(self) -> str | None:
        picture = self.view.picture
        node = picture.graph.node(self.view.selected) if picture else None
        if node is None:
            return None
        if not node.path:
            self.notify(notices.folded(node.label), timeout=3)
            return None
        return node.path

    def action_recentre(self) -> None:
        """The selected note becomes the centre."""
        path = self._selected_note()
        if path is not None and path != self.centre:
            self.centre = path
            self._say(hints.drawing_graph_of(drawable(path)))
            self._redraw(path)

    def action_open(self) -> None:
        """Open the selected note in the reader."""
        path = self._selected_note()
        if path is not None:
            self.dismiss(path)

    def action_depth(self, depth: int) -> None:
        """Direct links only (1), or their links too (2)."""
        if depth != self.depth:
            self.depth = depth
            self._redraw(self.view.selected)

    def action_filter(self) -> None:
        """Show the filter box (tag:x or a folder)."""
        box = self.query_one("#graph-filter", Input)
        box.display = True
        box.value = self.filter
        box.focus()

    @on(Input.Submitted, "#graph-filter")
    def _filtered(self, event: Input.Submitted) -> None:
        event.input.display = False
        self.filter = event.value.strip()
        self.view.focus()
        self._redraw(self.view.selected)

    def action_back(self) -> None:
        """Esc: the filter box first, then back to the reader."""
        box = self.query_one("#graph-filter", Input)
        if box.display:
            box.display = False
            self.view.focus()
            return
        self.dismiss(None)
