"""A note loaded for the reader, off the UI thread: text, links and their targets, outline,
and (for the rendered view) its rendered lines."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from reme_core import (
    FileNode,
    Heading,
    RemeError,
    RenderedLine,
    Workspace,
    outline,
)
from reme_tui.widgets.reader.embedded import rendered_view
from reme_tui.widgets.reader.note_links import LinkState, note_links
from reme_tui.widgets.reader.note_view import prepare_lines


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
    rendered_links: list[LinkState] | None = None  # the links the rendered lines number


def load_note(ws: Workspace, path: str, render: bool = False) -> NoteData:
    """Everything the reader needs about a note (raises FileRefused when it cannot be read).

    `render`: also render its Markdown (the rendered view is showing).
    """
    text = read_whole(ws, path)
    lines = prepare_lines(text)
    links = note_links(path, "\n".join(lines), link_targets(ws, path))
    titles = embed_titles(ws, links)
    note = NoteData(path, text, ws.node(path), lines, links, titles, outline(lines))
    if render:
        note.rendered, note.rendered_links = render_note(note, ws)
    return note


def render_note(note: NoteData, ws: Workspace | None) -> tuple[list[RenderedLine], list[LinkState]]:
    """The note's Markdown as the reader's rendered lines (links labelled as Obsidian shows
    them, the properties panel on top, embeds drawn inline) and the links they number."""

    def read(path: str) -> tuple[list[str], list[LinkState], dict[str, str]]:
        if ws is None:
            raise RemeError("no workspace")
        lines = prepare_lines(read_whole(ws, path))
        links = note_links(path, "\n".join(lines), link_targets(ws, path))
        return lines, links, embed_titles(ws, links)

    return rendered_view(ws, note.path, note.lines, note.links, note.titles, read)


def embed_titles(ws: Workspace, links: list[LinkState]) -> dict[str, str]:
    """The title of each note embedded with `![[…]]`: frontmatter title or name, else its
    file name."""
    titles: dict[str, str] = {}
    for link in links:
        if link.match.embed and link.kind == "note" and link.target not in titles:
            node = ws.node(link.target)
            front = node.frontmatter if node is not None else {}
            title = front.get("title") or front.get("name")
            stem = posixpath.splitext(posixpath.basename(link.target))[0]
            titles[link.target] = str(title) if isinstance(title, str) and title else stem
    return titles


def read_whole(ws: Workspace, path: str) -> str:
    """The full text of a workspace file, paging past `read_max_lines`."""
    result = ws.read(path)
    parts = [result.text]
    while result.truncated and result.next_start_line:
        result = ws.read(path, result.next_start_line)
        parts.append(result.text)
    return "\n".join(parts)


def link_targets(ws: Workspace, path: str) -> dict[str, tuple[str, str]]:
    """Written link target → (resolved path, kind) for the links of an indexed note.

    Targets come resolved from the link graph, as the links pane shows them: in a vault
    `[[Note]]`, `[[folder/Note]]` and `[[lowercase note]]` lead to the file they name.
    """
    try:
        links = ws.outlinks(path)
        kinds = {
            n.path: "dangling" if n.dangling else "note" if n.indexed else "attachment"
            for n in ws.links(path).outlinks
        }
    except RemeError:
        return {}
    return {
        (link.raw_target or link.target_path): (
            link.target_path,
            kinds.get(link.target_path, "note"),
        )
        for link in links
    }
