"""Background upkeep of the browser: the live watcher, $EDITOR, optimize, rebuild, vectors.

A mixin of `RemeApp`; every long task is a named worker so the app's one
`on_worker_state_changed` turns failures into notifications.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
from collections.abc import Callable
from typing import Any

from textual import work
from textual.app import SuspendNotSupported

from reme_tui.app.base import BrowserBase
from reme_tui.messages import Optimized, Rebuilt, VectorsToggled


class Upkeep(BrowserBase):
    """Watcher and maintenance actions, run as workers."""

    def start_watcher(self) -> None:
        """The live watcher (imported here: watchfiles costs start-up time)."""
        from reme_core.indexing.watcher import watch_workspace

        self.watch_worker(watch_workspace)

    @work(exclusive=True, group="watcher", name="watcher", exit_on_error=False)
    async def watch_worker(self, watch_workspace: Callable[..., Any]) -> None:
        """Run reme_core's live watcher; its batches reach the UI through the listener."""
        self._watch_stop = asyncio.Event()
        self.status.update_state(watcher=True)
        try:
            async for _report in watch_workspace(self.ws, stop_event=self._watch_stop):
                pass  # applied: the workspace listener posts IndexChanged
        finally:
            self.status.update_state(watcher=False)

    def action_edit(self) -> None:
        """Open $VISUAL/$EDITOR at the current line; re-read the note afterwards."""
        path = self.reader.path
        if self.ws is None or not path or not (self.ws.root / path).exists():
            self.notify("Open a note first.", timeout=2)
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        command = [
            *shlex.split(editor),
            f"+{self.reader.view.current_line}",
            str(self.ws.root / path),
        ]
        try:
            with self.suspend():
                subprocess.run(command, check=False)
        except SuspendNotSupported:
            self.notify(
                f"This session has no terminal to lend {editor!r} (headless or web). Edit "
                f"{path} from another shell: the watcher shows the change here.",
                title="Edit",
                severity="warning",
                timeout=8,
            )
            return
        except OSError as exc:
            self.notify(f"Cannot run {editor!r}: {exc}", severity="error")
            return
        self.action_sync()
        self.read_worker(path, list(self.reader.view.ranges), "", None)

    @work(thread=True, exclusive=True, group="sync", name="sync", exit_on_error=False)
    def action_sync(self) -> None:
        """Apply changes on disk now (the listener refreshes the panes)."""
        if self.ws is not None:
            self.ws.sync()

    def action_optimize(self) -> None:
        """Compact the index and report before → after."""
        if self.ws is None:
            return
        self.status.update_state(activity="optimizing…")
        self.optimize_worker()

    @work(thread=True, exclusive=True, group="maintenance", name="optimize", exit_on_error=False)
    def optimize_worker(self) -> None:
        """Optimize off the UI thread."""
        assert self.ws is not None
        self.post_message(Optimized(self.ws.optimize().lines()))

    def on_optimized(self, message: Optimized) -> None:
        lines = self.last_optimize = message.lines
        self._progress_done()
        self.notify("\n".join(lines), title="Optimize index: before → after", timeout=12)
        self.refresh_stats()

    @work(thread=True, exclusive=True, group="maintenance", name="rebuild", exit_on_error=False)
    def action_rebuild(self) -> None:
        """Drop derived state and re-read every file, with progress."""
        if self.ws is None:
            return
        self.post_message(Rebuilt(self.ws.reindex(self._progress("rebuilding"))))

    def on_rebuilt(self, message: Rebuilt) -> None:
        summary = message.summary
        self._progress_done()
        self.notify(
            f"{summary.files} files, {summary.chunks} chunks, {summary.links} links "
            f"({summary.dangling_links} dangling), {len(summary.skipped)} skipped "
            f"in {summary.seconds:.1f} s",
            title="Rebuild index",
            timeout=10,
        )
        self.refresh_stats()
        self.search_pane.refresh_results()
        if self.reader.path:
            self.open_path(self.reader.path, list(self.reader.view.ranges), record=False)

    def action_toggle_vectors(self) -> None:
        """Turn vector recall on or off; switching on may load a model, so in a worker."""
        if self.ws is None:
            self.notify("The workspace is still opening.", timeout=2)
            return
        self.status.update_state(vectors="vectors: switching…")
        self.vectors_worker()

    @work(thread=True, exclusive=True, group="maintenance", name="vectors", exit_on_error=False)
    def vectors_worker(self) -> None:
        """Flip vectors through the workspace and report the state it ends in."""
        assert self.ws is not None
        self.post_message(VectorsToggled(self.ws.toggle_vectors()))

    def on_vectors_toggled(self, message: VectorsToggled) -> None:
        status = message.status
        self.status.update_state(vectors=status)
        bad = "unavailable" in status
        self.notify(status, title="Vectors", severity="warning" if bad else "information")
        self.search_pane.refresh_results()

    def _poll_vectors(self) -> None:
        """Keep the header's vector state current while a model starts or embeds (cheap)."""
        if self.ws is not None and "switching" not in self.status.state.vectors:
            self.status.update_state(vectors=self.ws.vector_status())
