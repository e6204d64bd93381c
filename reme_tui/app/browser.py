"""The Textual browser: search (left), reader (centre), neighbours (right) over one workspace.

Every piece of index work runs in a named App worker (open, search, read, neighbours, watcher,
maintenance), and `on_worker_state_changed` is the one place where their errors become
notifications. The workspace opens in a thread, so the first screen paints at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Footer, Input, OptionList, ProgressBar
from textual.worker import Worker, WorkerState, get_current_worker

from reme_core import BatchReport, IndexStats, RemeError, Workspace
from reme_tui.app.commands import RemeCommands
from reme_tui.app.note_ops import NoteOps
from reme_tui.app.preferences import Preferences
from reme_tui.app.upkeep import Upkeep
from reme_tui.messages import (
    FollowLink,
    IndexChanged,
    OpenNote,
    SearchAnswered,
    SearchDone,
    SearchRequested,
    WorkspaceOpened,
)
from reme_tui.screens.file_ops import DeleteScreen, FileOpScreen
from reme_tui.screens.tags import TagsScreen
from reme_tui.widgets.neighbours import NeighboursPane
from reme_tui.widgets.outline import OutlinePane
from reme_tui.widgets.reader.create_note import CreateNoteScreen
from reme_tui.widgets.reader.note_view import NoteView, parse_line_anchor
from reme_tui.widgets.reader.reader import Reader
from reme_tui.widgets.search.pane import SearchPane, run_query
from reme_tui.widgets.status import StatusBar
from reme_tui.widgets.switcher import SwitcherPalette

PROGRESS_EVERY = 0.1
VECTOR_POLL_SECONDS = 0.5
NARROW_WIDTH = 110  # below this many columns the links pane starts hidden (`l` shows it)
PANES = ("#search", "#reader", "#neighbours")


class RemeApp(Preferences, NoteOps, Upkeep):
    """Browse, search and follow the links of a folder of Markdown memory."""

    CSS_PATH = "app.tcss"
    TITLE = "reme"
    COMMANDS: ClassVar = App.COMMANDS | {RemeCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        # Every binding has an id: `keymap:` in the user's settings.yaml remaps it by that id.
        # The footer fits 120 columns with the reader focused: the less common (forward,
        # delete, new, undo, ...) are not shown there, but are in the palette's keys panel.
        Binding("slash", "focus_search", "Search", id="focus_search"),
        Binding("o,ctrl+o", "switcher", "Open", id="switcher"),
        Binding("f6", "next_pane", "Pane", priority=True, id="next_pane"),
        Binding(
            "shift+f6", "previous_pane", "Prev pane", show=False, priority=True, id="previous_pane"
        ),
        Binding("b,alt+left,left_square_bracket", "go_back", "Back", id="back"),
        Binding("f,alt+right,right_square_bracket", "forward", "Fwd", show=False, id="forward"),
        Binding("e", "edit", "Edit", id="edit"),
        Binding("r,f2", "move_note", "Rename", id="move_note"),
        Binding("delete,ctrl+d", "delete_note", "Delete", show=False, id="delete_note"),
        Binding("ctrl+z", "undo", "Undo", show=False, id="undo"),
        Binding("n", "new_note", "New", show=False, id="new_note"),
        Binding("m", "markdown", "Markdown", id="markdown"),
        Binding("t", "traverse", "Traverse", id="traverse"),
        Binding("l", "toggle_links", "Links", show=False, id="toggle_links"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="quit"),
        Binding(
            "ctrl+p", "command_palette", "palette", show=False, priority=True, id="command_palette"
        ),
    ]

    def __init__(self, path: Path, *, watch: bool = True) -> None:
        super().__init__(path)
        self.watch_enabled = watch
        self.last_search_seconds: float | None = None
        self._handled_generation = 0
        self._links_choice: bool | None = None

    def keymap_classes(self) -> tuple[type, ...]:
        """The app's, the panes', the dialogs' and the palettes' bindings may be remapped."""
        return (
            type(self),
            Reader,
            NoteView,
            OutlinePane,
            SearchPane,
            FileOpScreen,
            DeleteScreen,
            CreateNoteScreen,
            TagsScreen,
            SwitcherPalette,
        )

    def compose(self) -> ComposeResult:
        # Kept as references: a query from a worker's callback would search the screen on top
        # (a dialog, the palette) and find nothing.
        self._status = StatusBar(id="status")
        self._search = SearchPane(id="search")
        self._reader = Reader(id="reader")
        self._neighbours = NeighboursPane(id="neighbours")
        self._progress_bar = ProgressBar(id="progress", show_eta=False)
        yield self._status
        yield self._progress_bar
        with Horizontal(id="panes"):
            yield self._search
            yield self._reader
            yield self._neighbours
        yield Footer()

    def on_mount(self) -> None:
        self._progress_bar.display = False
        self.apply_settings()
        self.status.update_state(
            workspace=self.root.name or str(self.root), activity="opening the index…"
        )
        query = self.query_one("#query", Input)
        query.value = self.app_state.last_query
        query.focus()
        self.open_workspace()

    def on_resize(self, event: events.Resize) -> None:
        """Hide the links pane on narrow terminals, unless the user chose otherwise."""
        if self._links_choice is None:
            for pane in self.query(NeighboursPane):
                pane.display = event.size.width >= NARROW_WIDTH

    def on_unmount(self) -> None:
        self.app_state.save()
        if self._watch_stop is not None:
            self._watch_stop.set()

    # -- the error hub --------------------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker's failure ends here, as a notification (never a traceback)."""
        if event.state is not WorkerState.ERROR:
            return
        worker, error = event.worker, event.worker.error
        text = str(error) if isinstance(error, RemeError) else f"{type(error).__name__}: {error}"
        if worker.group == "search":
            self.search_pane.show_error(text)
            return
        self.notify(text, title=f"{worker.name} failed", severity="error", timeout=8)
        if worker.group == "open":
            self.status.update_state(activity="could not open the workspace")
            self.reader.show_message(f"[b]Could not open {self.root}[/b]\n\n{text}")
        elif worker.group == "watcher":
            self.status.update_state(watcher=False)
        elif worker.group == "maintenance":
            self._progress_done()

    # -- opening --------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="open", name="open workspace", exit_on_error=False)
    def open_workspace(self) -> None:
        """Load (or build) the index off the UI thread; the screen is already up."""
        ws = Workspace.open(self.root, progress=self._progress("indexing"))
        self.post_message(WorkspaceOpened(ws, ws.stats()))
        # Load jieba's dictionary now (about a second), not on the first Chinese keystroke.
        ws.tokenizer.tokenize("中文")

    @on(WorkspaceOpened)
    def _workspace_opened(self, message: WorkspaceOpened) -> None:
        self._workspace_ready(message.ws, message.stats)

    def _workspace_ready(self, ws: Workspace, stats: IndexStats) -> None:
        self.ws = ws
        self._progress_done()
        self.status.update_state(mode=ws.mode, vectors=ws.vector_status())
        self.set_interval(VECTOR_POLL_SECONDS, self._poll_vectors)
        self.status.update_stats(stats)
        ws.add_listener(self._on_batch)
        for warning in ws.warnings:
            self.notify(warning, title="Workspace", severity="warning")
        if stats.files:
            self.reader.show_message(
                "Search on the left ([b]/[/b]), or press [b]o[/b] to open a note by name.\n\n"
                "In a note: [b]Tab[/b] selects a link, [b]Enter[/b] follows it, "
                "[b]b[/b] goes back;\n[b]r[/b] renames, [b]n[/b] makes a new note, "
                "[b]l[/b] shows or hides the links, [b]Ctrl+P[/b] has the rest."
            )
        else:
            self.reader.show_message(
                f"[b]This workspace has no notes yet.[/b]\n\nAdd Markdown files under "
                f"{ws.root} (daily/, digest/ or any folder) and they appear here."
            )
        if self.watch_enabled:
            self.start_watcher()
        self.search_pane.refresh_results()

    # -- searching ------------------------------------------------------------------------------
    @on(SearchRequested)
    def _search_requested(self, message: SearchRequested) -> None:
        self.remember_query(message.line)
        if self.ws is not None:
            self.search_worker(message.line, message.parsed)

    @work(thread=True, exclusive=True, group="search", name="search", exit_on_error=False)
    def search_worker(self, line: str, parsed: Any) -> None:
        """Search off the UI thread; a newer query cancels this one before it paints."""
        assert self.ws is not None
        found = run_query(self.ws, parsed)
        if not get_current_worker().is_cancelled:
            self.post_message(SearchAnswered(line, found))

    @on(SearchAnswered)
    def _search_answered(self, message: SearchAnswered) -> None:
        self.search_pane.show_results(message.line, message.found)

    @on(SearchDone)
    def _search_done(self, message: SearchDone) -> None:
        self.last_search_seconds = message.seconds

    # -- opening notes --------------------------------------------------------------------------
    @on(OpenNote)
    def _open_note(self, message: OpenNote) -> None:
        start = message.start_line
        ranges = [(start, message.end_line or start)] if start else []
        self.open_path(message.path, ranges, message.anchor)
        self.focus_reader()

    @on(FollowLink)
    def _follow_link(self, message: FollowLink) -> None:
        ranges = parse_line_anchor(message.anchor)
        anchor = "" if ranges else message.anchor
        if message.target == message.source:
            self.open_path(message.target, ranges, anchor, record=bool(ranges or anchor))
            return
        self.open_path(message.target, ranges, anchor)

    # -- keeping fresh --------------------------------------------------------------------------
    def _on_batch(self, report: BatchReport) -> None:
        """Workspace listener (runs in the writer's thread): tell the UI."""
        self.post_message(IndexChanged(report, {c.path for c in report.changes}))

    @on(IndexChanged)
    def _index_changed(self, message: IndexChanged) -> None:
        generation = message.report.generation
        if generation and generation <= self._handled_generation:
            return
        self._handled_generation = max(self._handled_generation, generation)
        self.refresh_stats()
        if not message.paths:
            return
        self.search_pane.refresh_results()
        path = self.reader.path
        if path and (path in message.paths or self._neighbours_touched(message.paths)):
            self.read_worker(path, list(self.reader.view.ranges), "", None)
            self.neighbours_worker(path)

    def _neighbours_touched(self, paths: set[str]) -> bool:
        data = self.neighbours.data
        if data is None:
            return False
        near = {n.path for n in (*data.outlinks, *data.inlinks)}
        return bool(near & paths)

    # -- actions --------------------------------------------------------------------------------
    def action_focus_search(self) -> None:
        """Focus the query box."""
        self.query_one("#query", Input).focus()

    def _pane_of(self, widget: Widget | None) -> int:
        for index, selector in enumerate(PANES):
            pane = self.query_one(selector)
            if widget is not None and (widget is pane or pane in widget.ancestors):
                return index
        return -1

    def _focus_pane(self, step: int) -> None:
        index = (self._pane_of(self.focused) + step) % len(PANES)
        if index == 2 and not self.neighbours.display:
            index = (index + step) % len(PANES)
        if index == 0:
            results = self.query_one("#results", OptionList)
            target: Widget = results if results.option_count else self.query_one("#query")
        elif index == 1:
            target = self.query_one("#note")
        else:
            target = self.query_one("#neighbours-list")
        target.focus()

    def action_next_pane(self) -> None:
        """Cycle focus: search → reader → links."""
        self._focus_pane(+1)

    def action_previous_pane(self) -> None:
        """Cycle focus backwards."""
        self._focus_pane(-1)

    def on_key(self, event: events.Key) -> None:
        """Keys typed in one burst with "o" were queued below the switcher: it takes them."""
        if isinstance(self.screen, SwitcherPalette):
            self.screen.take_key(event)

    def action_switcher(self) -> None:
        """Open a note by name (exact, prefix, typo), path or description."""
        if self.ws is None:
            self.notify("The workspace is still opening.", timeout=2)
            return
        self.push_screen(SwitcherPalette())

    def action_markdown(self) -> None:
        """Toggle the rendered Markdown view."""
        self.reader.toggle_markdown()

    def action_toggle_links(self) -> None:
        """Show or hide the links pane (hidden by default on narrow terminals)."""
        self._links_choice = not self.neighbours.display
        self.neighbours.display = self._links_choice
        if not self._links_choice and self._pane_of(self.focused) == 2:
            self.focus_reader()

    def action_traverse(self) -> None:
        """Toggle the depth-2 traverse in the neighbours pane (gathered when first shown)."""
        if self.neighbours.toggle_traverse() and self.neighbours.data is not None:
            self.neighbours_worker(self.neighbours.data.path)
