"""The links of an open note, what following each would do, and how the rendered view labels it.

Worked out off the UI thread (with the note's text) from the targets the link graph
resolved, so `[[Note]]`, `[[folder/Note]]` and `[x](a%20b.md)` lead where the
links pane says they do.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from reme_core import (
    MarkdownLinkMatch,
    WebLinkMatch,
    WikilinkMatch,
    find_markdown_links,
    find_web_links,
    find_wikilinks,
)

_IMAGES = frozenset(["png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "avif"])
# The other files Obsidian opens or embeds (its "accepted file formats"): a link to one of
# these that leads nowhere is a missing file, never a note to create (`x.png.md`). A note's
# own name may hold a dot (`Stone-v2.0`), so only these suffixes count.
_ATTACHMENTS = _IMAGES | {
    *("flac", "m4a", "mp3", "ogg", "wav", "webm", "3gp"),
    *("mkv", "mov", "mp4", "ogv", "pdf", "canvas", "base"),
}


@dataclass(slots=True)
class LinkState:
    """A link in the note (a wikilink, or in a vault a Markdown link to a note) and what
    following it would do."""

    match: WikilinkMatch | MarkdownLinkMatch | WebLinkMatch
    target: str
    kind: str  # "note", "dangling", "attachment", "self" or "web" (target: the address)
    source: str = ""  # the file it is written in, when not the open note (inside an embed)


def names_a_file(link: LinkState) -> bool:
    """Whether the link, as written, names an attachment (an image, a PDF, ...), not a note."""
    return _suffix(link.match.target) in _ATTACHMENTS


def _suffix(target: str) -> str:
    """A link target's file suffix, lower-cased, without its dot ("" for none)."""
    return posixpath.splitext(target)[1].lstrip(".").lower()


def note_links(path: str, body: str, resolve: dict[str, tuple[str, str]]) -> list[LinkState]:
    """Every followable link of a note's text (web addresses too), in reading order."""
    links = []
    for match in find_wikilinks(body):
        target, kind = resolve.get(match.target, (match.target, "note"))
        if not match.target:
            target, kind = path, "self"
        links.append(LinkState(match, target, kind))
    if "](" in body:  # Markdown links to notes: only those the index took as links (vaults)
        for md in find_markdown_links(body):
            if md.target in resolve:
                links.append(LinkState(md, *resolve[md.target]))
    links += [LinkState(web, web.url, "web") for web in find_web_links(body)]
    links.sort(key=lambda link: (link.match.line, link.match.start))
    return links


def link_label(link: LinkState, titles: dict[str, str]) -> str:
    """What the rendered view shows for a link: its alias, else the note's name (and
    heading), as Obsidian does; an embed says what it embeds (a note by its title)."""
    m = link.match
    if isinstance(m, WebLinkMatch):
        return m.text
    if isinstance(m, MarkdownLinkMatch):
        text = m.text or m.target
        return f"[image: {text}]" if m.embed else text
    anchor = m.anchor.lstrip("^") if m.anchor.startswith("^") else m.anchor
    name = posixpath.basename(m.target)
    if name.lower().endswith(".md"):
        name = name[:-3]
    if not m.embed:
        if m.alias:
            return m.alias
        return f"{name} > {anchor}" if name and anchor else name or anchor
    suffix = _suffix(m.target)
    if link.kind == "attachment" or (suffix and suffix != "md"):
        kind = "image" if suffix in _IMAGES else "file"  # `|300` or `|wsmall`: a size, not a name
        return f"↳ {kind}: {posixpath.basename(m.target)}"
    title = titles.get(link.target) or name or link.target
    return f"↳ embedded: {title}{f' > {anchor}' if anchor else ''}"
