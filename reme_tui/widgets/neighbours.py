"""The neighbours pane: outlinks, inlinks and unlinked mentions of the open note, or a
depth-2 traverse of its link graph. Everything is computed in a thread worker."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from reme_core import Neighbour, NotIndexed, TraverseNode, Workspace, aliases_of
from reme_tui.messages import OpenNote
from reme_tui.widgets.safe_text import drawable

MENTION_LIMIT = 20


@dataclass(slots=True)
class Mention:
    """A chunk that names the note without linking to it."""

    path: str
    start_line: int
    end_line: int
    name: str


@dataclass(slots=True)
class NeighbourData:
    """What the pane shows for one note."""

    path: str
    outlinks: list[Neighbour] = field(default_factory=list)
    inlinks: list[Neighbour] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    traverse: list[TraverseNode] = field(default_factory=list)
    error: str = ""


def note_names(ws: Workspace, path: str) -> list[str]:
    """The names a note goes by: frontmatter name and aliases, else its file stem."""
    node = ws.node(path)
    names: list[str] = []
    if node is not None:
        names = [n for n in [node.name, *aliases_of(node.frontmatter)] if n.strip()]
    if not names:
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].replace("-", " ")
        names = [stem] if stem.strip() else []
    return names


def unlinked_mentions(ws: Workspace, path: str, linked: set[str]) -> list[Mention]:
    """Chunks containing one of the note's names, in files that do not already link to it."""
    found: dict[tuple[str, int], Mention] = {}
    for name in note_names(ws, path):
        result = ws.search(name, limit=MENTION_LIMIT, phrases=(name,), expand_links=False)
        for hit in result.results:
            if hit.path == path or hit.path in linked:
                continue
            found.setdefault(
                (hit.path, hit.start_line), Mention(hit.path, hit.start_line, hit.end_line, name)
            )
    return list(found.values())[:MENTION_LIMIT]


def gather(ws: Workspace, path: str) -> NeighbourData:
    """Links, mentions and the depth-2 traverse of one note."""
    data = NeighbourData(path)
    try:
        links = ws.links(path)
    except NotIndexed:
        data.error = "Not an indexed note: no links to show."
        return data
    data.outlinks, data.inlinks = links.outlinks, links.inlinks
    data.mentions = unlinked_mentions(ws, path, {n.path for n in data.inlinks})
    data.traverse = ws.traverse(path, 2, "both").nodes
    return data


def _entry(arrow: str, path: str, name: str, description: str, note: str = "") -> Group:
    """A neighbour: name (or path) with a marker, the path, then the description."""
    path, name, description = drawable(path), drawable(str(name)), drawable(str(description))
    title = Text(f"{arrow} ", style="bold")
    title.append(name or path, style="bold")
    if note:
        title.append(f"  {note}", style="italic red")
    parts: list[Text] = [title]
    if name:
        parts.append(Text(f"  {path}", style="dim", no_wrap=True, overflow="ellipsis"))
    if description:
        parts.append(Text(f"  {description}", style="italic"))
    return Group(*parts)


class NeighboursPane(Vertical):
    """Outlinks / inlinks / unlinked mentions, or a traverse; Enter opens the selection."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data: NeighbourData | None = None
        self.traverse_mode = False
        self._targets: list[tuple[str, int | None, int | None]] = []

    def compose(self) -> ComposeResult:
        yield Static("Open a note to see its links.", id="neighbours-message")
        yield OptionList(id="neighbours-list")

    def on_mount(self) -> None:
        self.border_title = "Links"

    def clear(self, message: str) -> None:
        """Show only a message (no note, or the note is gone)."""
        self.data = None
        self.query_one("#neighbours-message", Static).update(message)
        self.query_one(OptionList).clear_options()

    def toggle_traverse(self) -> None:
        """Switch between direct links and the depth-2 traverse."""
        self.traverse_mode = not self.traverse_mode
        if self.data is not None:
            self.show(self.data)

    def show(self, data: NeighbourData) -> None:
        """Display the links of a note (called with the worker's result)."""
        self.data = data
        self.border_title = "Traverse (depth 2)" if self.traverse_mode else "Links"
        options: list[Option] = []
        self._targets = []
        if data.error:
            self.query_one("#neighbours-message", Static).update(data.error)
        elif self.traverse_mode:
            self._traverse_options(data, options)
        else:
            self._link_options(data, options)
        option_list = self.query_one(OptionList)
        highlighted = option_list.highlighted
        option_list.set_options(options)
        if options:
            index = highlighted if highlighted is not None and highlighted < len(options) else 0
            while index < len(options) - 1 and options[index].disabled:
                index += 1
            option_list.highlighted = index

    def _add(self, options: list[Option], prompt: Text | Group, target: tuple | None) -> None:
        options.append(Option(prompt, id=f"n{len(options)}", disabled=target is None))
        self._targets.append(target or ("", None, None))

    def _header(self, options: list[Option], title: str) -> None:
        self._add(options, Text(title, style="bold underline"), None)

    def _link_options(self, data: NeighbourData, options: list[Option]) -> None:
        message = (
            f"{len(data.outlinks)} out · {len(data.inlinks)} in · {len(data.mentions)} mentions"
        )
        self.query_one("#neighbours-message", Static).update(message)
        self._header(options, f"Outlinks ({len(data.outlinks)})")
        for n in data.outlinks:
            note = "dangling" if n.dangling else "" if n.indexed else "attachment"
            self._add(
                options, _entry("→", n.path, n.name, n.description, note), (n.path, None, None)
            )
        self._header(options, f"Inlinks ({len(data.inlinks)})")
        for n in data.inlinks:
            self._add(options, _entry("←", n.path, n.name, n.description), (n.path, None, None))
        self._header(options, f"Unlinked mentions ({len(data.mentions)})")
        for m in data.mentions:
            prompt = _entry("~", f"{m.path}:{m.start_line}-{m.end_line}", "", f'"{m.name}"')
            self._add(options, prompt, (m.path, m.start_line, m.end_line))

    def _traverse_options(self, data: NeighbourData, options: list[Option]) -> None:
        self.query_one("#neighbours-message", Static).update(
            f"{len(data.traverse)} notes within 2 links"
        )
        for depth in (0, 1, 2):
            nodes = [n for n in data.traverse if n.depth == depth]
            if not nodes:
                continue
            self._header(options, "This note" if depth == 0 else f"Depth {depth} ({len(nodes)})")
            for n in nodes:
                note = "" if n.indexed else "not indexed"
                prompt = _entry("·" * max(1, depth), n.path, n.name, n.description, note)
                self._add(options, prompt, (n.path, None, None))

    @on(OptionList.OptionSelected, "#neighbours-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        path, start, end = self._targets[event.option_index]
        if path:
            self.post_message(OpenNote(path, start, end))
