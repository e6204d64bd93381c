"""The Tags view (command palette): every tag with its count; Enter lists the tag's notes,
Enter on a note opens it.

A tag's notes are the ones `tag:x` finds (nested tags below it included). The list is made
in a thread worker (`reme_core.list_tags`); typing filters the tags by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from reme_core import TagCount, Workspace, list_tags
from reme_tui.text import hints
from reme_tui.widgets.backdrop import Backdropped
from reme_tui.widgets.safe_text import drawable


class TagListing(ModalScreen[str | None], Backdropped):
    """A view of the workspace's tags: lists them in a worker and says when it cannot (the
    flat Tags view and the Tags tree share this)."""

    def __init__(self, ws: Workspace) -> None:
        super().__init__()
        self.ws = ws
        self.shown: TagCount | None = None  # the tag whose notes are listed

    @work(thread=True, exclusive=True, group="tags", exit_on_error=False)
    def _load(self) -> None:
        """The tags, listed in a thread. Started once the dialog has drawn: at 50k notes the
        listing holds the GIL for most of a second, and started on mount it halved the event
        loop's share while the dialog drew its first frame."""
        self.post_message(self.Loaded(list_tags(self.ws)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A failed listing says so where the tags would be (never a silent empty view)."""
        if event.worker.group == "tags" and event.state is WorkerState.ERROR:
            self._status(hints.cannot_list_tags(event.worker.error))

    @dataclass
    class Loaded(Message):
        """The workspace's tags with their counts, listed by the worker."""

        tags: list[TagCount]

    def _status(self, text: str) -> None:
        raise NotImplementedError


class TagsScreen(TagListing):
    """Tags with counts, then the notes of the chosen tag; dismisses with a note's path."""

    CSS_PATH = "tags.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back / close", id="tags.back"),
        Binding("down", "to_list", "List", show=False),
    ]

    def __init__(self, ws: Workspace) -> None:
        super().__init__(ws)
        self.tags: list[TagCount] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Tags", classes="title", id="tags-title")
            yield Input(placeholder="filter tags", id="tags-filter")
            yield OptionList(id="tags-list")
            yield Label("Reading tags…", id="tags-status")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self.call_after_refresh(self._load)  # after the dialog's first frame: see `_load`

    @on(TagListing.Loaded)
    def _loaded(self, message: TagListing.Loaded) -> None:
        self.tags = message.tags
        self._show_tags()

    @on(Input.Changed, "#tags-filter")
    def _show_tags(self) -> None:
        """The tags whose name holds the filter text, most used first."""
        self.shown = None
        needle = self.query_one(Input).value.strip().lstrip("#").lower()
        picked = [t for t in self.tags if needle in t.tag.lower()]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(
            Option(Text.assemble(("#" + drawable(t.tag), "bold"), f"  {t.count}"), id=t.tag)
            for t in picked
        )
        self.query_one("#tags-title", Label).update("Tags")
        n = len(self.tags)
        self._status(hints.tags_hint(len(picked), n))

    def _show_notes(self, tag: TagCount) -> None:
        self.shown = tag
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(Option(Text(drawable(path)), id=path) for path in tag.paths)
        self.query_one("#tags-title", Label).update(Text(f"Notes tagged #{drawable(tag.tag)}"))
        self._status(hints.tagged_notes_hint(tag.count, "all tags"))
        options.highlighted = 0 if tag.paths else None
        options.focus()

    def _status(self, text: str) -> None:
        self.query_one("#tags-status", Label).update(text)

    @on(Input.Submitted, "#tags-filter")
    def _first(self) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            options.highlighted = options.highlighted or 0
            self._choose(options.get_option_at_index(options.highlighted or 0).id)

    @on(OptionList.OptionSelected, "#tags-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(event.option.id)

    def _choose(self, key: str | None) -> None:
        if key is None:
            return
        if self.shown is not None:
            self.dismiss(key)
            return
        tag = next((t for t in self.tags if t.tag == key), None)
        if tag is not None:
            self._show_notes(tag)

    def action_to_list(self) -> None:
        """Down from the filter: into the list, on its first row (so Enter chooses it)."""
        options = self.query_one(OptionList)
        if options.highlighted is None and options.option_count:
            options.highlighted = 0
        options.focus()

    def action_back(self) -> None:
        """From a tag's notes back to every tag; from there, close."""
        if self.shown is not None:
            self._show_tags()
            self.query_one(Input).focus()
        else:
            self.dismiss(None)
