"""The `v` action: the open note's local graph, on a screen of its own."""

from __future__ import annotations

from reme_tui.app.host import Host
from reme_tui.screens.graph import GraphScreen
from reme_tui.text import notices


def show_graph(screen: Host) -> None:
    """Open the graph of the screen's open note; `o` there opens a note in its reader."""
    ws, path = screen.ws, screen.reader.path
    if ws is None or not path:
        screen.notify(notices.GRAPH_NEEDS_A_NOTE, timeout=3)
        return

    def opened(chosen: str | None) -> None:
        if chosen:
            screen.navigator.open_path(chosen)

    screen.app.push_screen(GraphScreen(ws, path), opened)
