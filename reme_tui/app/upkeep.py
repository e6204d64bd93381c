"""Upkeep of the index from the browser: $EDITOR, sync, optimize, rebuild, vectors.

A controller of `MainScreen`; every long task is a named worker of the screen, so its
failure reaches the app's one error hub, and posts its result to the screen, which hands it
back here on the UI thread.
"""

from __future__ import annotations

import os
import shlex
import subprocess

from textual.app import SuspendNotSupported

from reme_core import ReindexSummary, VectorStatus
from reme_tui.app.host import Host
from reme_tui.messages import Optimized, Rebuilt, VectorsToggled
from reme_tui.text import notices
from reme_tui.text.reports import optimize_lines, rebuild_toast
from reme_tui.text.vectors import VECTORS_SWITCHING, vectors_line


class Upkeep:
    """Editor hand-over and maintenance actions, run as workers."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen
        self.last_optimize: list[str] = []

    def edit(self) -> None:
        """Open $VISUAL/$EDITOR at the current line; re-read the note afterwards."""
        screen, ws = self.screen, self.screen.ws
        path, line = screen.reader.view.current_place
        if ws is None or not path or not (ws.root / path).exists():
            screen.notify(notices.OPEN_A_NOTE_FIRST, timeout=2)
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        command = [*shlex.split(editor), f"+{line}", str(ws.root / path)]
        try:
            with screen.app.suspend():
                subprocess.run(command, check=False)
        except SuspendNotSupported:
            screen.notify(
                notices.no_terminal_to_lend(editor, path),
                title="Edit",
                severity="warning",
                timeout=8,
            )
            return
        except OSError as exc:
            screen.notify(notices.cannot_run(editor, exc), severity="error")
            return
        self.sync()
        screen.navigator.read(screen.reader.path, list(screen.reader.view.ranges), "", None)

    def sync(self) -> None:
        """Apply changes on disk now (the listener refreshes the panes)."""
        ws = self.screen.ws
        if ws is not None:
            self.screen.in_thread(ws.sync, "sync", "sync")

    def optimize(self) -> None:
        """Compact the index and report before → after."""
        ws = self.screen.ws
        if ws is None:
            return
        self.screen.status.update_state(activity="optimizing…")
        self.screen.in_thread(
            lambda: self.screen.post_message(Optimized(optimize_lines(ws.optimize()))),
            "maintenance",
            "optimize",
        )

    def optimized(self, lines: list[str]) -> None:
        """Show optimize's before → after."""
        self.last_optimize = lines
        self.screen.progress_done()
        self.screen.notify("\n".join(lines), title=notices.OPTIMIZE_TITLE, timeout=12)
        self.screen.refresh_counts()

    def rebuild(self) -> None:
        """Drop derived state and re-read every file, with progress."""
        ws = self.screen.ws
        if ws is None:
            return
        progress = self.screen.progress("rebuilding")
        self.screen.in_thread(
            lambda: self.screen.post_message(Rebuilt(ws.reindex(progress))),
            "maintenance",
            "rebuild",
        )

    def rebuilt(self, summary: ReindexSummary) -> None:
        """Report the rebuild; show the open note and the results from the new index."""
        screen = self.screen
        screen.progress_done()
        screen.notify(
            rebuild_toast(summary),
            title="Rebuild index",
            timeout=10,
        )
        self.screen.refresh_counts()
        screen.search_pane.refresh_results()
        if screen.reader.path:
            screen.navigator.open_path(
                screen.reader.path, list(screen.reader.view.ranges), record=False
            )

    def toggle_vectors(self) -> None:
        """Turn vector recall on or off; switching on may load a model, so in a worker."""
        ws = self.screen.ws
        if ws is None:
            self.screen.notify(notices.STILL_OPENING, timeout=2)
            return
        self.screen.status.update_state(vectors=VECTORS_SWITCHING)
        self.screen.in_thread(
            lambda: self.screen.post_message(VectorsToggled(ws.toggle_vectors())),
            "maintenance",
            "vectors",
        )

    def vectors_toggled(self, status: VectorStatus) -> None:
        """Show the state vectors ended in (a warning when unavailable)."""
        line = vectors_line(status)
        self.screen.status.update_state(vectors=line)
        bad = not status.ok
        self.screen.notify(line, title="Vectors", severity="warning" if bad else "information")
        self.screen.search_pane.refresh_results()

    def poll_vectors(self) -> None:
        """Keep the header's vector state current while a model starts or embeds (cheap)."""
        ws = self.screen.ws
        if ws is not None and self.screen.status.state.vectors != VECTORS_SWITCHING:
            self.screen.status.update_state(vectors=vectors_line(ws.vector_status()))
