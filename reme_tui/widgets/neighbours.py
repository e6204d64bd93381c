"""The neighbours pane: outlinks, inlinks and unlinked mentions of the open note, or a
depth-2 traverse of its link graph. Everything, the pane's entries too, is computed in a
thread worker (`reme_tui.services.gather`); the pane only hands the entries to its OptionList."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from reme_core import Neighbour, TraverseNode
from reme_tui.messages import OpenNote
from reme_tui.text import hints
from reme_tui.widgets.neighbour_entry import Entry, EntryVisual, Target, header, neighbour


@dataclass(slots=True)
class Mention:
    """A chunk that names the note without linking to it."""

    path: str
    start_line: int
    end_line: int
    name: str


@dataclass(slots=True)
class NeighbourData:
    """What the pane shows for one note, and its entries (built in the worker too).

    `traverse` is None until asked for: a depth-2 traverse of a hub note reaches most of a
    vault (4,400 notes of obsidian-secops, most of a second), so it is gathered only while
    the pane shows traverses.
    """

    path: str
    outlinks: list[Neighbour] = field(default_factory=list)
    inlinks: list[Neighbour] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    traverse: list[TraverseNode] | None = None
    error: str = ""
    link_entries: list[Entry] = field(default_factory=list)
    traverse_entries: list[Entry] = field(default_factory=list)


def link_entries(data: NeighbourData) -> list[Entry]:
    """Outlinks, inlinks and unlinked mentions, each group under its header."""
    entries = [header(f"Outlinks ({len(data.outlinks):,})")]
    for n in data.outlinks:
        note = "dangling" if n.dangling else "" if n.indexed else "attachment"
        entries.append(neighbour("→", n.path, n.name, n.description, note))
    entries.append(header(f"Inlinks ({len(data.inlinks):,})"))
    entries.extend(neighbour("←", n.path, n.name, n.description) for n in data.inlinks)
    entries.append(header(f"Unlinked mentions ({len(data.mentions)})"))
    for m in data.mentions:
        place = f"{m.path}:{m.start_line}-{m.end_line}"
        target = (m.path, m.start_line, m.end_line)
        entries.append(neighbour("~", place, "", f'"{m.name}"', target=target))
    return entries


def traverse_entries(nodes: list[TraverseNode]) -> list[Entry]:
    """The traverse by depth: this note, then depth 1 and 2, each under its header."""
    entries: list[Entry] = []
    for depth in (0, 1, 2):
        at = [n for n in nodes if n.depth == depth]
        if not at:
            continue
        entries.append(header("This note" if depth == 0 else f"Depth {depth} ({len(at):,})"))
        for n in at:
            note = "" if n.indexed else "not indexed"
            entries.append(neighbour("·" * max(1, depth), n.path, n.name, n.description, note))
    return entries


class NeighboursPane(Vertical):
    """Outlinks / inlinks / unlinked mentions, or a traverse; Enter opens the selection."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data: NeighbourData | None = None
        self.traverse_mode = False
        self._targets: list[Target | None] = []

    def compose(self) -> ComposeResult:
        yield Static(hints.LINKS_WAITING, id="neighbours-message")
        yield OptionList(id="neighbours-list")

    def on_mount(self) -> None:
        self.border_title = "Links"

    def clear(self, message: str) -> None:
        """Show only a message (no note, or the note is gone)."""
        self.data = None
        self.query_one("#neighbours-message", Static).update(message)
        self.query_one(OptionList).clear_options()

    def toggle_traverse(self) -> bool:
        """Switch between direct links and the depth-2 traverse; True when the traverse
        of the shown note is still to be gathered."""
        self.traverse_mode = not self.traverse_mode
        if self.data is None:
            return False
        self.show(self.data)
        return self.traverse_mode and self.data.traverse is None and not self.data.error

    def show(self, data: NeighbourData) -> None:
        """Display the entries of a note (called with the worker's result): laying out an
        entry costs nothing (its height is its row count), so this is cheap at any size."""
        self.data = data
        message = self.query_one("#neighbours-message", Static)
        self.border_title = "Traverse (depth 2)" if self.traverse_mode else "Links"
        entries: list[Entry] = []
        if data.error:
            message.update(data.error)
        elif not self.traverse_mode:
            entries = data.link_entries
            counts = (len(data.outlinks), len(data.inlinks), len(data.mentions))
            message.update(hints.link_counts(*counts))
        elif data.traverse is None:
            message.update(hints.GATHERING)
        else:
            entries = data.traverse_entries
            message.update(hints.within_two_links(len(data.traverse)))
        self._targets = [e.target for e in entries]
        options = [
            Option(EntryVisual(e), id=f"n{i}", disabled=e.target is None)
            for i, e in enumerate(entries)
        ]
        option_list = self.query_one(OptionList)
        highlighted = option_list.highlighted
        option_list.set_options(options)
        if options:
            index = highlighted if highlighted is not None and highlighted < len(options) else 0
            while index < len(options) - 1 and options[index].disabled:
                index += 1
            option_list.highlighted = index

    def highlighted_target(self) -> Target | None:
        """Where the highlighted entry leads (what `y` copies here); None on a header."""
        index = self.query_one(OptionList).highlighted
        return self._targets[index] if index is not None and index < len(self._targets) else None

    @on(OptionList.OptionSelected, "#neighbours-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        target = self._targets[event.option_index]
        if target is not None:
            self.post_message(OpenNote(*target))
