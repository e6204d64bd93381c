"""The quick switcher: a palette that opens a note by fuzzy path, name or description."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from reme_core import Workspace
from reme_tui.messages import OpenNote

DISCOVER_LIMIT = 200


@dataclass(frozen=True, slots=True)
class NoteEntry:
    """What the switcher matches against for one note."""

    path: str
    name: str
    description: str

    @property
    def label(self) -> str:
        return f"{self.name}  ·  {self.path}" if self.name else self.path


class NoteSwitcher(Provider):
    """Fuzzy-match notes; the best of the label and description scores wins."""

    async def startup(self) -> None:
        """Collect the notes once per opening, off the event loop."""
        ws = getattr(self.app, "ws", None)
        self.entries: list[NoteEntry] = []
        if ws is not None:
            self.entries = await asyncio.to_thread(_entries, ws)

    def _open(self, path: str) -> None:
        self.app.post_message(OpenNote(path))

    async def discover(self) -> Hits:
        for entry in self.entries[:DISCOVER_LIMIT]:
            yield DiscoveryHit(entry.label, partial(self._open, entry.path), help=entry.description)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for entry in self.entries:
            score = max(matcher.match(entry.label), matcher.match(entry.description) * 0.8)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(entry.label),
                    partial(self._open, entry.path),
                    text=entry.label,
                    help=entry.description or None,
                )


def _entries(ws: Workspace) -> list[NoteEntry]:
    entries = []
    for path in ws.files():
        node = ws.node(path)
        entries.append(NoteEntry(path, node.name if node else "", node.description if node else ""))
    return entries
