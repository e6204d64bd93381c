"""Messages between the panes, and from the app's workers: widgets and workers say what
happened, the app decides what to do on the UI thread. The results of the workspace calls
(`SearchAnswered`, `NoteRead`, `NeighboursGathered`) live beside them in `reme_tui.services`:
this module imports no widget."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from reme_core import (
    BatchReport,
    FilterSamples,
    IndexCounts,
    ParsedQuery,
    ReindexSummary,
    UndoReport,
    VectorStatus,
    Workspace,
)


@dataclass
class OpenNote(Message):
    """Show `path` in the reader, optionally scrolled to and highlighting a line range."""

    path: str
    start_line: int | None = None
    end_line: int | None = None
    anchor: str = ""
    record: bool = True


@dataclass
class FollowLink(Message):
    """The reader's selected link (a note's, or a web address) was activated."""

    target: str
    anchor: str = ""
    source: str = ""
    web: bool = False  # an http(s) address, for the system browser


@dataclass
class IndexChanged(Message):
    """A batch of file changes reached the index (posted by the workspace listener, from
    the writer's thread: the watcher, the file operations and other workers all apply
    through it)."""

    report: BatchReport
    paths: set[str] = field(default_factory=set)


@dataclass
class SearchRequested(Message):
    """The query box settled on a query worth running."""

    line: str
    parsed: ParsedQuery


# -- results of the app's workers: posted from their threads, handled on the UI thread ----------
@dataclass
class WorkspaceOpened(Message):
    """The index is loaded (or built): the browser can answer from it."""

    ws: Workspace
    counts: IndexCounts
    samples: FilterSamples  # real filter values for the search box's examples


@dataclass
class IndexProgress(Message):
    """A build or rebuild read `done` of `total` notes (only the newest one is drawn)."""

    verb: str
    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgress) and message.verb == self.verb


@dataclass
class CaughtUp(Message):
    """The start-up diff ended; posted behind its progress messages, so the bar it showed is
    hidden only after the last of them was drawn."""

    changed: int


@dataclass
class Counted(Message):
    """The header's counts, taken after a change."""

    counts: IndexCounts

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Counted)


@dataclass
class NoteUnreadable(Message):
    """A note could not be read: `gone` when it no longer exists."""

    path: str
    reason: str
    gone: bool


@dataclass
class Optimized(Message):
    """Optimize finished: its before → after lines."""

    lines: list[str]


@dataclass
class Rebuilt(Message):
    """A rebuild from the palette finished."""

    summary: ReindexSummary


@dataclass
class VectorsToggled(Message):
    """Vector recall was switched: the state it ends in."""

    status: VectorStatus


@dataclass
class Undone(Message):
    """The last delete or move was reverted."""

    report: UndoReport


@dataclass
class NoteCreated(Message):
    """A note was made from the browser (workspace-relative path): open it."""

    path: str
