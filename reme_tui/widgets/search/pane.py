"""The search pane: a query box and the hits as you type.

Keystrokes only restart a short timer; the search (`reme_tui.services.run_query`) runs in an
exclusive thread worker of the screen, so a newer query cancels the older one and input never
waits. Hits are options of one OptionList.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from reme_core import FilterSamples, SearchHit, parse_query
from reme_tui.messages import OpenNote, SearchRequested
from reme_tui.text import hints
from reme_tui.widgets.search.hit_block import HitBlock

DEBOUNCE_SECONDS = 0.15
MAX_HITS = 50


def help_text(samples: FilterSamples) -> str:
    """What the search box accepts, its examples taken from the open workspace: a real top
    folder and the dates its notes span (a date example only when a note has a date)."""
    folder = f"{samples.folder}/" if samples.folder else "folder/"
    dates = None
    if samples.first_date and samples.last_date:
        dates = (samples.first_date, samples.last_date)
    return hints.search_help(escape(folder), dates)


def placeholder(samples: FilterSamples) -> str:
    """The empty box's one-line example."""
    return hints.search_placeholder(samples.folder or "")


@dataclass(slots=True)
class Found:
    """A finished search, with its result blocks already rendered off the UI thread."""

    hits: list[SearchHit]
    prompts: list[HitBlock]
    message: str
    seconds: float


class SearchPane(Vertical):
    """Query input, a one-line status, and the result blocks."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "focus_results", "Results", show=False),
        Binding("escape", "focus_results", "Results", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.hits: list[SearchHit] = []
        self._hits_line = ""  # the query the painted hits answer
        self.show_timing = True
        self._timer: Timer | None = None
        self.samples = FilterSamples()  # until the workspace is open: no real values yet

    def compose(self) -> ComposeResult:
        yield Input(placeholder=placeholder(self.samples), id="query")
        yield Static(help_text(self.samples), id="search-status")
        yield OptionList(id="results")

    def show_samples(self, samples: FilterSamples) -> None:
        """Take the open workspace's filter values for the examples."""
        self.samples = samples
        self.query_one(Input).placeholder = placeholder(samples)
        if not self.query_text.strip():
            self.set_status(help_text(samples))

    def on_mount(self) -> None:
        self.border_title = "Search"

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value

    def set_status(self, message: str) -> None:
        self.query_one("#search-status", Static).update(message)

    @on(Input.Changed, "#query")
    def _changed(self, event: Input.Changed) -> None:
        if event.value == "/":  # `/` (focus search) pressed in the focused, empty box
            event.input.value = ""
            return
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE_SECONDS, self.refresh_results)

    @on(Input.Submitted, "#query")
    def _submitted(self) -> None:
        self.action_focus_results()

    def action_focus_results(self) -> None:
        """Move from the query box into the hits."""
        results = self.query_one(OptionList)
        if results.option_count:
            results.focus()
            if results.highlighted is None:
                results.highlighted = 0

    def refresh_results(self) -> None:
        """Ask for the current query to run again (typing, or the index changed)."""
        parsed = parse_query(self.query_text)
        if parsed.is_empty():
            self.hits = []
            self.query_one(OptionList).clear_options()
            empty = not self.query_text.strip()
            self.set_status(help_text(self.samples) if empty else hints.ADD_A_WORD)
            return
        self.post_message(SearchRequested(self.query_text, parsed))

    def show_error(self, message: str) -> None:
        """A query the index refused (a bad date, say): explain it under the box."""
        self.hits = []
        self.query_one(OptionList).clear_options()
        self.set_status(hints.query_error(message))

    def show_results(self, line: str, found: Found) -> None:
        """Paint a finished search, unless the query changed meanwhile."""
        if line != self.query_text:
            return
        hits, prompts, message, seconds = found.hits, found.prompts, found.message, found.seconds
        results = self.query_one(OptionList)
        # The same query painted again (the index changed) keeps the cursor's hit; a new query
        # starts at its best hit, even when the hits of a half-typed one came in between.
        previous = (
            self.hits[results.highlighted]
            if results.highlighted is not None and self.hits and line == self._hits_line
            else None
        )
        self.hits, self._hits_line = hits, line
        options: list[Option | None] = []
        for i, prompt in enumerate(prompts):
            options += [None, Option(prompt, id=f"hit{i}")] if i else [Option(prompt, id=f"hit{i}")]
        results.set_options(options)
        if hits:
            more = hints.MORE_HITS if len(hits) >= MAX_HITS else ""
            timing = f" in {seconds * 1000:.0f} ms" if self.show_timing else ""
            self.set_status(hints.hits_line(len(hits), timing, more))
            results.highlighted = _kept(hits, previous)
        else:
            self.set_status(message or hints.NO_RESULTS)

    def highlighted_target(self) -> tuple[str, int, int] | None:
        """The highlighted hit's path and line range (what `y` copies here)."""
        results = self.query_one("#results", OptionList)
        if results.highlighted is None or not self.hits:
            return None
        option = results.get_option_at_index(results.highlighted)
        hit = self.hits[int((option.id or "hit0")[3:])]
        return hit.path, hit.start_line, hit.end_line

    @on(OptionList.OptionSelected, "#results")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        hit = self.hits[int((event.option.id or "hit0")[3:])]
        self.post_message(OpenNote(hit.path, hit.start_line, hit.end_line))


def _kept(hits: list[SearchHit], previous: SearchHit | None) -> int:
    """Where the cursor stays when the results are painted again: on the same chunk, else on
    the same note (a batch that rewrote it gives its chunks new ids), else the first hit."""
    if previous is None:
        return 0
    chunk = (i for i, h in enumerate(hits) if h.chunk_id == previous.chunk_id)
    note = (i for i, h in enumerate(hits) if h.path == previous.path)
    return next(chunk, next(note, 0))
