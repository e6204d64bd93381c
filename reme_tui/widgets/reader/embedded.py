"""The rendered view's lines with the properties panel on top and embeds drawn inline.

Runs in the reader's workers. The embedded notes come from an `EmbedSource` that the note's
loader (`reme_tui.services`) attached: each embedded note's links are found and resolved
exactly as the open note's (the link graph's one resolution), and the links of every embedded
line are added after the open note's own, marked with the file they are written in, so the
reader follows them and `e` edits that file.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from rich.cells import cell_len

from reme_core import (
    EmbedNote,
    EmbedRef,
    LinkSpan,
    MarkdownLinkMatch,
    RemeError,
    RenderedLine,
    WebLinkMatch,
    expand_embeds,
    render_markdown,
    render_properties,
)
from reme_tui.widgets.reader.note_links import LinkState, link_label


class EmbedSource(Protocol):
    """Where embedded notes are read from (a workspace, through the services)."""

    def note(self, path: str) -> tuple[list[str], list[LinkState], dict[str, str]]:
        """A note's lines, links and embed titles, found as the open note's (RemeError when
        it cannot be read)."""
        ...

    def size(self, path: str) -> int | None:
        """An attachment's size in bytes (None when unknown)."""
        ...


def _spans(links: list[LinkState], titles: dict[str, str]) -> list[LinkSpan]:
    return [
        LinkSpan(link.match.line, link.match.start, link.match.end, link_label(link, titles))
        for link in links
    ]


def _embeds(source: EmbedSource | None, links: list[LinkState]) -> dict[int, EmbedRef]:
    """The embeds among a note's links, by link number, with the file each resolved to."""
    refs: dict[int, EmbedRef] = {}
    for n, link in enumerate(links):
        m = link.match
        if isinstance(m, WebLinkMatch) or not m.embed:
            continue
        anchor = "" if isinstance(m, MarkdownLinkMatch) else m.anchor
        if link.kind in ("note", "self"):
            refs[n] = EmbedRef(link.target, anchor, m.target)
        elif link.kind == "attachment":
            size = source.size(link.target) if source is not None else None
            refs[n] = EmbedRef(link.target, "", m.target, True, size)
        else:
            refs[n] = EmbedRef(None, anchor, m.target)
    return refs


def rendered_view(
    path: str,
    lines: list[str],
    links: list[LinkState],
    titles: dict[str, str],
    source: EmbedSource | None,
) -> tuple[list[RenderedLine], list[LinkState]]:
    """The rendered lines of a note (properties, body, embeds) and the links they number:
    the note's own first, then those inside its embeds (`LinkState.source` their file).
    Without a `source` embeds say their note cannot be read."""
    spans = _spans(links, titles)
    by_path: dict[str, list[LinkState]] = {path: links}

    def load(target: str) -> EmbedNote | None:
        if source is None:
            return None
        try:
            text_lines, found, found_titles = source.note(target)
        except RemeError:
            return None
        by_path[target] = found
        return EmbedNote(target, text_lines, _spans(found, found_titles), _embeds(source, found))

    root = EmbedNote(path, lines, spans, _embeds(source, links))
    body = render_markdown(lines, spans, cell_len)
    expanded = expand_embeds(root, load, cell_len, rendered=body)
    all_links = list(links)
    for owner, n in expanded.links[len(links) :]:
        all_links.append(replace(by_path[owner][n], source=owner))
    return render_properties(lines, spans, cell_len) + expanded.lines, all_links
