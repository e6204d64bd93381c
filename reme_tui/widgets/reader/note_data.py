"""A note as the reader shows it: text, links and their targets, outline and (for the rendered
view) its rendered lines. Read by `reme_tui.services.load_note` off the UI thread."""

from __future__ import annotations

from dataclasses import dataclass

from reme_core import FileNode, Heading, RenderedLine
from reme_tui.widgets.reader.embedded import EmbedSource, rendered_view
from reme_tui.widgets.reader.note_links import LinkState


@dataclass(slots=True)
class NoteData:
    """A note read off the UI thread: its lines, node, links, outline and, when asked, the
    rendered lines (and the links they number, embedded notes' too); `embeds` reads the
    notes it embeds."""

    path: str
    text: str
    node: FileNode | None
    lines: list[str]
    links: list[LinkState]
    titles: dict[str, str]
    headings: list[Heading]
    rendered: list[RenderedLine] | None = None
    rendered_links: list[LinkState] | None = None
    embeds: EmbedSource | None = None


def render_note(note: NoteData) -> tuple[list[RenderedLine], list[LinkState]]:
    """The note's Markdown as the reader's rendered lines (links labelled as Obsidian shows
    them, the properties panel on top, embeds drawn inline) and the links they number."""
    return rendered_view(note.path, note.lines, note.links, note.titles, note.embeds)
