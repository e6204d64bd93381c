"""Messages between the panes: widgets say what happened, the app decides what to do."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from reme_core import BatchReport, ParsedQuery


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
    """The reader's selected wikilink was activated."""

    target: str
    anchor: str = ""
    source: str = ""


@dataclass
class IndexChanged(Message):
    """A batch of file changes reached the index (posted from the writer's thread)."""

    report: BatchReport
    paths: set[str] = field(default_factory=set)


@dataclass
class SearchRequested(Message):
    """The query box settled on a query worth running."""

    line: str
    parsed: ParsedQuery


@dataclass
class SearchDone(Message):
    """A search finished: how many hits and how long the worker took, for the status line."""

    query: str
    hits: int
    seconds: float
