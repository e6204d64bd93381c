"""The header line: which workspace, how big its index is, and what runs in the background."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rich.text import Text
from textual.widgets import Static

from reme_core import IndexCounts
from reme_tui.widgets.safe_text import drawable


@dataclass(frozen=True, slots=True)
class IndexState:
    """Everything the header shows; the app replaces it as things change."""

    workspace: str = ""
    mode: str = ""  # the mode and why, in a few words (`text.mode.mode_badge`)
    files: int | None = None
    chunks: int | None = None
    tombstones: int | None = None
    watcher: bool = False
    vectors: str = "vectors off"
    activity: str = "opening…"


class StatusBar(Static):
    """One line at the top of the screen; `update_state(**changes)` redraws it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = IndexState()

    def on_mount(self) -> None:
        self._redraw()

    def update_state(self, **changes: Any) -> None:
        """Change some fields of the state and redraw (only when something changed: polled)."""
        state = replace(self.state, **changes)
        if state != self.state:
            self.state = state
            self._redraw()

    def update_counts(self, counts: IndexCounts) -> None:
        """Take the counts from `Workspace.counts()`."""
        self.update_state(files=counts.files, chunks=counts.chunks, tombstones=counts.tombstones)

    def _redraw(self) -> None:
        s = self.state
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(" reme ", style="bold reverse")
        text.append(f" {drawable(s.workspace) or '…'}", style="bold")
        if s.files is not None:  # the counts first: a narrow terminal cuts the header's end
            counts = (_counted(s.files, "file"), _counted(s.chunks, "chunk"))
            text.append(f"  │  {' · '.join(counts)} · {_counted(s.tombstones, 'tombstone')}")
        if s.mode:
            text.append(f"  │  {s.mode}", style="dim")
        text.append("  │  watcher ")
        text.append("on" if s.watcher else "off", style="bold green" if s.watcher else "dim")
        text.append("  │  ")
        text.append(s.vectors, style=_vector_style(s.vectors))
        if s.activity:
            text.append(f"  │  {drawable(s.activity)}", style="italic")
        self.update(text)


def _vector_style(status: str) -> str:
    """Green when on, yellow while starting or embedding, red when unavailable, dim when off."""
    if "unavailable" in status:
        return "bold red"
    if status.startswith("vectors on"):
        return "bold green"
    return "dim" if status == "vectors off" else "yellow"


def _counted(n: int | None, noun: str) -> str:
    """`1 tombstone`, `0 tombstones`, `2 files`."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
