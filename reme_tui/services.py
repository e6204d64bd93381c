"""The browser's workspace calls, each run in a worker of a screen or a controller: a search
with its result blocks, a note read for the reader, a note's links and mentions, the switcher's
ranker, and making a note. Widgets only draw what these return (the types are the widgets'
own); the result messages the workers post are here too, beside what they carry.

The files tree is every indexed note with its modified time, built into its model in the
worker (sorted and case-folded there too), so the UI thread only draws it.

Obsidian puts a note made from a name-only link in the vault's folder for new notes
(`.obsidian/app.json`: `newFileLocation` "folder" with `newFileFolderPath`, "current" for
the linking note's folder, else the vault root); a link that names a path gets that path.
"""

from __future__ import annotations

import json
import posixpath
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.message import Message

from reme_core import (
    MarkdownLinkMatch,
    NotIndexed,
    ParsedQuery,
    RemeError,
    SearchOptions,
    SearchRequest,
    Workspace,
    aliases_of,
    names_of,
    outline,
    template_body,
)
from reme_tui.text import hints
from reme_tui.text.reports import search_note
from reme_tui.widgets.files.model import FilesModel
from reme_tui.widgets.graph.model import LocalGraph, build_graph
from reme_tui.widgets.neighbours import (
    Mention,
    NeighbourData,
    link_entries,
    traverse_entries,
)
from reme_tui.widgets.note_ranking import NoteEntry, NoteRanker
from reme_tui.widgets.reader.note_data import NoteData, render_note
from reme_tui.widgets.reader.note_links import LinkState, note_links
from reme_tui.widgets.reader.note_view import prepare_lines
from reme_tui.widgets.search.hit_block import HitBlock
from reme_tui.widgets.search.pane import MAX_HITS, Found

MENTION_LIMIT = 20


# -- search ---------------------------------------------------------------------------------------
def run_query(ws: Workspace, parsed: ParsedQuery) -> Found:
    """Search and build the result blocks (called in a thread worker; RemeError propagates)."""
    started = time.perf_counter()
    # One block per note: its best chunk leads, "+N more" counts the rest.
    result = ws.search(parsed.request(SearchOptions(MAX_HITS, expand_links=False, group=True)))
    prompts = [HitBlock.of(h, [*parsed.highlight_terms, *h.matched_terms]) for h in result.results]
    note = search_note(result.query, result.outcome, result.matched)
    return Found(result.results, prompts, note, time.perf_counter() - started)


@dataclass
class SearchAnswered(Message):
    """A search worker's result blocks, for the query line they answer."""

    line: str
    found: Found


# -- a note for the reader ------------------------------------------------------------------------
def load_note(ws: Workspace, path: str, render: bool = False) -> NoteData:
    """Everything the reader needs about a note (raises FileRefused when it cannot be read).

    `render`: also render its Markdown (the rendered view is showing).
    """
    text = read_whole(ws, path)
    lines = prepare_lines(text)
    links = note_links(path, "\n".join(lines), link_targets(ws, path))
    titles = embed_titles(ws, links)
    note = NoteData(path, text, ws.node(path), lines, links, titles, outline(lines))
    note.embeds = WorkspaceEmbeds(ws)
    if render:
        note.rendered, note.rendered_links = render_note(note)
    return note


class WorkspaceEmbeds:
    """The notes a note embeds, read and their links resolved as `load_note` does (the
    reader's render worker calls it)."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def note(self, path: str) -> tuple[list[str], list[LinkState], dict[str, str]]:
        lines = prepare_lines(read_whole(self.ws, path))
        links = note_links(path, "\n".join(lines), link_targets(self.ws, path))
        return lines, links, embed_titles(self.ws, links)

    def size(self, path: str) -> int | None:
        try:
            return (self.ws.root / path).stat().st_size
        except (OSError, ValueError):
            return None


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


def local_graph(ws: Workspace, centre: str, depth: int, filter: str, limit: int) -> LocalGraph:
    """The graph view's model around `centre` (RemeError when it is not an indexed note)."""

    def tags_of(path: str) -> list[str]:
        node = ws.node(path)
        return node.tags if node is not None else []

    return build_graph(ws.traverse(centre, depth, "both"), tags_of, filter, limit)


@dataclass
class NoteRead(Message):
    """A note was read (and rendered when asked): show it with its ranges or anchor."""

    note: NoteData
    ranges: list[tuple[int, int]]
    top: int | None
    anchor: str


# -- a note's links and mentions ------------------------------------------------------------------
def note_names(ws: Workspace, path: str) -> list[str]:
    """The names a note goes by (`names_of`: file name, name, title, aliases)."""
    node = ws.node(path)
    return names_of(path, node.frontmatter if node is not None else {})


def unlinked_mentions(ws: Workspace, path: str, linked: set[str]) -> list[Mention]:
    """Chunks containing one of the note's names, in files that do not already link to it."""
    found: dict[tuple[str, int], Mention] = {}
    for name in note_names(ws, path):
        options = SearchOptions(MENTION_LIMIT, expand_links=False)
        result = ws.search(SearchRequest(name, phrases=(name,), options=options))
        for hit in result.results:
            if hit.path == path or hit.path in linked or name.lower() not in hit.text.lower():
                continue  # (a phrase also finds a note by its aliases: a mention is in text)
            found.setdefault(
                (hit.path, hit.start_line), Mention(hit.path, hit.start_line, hit.end_line, name)
            )
    return list(found.values())[:MENTION_LIMIT]


def gather(ws: Workspace, path: str, *, traverse: bool = False) -> NeighbourData:
    """Links and mentions of one note (and with `traverse`, its depth-2 traverse), with the
    pane's entries for them."""
    data = NeighbourData(path)
    try:
        links = ws.links(path)
    except NotIndexed:
        data.error = hints.NOT_INDEXED_LINKS
        return data
    data.outlinks, data.inlinks = links.outlinks, links.inlinks
    data.mentions = unlinked_mentions(ws, path, {n.path for n in data.inlinks})
    data.link_entries = link_entries(data)
    if traverse:
        data.traverse = ws.traverse(path, 2, "both").nodes
        data.traverse_entries = traverse_entries(data.traverse)
    return data


@dataclass
class NeighboursGathered(Message):
    """A note's links, mentions and traverse, for the links pane."""

    data: NeighbourData


# -- the switcher's ranker ------------------------------------------------------------------------
_rankers: weakref.WeakKeyDictionary[Workspace, tuple[dict[str, dict], NoteRanker]] = (
    weakref.WeakKeyDictionary()
)
_rankers_lock = threading.Lock()


def ranker_for(ws: Workspace) -> NoteRanker:
    """The ranker over the workspace's notes; the one built before while no note's path or
    frontmatter changed (comparing them costs ~10 ms at 50k notes, building ~0.4 s)."""
    notes = ws.frontmatters()
    with _rankers_lock:
        cached = _rankers.get(ws)
    if cached is not None and cached[0] == notes:
        return cached[1]
    ranker = NoteRanker([_entry(path, fm) for path, fm in notes.items()])
    with _rankers_lock:
        _rankers[ws] = (notes, ranker)
    return ranker


def _entry(path: str, frontmatter: dict[str, Any]) -> NoteEntry:
    """A note's entry: its `name`, `description` and `title` as `FileNode` reads them."""
    name, description, title = (frontmatter.get(k) for k in ("name", "description", "title"))
    return NoteEntry(
        path,
        str(name) if name is not None else "",
        str(description) if description is not None else "",
        tuple(aliases_of(frontmatter)),
        title if isinstance(title, str) else "",
    )


# -- making a note --------------------------------------------------------------------------------
def new_notes_folder(root: Path, source: str) -> str:
    """The vault's folder for new notes ("" = the root), from `.obsidian/app.json`."""
    try:
        settings = json.loads((root / ".obsidian" / "app.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    if not isinstance(settings, dict):
        return ""
    location = settings.get("newFileLocation")
    if location == "current":
        return posixpath.dirname(source)
    folder = settings.get("newFileFolderPath")
    if location == "folder" and isinstance(folder, str):
        return folder.strip().strip("/")
    return ""


def new_note_path(root: Path, link: LinkState, source: str) -> str:
    """Where following this dangling link creates its note (workspace-relative, `.md`)."""
    if isinstance(link.match, MarkdownLinkMatch):
        return link.target  # already resolved against the linking note's folder
    target = link.match.target.strip().strip("/")
    if not target.lower().endswith(".md"):
        target += ".md"
    if "/" in target:
        return posixpath.normpath(target)
    return posixpath.join(new_notes_folder(root, source), target)


def create_note(
    ws: Workspace,
    path: str,
    name: str = "",
    description: str = "",
    *,
    heading: bool = False,
    template: str = "",
) -> str:
    """Make a note, the one way the browser does (the New-note dialog, a dangling link's note),
    and say where, workspace-relative. Its frontmatter is `Workspace.create`'s rule (memory
    mode: ReMe's name, the file's stem by default, and description; a vault: only what was
    typed). The body: the vault `template` filled for the note's title, else with `heading`
    that title as a heading. RemeError says why it cannot be made."""
    title = name or posixpath.splitext(posixpath.basename(path))[0]
    if template:
        body = template_body(ws.root, template, title)
    else:
        body = f"# {title}\n" if heading else ""
    created = ws.create(path, name or None, description or None, body=body)
    return created.relative_to(ws.root).as_posix()


# -- the files tree -------------------------------------------------------------------------------
def read_tree(ws: Workspace) -> FilesModel:
    """Every indexed note (excludes and the mode applied) with its modified time, as a tree."""
    model = FilesModel(ws.note_times().items())
    model.prepare()
    return model


@dataclass
class FilesListed(Message):
    """The files tree, read from the index and built off the UI thread."""

    model: FilesModel


@dataclass
class FilesTimed(Message):
    """The modified times of notes a batch added or changed, for the files tree."""

    times: dict[str, float]
