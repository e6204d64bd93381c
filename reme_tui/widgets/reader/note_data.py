"""A note as the reader shows it: text, links and their targets, outline and (for the rendered
view) its rendered lines. Read by `reme_tui.services.load_note` off the UI thread."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len

from reme_core import FileNode, Heading, LinkSpan, RenderedLine, render_markdown
from reme_tui.widgets.reader.note_links import LinkState, link_label


@dataclass(slots=True)
class NoteData:
    """A note read off the UI thread: its lines, node, links, outline and, when asked, the
    rendered lines."""

    path: str
    text: str
    node: FileNode | None
    lines: list[str]
    links: list[LinkState]
    titles: dict[str, str]
    headings: list[Heading]
    rendered: list[RenderedLine] | None = None


def render_note(note: NoteData) -> list[RenderedLine]:
    """The note's Markdown as the reader's rendered lines (links labelled as Obsidian shows
    them)."""
    spans = [
        LinkSpan(link.match.line, link.match.start, link.match.end, link_label(link, note.titles))
        for link in note.links
    ]
    return render_markdown(note.lines, spans, cell_len)
