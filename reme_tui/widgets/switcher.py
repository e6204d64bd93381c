"""The quick switcher: a palette that opens a note by name, path or description.

The ranking (file name, exact name, prefix, substring, typo, letters in order, description;
the open note's top-level folder first within each; recent notes first on an empty query) is
`note_ranking`'s. Here: the Textual side. The ranker is kept per workspace between openings
while no note's path or frontmatter changed, so reopening the switcher at 50k notes costs a
comparison, not a rebuild; ranking runs in a thread, so a keystroke never waits on the event
loop.

Textual's palette cancels a provider's `startup` along with the first search when a key is
typed while it runs (a ranker read while the watcher holds the index), and a provider whose
startup did not finish answers nothing for the life of the dialog. So `startup` awaits
nothing: the ranker is read by a task of its own, which searches await shielded; and read
again, with the query asked again, whenever the index changes while the dialog is open. The
list painted again for the same query keeps its cursor on the note it was on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.command import (
    Command,
    CommandInput,
    CommandList,
    CommandPalette,
    DiscoveryHit,
    Hit,
    Hits,
    Provider,
)
from textual.widgets import Input

from reme_tui.messages import OpenNote
from reme_tui.text import hints
from reme_tui.widgets.backdrop import Backdropped
from reme_tui.widgets.note_ranking import NoteRanker, top_folder
from reme_tui.widgets.safe_text import drawable

DISCOVER_LIMIT = 200
SEARCH_LIMIT = 50


class SwitcherPalette(CommandPalette, Backdropped):
    """The command palette with the note switcher, keeping keys typed before it is ready.

    A terminal delivers a burst such as "o" then "rrf" in one read. The app forwards all four to
    the focused widget below before "o" is handled; the rest then bubble up to the app, whose
    letter bindings ("r" renames) must not act on them: the app hands them here (`take_key`).
    Keys that reach this screen before its input is composed and focused are kept too. Either
    way they are typed into the input as soon as it exists.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", "Close", id="switcher.close"),
        Binding("down", "cursor_down", "Next note", show=False, id="switcher.next"),
        Binding(
            "up", "command_list('cursor_up')", "Previous note", show=False, id="switcher.previous"
        ),
    ]

    def __init__(self, notes: Callable[[], NoteRanker], recent: list[str], near: str) -> None:
        """`notes` reads the ranker over the workspace's notes (run in a thread: it may wait on
        the index); `recent`: the recently opened notes, newest first; `near`: the open
        note's path ("" for none), whose top folder ranks first."""
        super().__init__(providers=[NoteSwitcher], placeholder=hints.SWITCHER_PLACEHOLDER)
        self.notes = notes
        self.recent = recent
        self.near = near
        self._early: list[str] = []
        self.index_epoch = 0  # moved by each index change while open: the ranker is read again
        self._listed_for: str | None = None  # the query the list shows the notes of
        self._wanted: str | None = None  # the cursor's note, not among the hits shown yet

    def index_changed(self) -> None:
        """The index changed while the dialog is open: read the notes again and ask the
        query again (the palette does both for a changed input)."""
        self.index_epoch += 1
        inputs = self.query(CommandInput)
        if inputs:
            field = inputs.first()
            self.post_message(Input.Changed(field, field.value))

    def on_key(self, event: events.Key) -> None:
        """A printable key that reached the screen itself: no input had focus yet."""
        self.take_key(event)

    def take_key(self, event: events.Key) -> None:
        """Type a printable key into the input (kept until the input exists); the app hands
        over the keys of a burst that were already queued for the screen below."""
        if not (event.is_printable and event.character):
            return
        event.stop()
        event.prevent_default()
        inputs = self.query(CommandInput)
        if inputs and inputs.first().is_mounted:
            self._type(inputs.first(), event.character)
        else:
            self._early.append(event.character)

    def on_mount(self) -> None:
        self.call_after_refresh(self._flush_early)

    def _flush_early(self) -> None:
        if self._early:
            text, self._early = "".join(self._early), []
            self._type(self.query_one(CommandInput), text)

    @staticmethod
    def _type(field: CommandInput, text: str) -> None:
        field.focus()
        field.insert_text_at_cursor(text)

    def _refresh_command_list(
        self, command_list: CommandList, commands: list[Command], clear_current: bool
    ) -> None:
        """Textual's refill puts the cursor on the first row. A refill for the query the list
        already shows (an index change asked it again, or more hits arrived) keeps it on the
        note it was on: under a watcher's batches the user's arrow keys would otherwise be
        undone every few seconds."""
        query = self.query_one(CommandInput).value.strip()
        same = query == self._listed_for
        # A note not among the hits of a partial refill is looked for in the next one.
        kept = (self._wanted or _path_at(command_list)) if same else None
        super()._refresh_command_list(command_list, commands, clear_current)
        self._listed_for, self._wanted = query, None
        if kept is None:
            return
        for index in range(command_list.option_count):
            if _path_at(command_list, index) == kept:
                command_list.highlighted = index
                return
        self._wanted = kept


def _path_at(command_list: CommandList, index: int | None = None) -> str | None:
    """The note of a row (the highlighted one by default), None for none or another row."""
    index = command_list.highlighted if index is None else index
    if index is None or not 0 <= index < command_list.option_count:
        return None
    option = command_list.get_option_at_index(index)
    opener = option.hit.command if isinstance(option, Command) else None
    return opener.path if isinstance(opener, NoteOpener) else None


class NoteOpener:
    """A switcher row's command: open its note (the path finds the row again)."""

    def __init__(self, provider: NoteSwitcher, path: str) -> None:
        self.provider = provider
        self.path = path

    def __call__(self) -> None:
        self.provider.screen.post_message(OpenNote(self.path))  # the screen it was opened on


class NoteSwitcher(Provider):
    """Notes ranked by `NoteRanker`, the recently opened ones first on an empty query."""

    async def startup(self) -> None:
        """What the searches need, without awaiting anything (see the module's docstring)."""
        palette = self._palette()
        self.recent: list[str] = list(palette.recent) if palette else []
        self.near = top_folder(palette.near if palette else None)
        self.ranker = NoteRanker([])
        self._epoch = -1
        self._reading: asyncio.Task[NoteRanker] | None = None
        self._warming: asyncio.Task[None] | None = None

    def _palette(self) -> SwitcherPalette | None:
        """The dialog this provider answers in (it holds what the searches read)."""
        found = [s for s in self.app.screen_stack if isinstance(s, SwitcherPalette)]
        return found[-1] if found else None

    async def _current(self) -> NoteRanker:
        """The ranker over the index as it is now: read again after an index change (also one
        during a read) or a failed read; a search cancelled meanwhile leaves the read running
        for the next one."""
        palette = self._palette()
        while palette is not None:
            epoch = palette.index_epoch
            if epoch != self._epoch and self._reading is None:
                self._epoch = epoch
                self._reading = asyncio.create_task(asyncio.to_thread(palette.notes))
                self._reading.add_done_callback(self._adopt)
            reading = self._reading
            if reading is None:
                break
            if reading.done():  # ended, its `_adopt` still queued: awaiting it would not yield
                self._adopt(reading)
                continue
            try:
                await asyncio.shield(reading)  # a cancelled search leaves the read running
            except Exception:  # `_adopt` logged it; the next search reads again
                break
        return self.ranker

    def _adopt(self, reading: asyncio.Task[NoteRanker]) -> None:
        """Keep a finished read, whichever search awaited it: a search cancelled in the same
        moment as the read ends must not drop the notes (the list then stayed empty until the
        index changed). Once per read: a search that finds it ended takes it first."""
        if self._reading is not reading:
            return
        self._reading = None
        failure = None if reading.cancelled() else reading.exception()
        if reading.cancelled() or failure is not None:
            self._epoch = -1  # the next search reads again
            if failure is not None:
                self.app.log.error(f"switcher: the notes could not be read ({failure!r})")
            return
        ranker = reading.result()
        if ranker is not self.ranker:
            self.ranker = ranker
            # The typo index (~0.8 s at 50k notes) is built once per ranker, while the
            # user is still typing the first letters, which need no typo search.
            self._warming = asyncio.create_task(asyncio.to_thread(ranker.prepare_typos))

    async def discover(self) -> Hits:
        ranker = await self._current()
        for ranked in ranker.rank("", DISCOVER_LIMIT, self.recent):
            entry = ranked.entry
            yield DiscoveryHit(
                drawable(entry.label),
                NoteOpener(self, entry.path),
                help=drawable(entry.description) or None,
            )

    async def search(self, query: str) -> Hits:
        ranker = await self._current()
        ranked = await asyncio.to_thread(ranker.rank, query, SEARCH_LIMIT, self.recent, self.near)
        matcher = self.matcher(query)
        for n, hit in enumerate(ranked):
            entry = hit.entry
            yield Hit(
                1 - n / (len(ranked) + 1),  # the palette sorts by score: keep our order
                matcher.highlight(drawable(entry.label)),
                NoteOpener(self, entry.path),
                text=drawable(entry.label),
                help=drawable(entry.description) or None,
            )
