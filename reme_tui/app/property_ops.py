"""The `p` action: edit one property of the open note, written off the UI thread."""

from __future__ import annotations

from reme_core import properties
from reme_tui.app.host import Host
from reme_tui.screens.property_edit import PropertyChange, PropertyScreen
from reme_tui.text import notices


def edit_property(screen: Host) -> None:
    """Ask for a key and value, then write them as `write --meta` does (other keys kept);
    a refusal reaches the app's error hub, the watcher's refresh shows the change."""
    reader, ws = screen.reader, screen.ws
    note = reader.note
    if ws is None or note is None or not reader.path:
        screen.notify(notices.OPEN_A_NOTE_FIRST, timeout=2)
        return
    path = reader.path
    where, line = reader.view.current_place
    rows = properties(note.lines)

    def chosen(change: PropertyChange | None) -> None:
        if change is None:
            return
        screen.run_worker(
            lambda: ws.write(path, metadata={change.key: change.value}),
            thread=True,
            group="file-ops",
            name="edit property",
            exit_on_error=False,
        )

    screen.app.push_screen(PropertyScreen(path, rows, line if where == path else 0), chosen)
