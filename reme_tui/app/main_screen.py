"""The browser's screen: search (left), reader (centre), links (right) under the status line.

It holds its panes by reference (a query from a worker's callback would search whichever
screen is on top, a dialog or the palette, and find nothing), owns the pane-level bindings
and actions, and runs the pane workers (search, read, links, counts), each posting its result
as a message handled here on the UI thread. Showing a note and the way back (`Navigator`),
the note operations (`NoteOps`) and the upkeep (`Upkeep`) are composed controllers, whose
actions the screen binds. The app owns the workspace, the watcher, the settings and the one
error hub, to which this screen forwards its workers' failures.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, OptionList, ProgressBar
from textual.worker import Worker, get_current_worker

from reme_core import BatchReport, IndexCounts, ParsedQuery, Workspace
from reme_tui.app.browse_views import BrowseViews
from reme_tui.app.clipboard import Copier
from reme_tui.app.files_tree import FilesTree
from reme_tui.app.graph_ops import show_graph
from reme_tui.app.host import Host
from reme_tui.app.navigation import Navigator
from reme_tui.app.note_ops import NoteOps
from reme_tui.app.pane_layout import FILES, LINKS, READER, SEARCH, PaneLayout
from reme_tui.app.property_ops import edit_property
from reme_tui.app.upkeep import Upkeep
from reme_tui.app.web_open import WebOpener
from reme_tui.messages import (
    Counted,
    FollowLink,
    IndexChanged,
    IndexProgress,
    NoteCreated,
    NoteUnreadable,
    OpenNote,
    Optimized,
    Rebuilt,
    SearchRequested,
    Undone,
    VectorsToggled,
)
from reme_tui.screens.tags import TagsScreen
from reme_tui.services import (
    FilesListed,
    FilesTimed,
    NeighboursGathered,
    NoteRead,
    SearchAnswered,
    ranker_for,
    run_query,
)
from reme_tui.settings import UserSettings
from reme_tui.text import hints, notices
from reme_tui.text.mode import mode_badge
from reme_tui.text.opening import open_warnings
from reme_tui.text.vectors import vectors_line
from reme_tui.widgets.files.pane import FilesPane
from reme_tui.widgets.key_footer import KeyFooter
from reme_tui.widgets.neighbours import NeighboursPane
from reme_tui.widgets.reader.markdown_styles import MarkdownStyles
from reme_tui.widgets.reader.reader import Reader
from reme_tui.widgets.search.pane import SearchPane
from reme_tui.widgets.status import StatusBar
from reme_tui.widgets.switcher import SwitcherPalette

PROGRESS_EVERY = 0.1
VECTOR_POLL_SECONDS = 0.5


class MainScreen(Host):
    """The three panes of one workspace, and what the keys do to them."""

    navigator: Navigator
    notes: NoteOps

    BINDINGS: ClassVar[list[BindingType]] = [
        # Every binding has an id: `keymap:` in the user's settings.yaml remaps it by that id.
        # The footer fits 120 columns with the reader focused: the less common (forward,
        # delete, new, undo, ...) are not shown there, but are in the palette's keys panel.
        Binding("slash", "focus_search", "Search", id="focus_search"),
        Binding("o,ctrl+o", "switcher", "Open", id="switcher"),
        # Also before the focused widget: keys typed right after it, while the app is busy (a
        # file change being shown), would otherwise be typed into the search box it left.
        Binding("ctrl+o", "switcher", "Open", priority=True, id="switcher_anywhere"),
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
        Binding("y", "copy", "Copy", id="copy"),
        Binding("t", "traverse", "Traverse", id="traverse"),
        Binding("l", "toggle_links", "Links", show=False, id="toggle_links"),
        # The browsing views (`BrowseViews`).
        Binding("B", "bookmarks", "Bookmarks", show=False, id="bookmarks"),
        Binding("ctrl+b", "bookmark", "Bookmark", show=False, id="bookmark"),
        Binding("ctrl+t", "today", "Today", show=False, id="today"),  # it writes: not a letter
        Binding("comma", "previous_daily", "Prev day", show=False, id="previous_daily"),
        Binding("full_stop", "next_daily", "Next day", show=False, id="next_daily"),
        Binding("H", "history", "History", show=False, id="history"),
        Binding("R", "random_note", "Random", show=False, id="random_note"),
        Binding("p", "edit_property", "Property", show=False, id="edit_property"),
        Binding("v", "graph", "Graph", id="graph"),
        # Also from the search box, whose own Ctrl+E (to the end of the line) End does too.
        Binding("ctrl+e", "toggle_files", "Files", priority=True, id="toggle_files"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.status = StatusBar(id="status")
        self.search_pane = SearchPane(id="search")
        self.reader = Reader(id="reader")
        self.neighbours = NeighboursPane(id="neighbours")
        self.progress_bar = ProgressBar(id="progress", show_eta=False)
        self.files_pane = FilesPane(id="files")
        self.navigator = Navigator(self)
        self.notes = NoteOps(self)
        self.copier = Copier(self)
        self.web = WebOpener(self)
        self.upkeep = Upkeep(self)
        self.browse = BrowseViews(self)
        self.pane_layout = PaneLayout(
            self, self.search_pane, self.reader, self.neighbours, self.files_pane
        )
        self.files_tree = FilesTree(self, self.files_pane, self.pane_layout, self.notes)
        self._handled_generation = 0

    def compose(self) -> ComposeResult:
        yield self.status
        yield self.progress_bar
        with Horizontal(id="panes"):
            yield self.files_pane
            yield self.search_pane
            yield self.reader
            yield self.neighbours
        yield MarkdownStyles()
        yield KeyFooter()

    def on_mount(self) -> None:
        self.progress_bar.display = False
        root = self.browser.root
        self.status.update_state(workspace=root.name or str(root), activity=hints.OPENING_INDEX)
        query = self.search_pane.query_one("#query", Input)
        query.value = self.browser.app_state.last_query
        query.focus()
        # Opened from here, not from the app's `on_mount`: that may run before this screen is
        # mounted, and a quick open would then find the header and the query not yet set.
        self.browser.open_workspace(self.progress("indexing"))

    def apply_settings(self, settings: UserSettings, *, first: bool) -> None:
        """The pane defaults of the user's settings (the reader's mode only at start)."""
        if settings.links_pane != "auto":
            self.pane_layout.choose_links(settings.links_pane == "show")
        if first:
            self.reader.markdown_mode = settings.reader_mode == "rendered"

    def on_resize(self, event: events.Resize) -> None:
        """Hide the links pane on narrow terminals (unless the user chose otherwise), and
        stack the panes on very narrow ones."""
        self.pane_layout.resized(event.size.width)

    def watch_focused(self, focused: Widget | None) -> None:
        """The focused pane is the one a stacked layout shows."""
        self.pane_layout.bring_forward(self.pane_layout.pane_of(focused))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """This screen's workers fail into the app's one hub (the event does not bubble)."""
        self.browser.on_worker_state_changed(event)

    # -- progress and counts --------------------------------------------------------------------
    def progress(self, verb: str) -> Callable[[int, int], None]:
        """A thread-safe, throttled progress callback feeding the bar and the header."""
        last = [0.0]

        def report(done: int, total: int) -> None:
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY or done >= total:
                last[0] = now
                self.post_message(IndexProgress(verb, done, total))

        return report

    @on(IndexProgress)
    def _index_progress(self, message: IndexProgress) -> None:
        self._show_progress(message.verb, message.done, message.total)

    def _show_progress(self, verb: str, done: int, total: int) -> None:
        self.progress_bar.display = True
        self.progress_bar.update(total=max(total, 1), progress=done)
        self.status.update_state(activity=hints.progress_line(verb, total, done))

    def progress_done(self, activity: str = "") -> None:
        """Hide the bar; the header says `activity` (nothing by default)."""
        self.progress_bar.display = False
        self.status.update_state(activity=activity)

    def refresh_counts(self) -> None:
        """Header counts after a change, in a worker (they take the index lock, which a
        batch may hold)."""
        if self.ws is not None:
            self._count(self.ws)

    @work(thread=True, exclusive=True, group="counts", name="counts", exit_on_error=False)
    def _count(self, ws: Workspace) -> None:
        self.post_message(Counted(ws.counts()))

    @on(Counted)
    def _counted(self, message: Counted) -> None:
        self.status.update_counts(message.counts)

    # -- the workspace is open ------------------------------------------------------------------
    def workspace_ready(self, ws: Workspace, counts: IndexCounts) -> None:
        """Show the opened workspace: counts, warnings, a first hint, results for the query."""
        self.progress_done()
        self.status.update_state(
            mode=mode_badge(ws.mode_choice), vectors=vectors_line(ws.vector_status())
        )
        self.set_interval(VECTOR_POLL_SECONDS, self.upkeep.poll_vectors)
        self.status.update_counts(counts)
        ws.add_listener(self._on_batch)
        for warning in open_warnings(ws.warnings, ws.recovery):
            self.notify(warning, title="Workspace", severity="warning")
        self.reader.show_welcome(ws.root, has_notes=bool(counts.files))

    def _on_batch(self, report: BatchReport) -> None:
        """Workspace listener (runs in the writer's thread): tell the UI."""
        self.post_message(IndexChanged(report, {c.path for c in report.changes}))

    @on(IndexChanged)
    def _index_changed(self, message: IndexChanged) -> None:
        generation = message.report.generation
        if generation and generation <= self._handled_generation:
            return
        self._handled_generation = max(self._handled_generation, generation)
        self.refresh_counts()
        if isinstance(self.app.screen, SwitcherPalette):
            self.app.screen.index_changed()
        self.files_tree.index_changed(message.report)
        if not message.paths:
            return
        self.search_pane.refresh_results()
        path = self.reader.path
        if path and (path in message.paths or self._neighbours_touched(message.paths)):
            self.navigator.reread()

    def _neighbours_touched(self, paths: set[str]) -> bool:
        data = self.neighbours.data
        if data is None:
            return False
        near = {n.path for n in (*data.outlinks, *data.inlinks)}
        return bool(near & paths)

    # -- searching ------------------------------------------------------------------------------
    @on(SearchRequested)
    def _search_requested(self, message: SearchRequested) -> None:
        self.browser.app_state.last_query = message.line  # restored in the box next time
        if self.ws is not None:
            self.search_worker(self.ws, message.line, message.parsed)

    @work(thread=True, exclusive=True, group="search", name="search", exit_on_error=False)
    def search_worker(self, ws: Workspace, line: str, parsed: ParsedQuery) -> None:
        """Search off the UI thread; a newer query cancels this one before it paints."""
        found = run_query(ws, parsed)
        if not get_current_worker().is_cancelled:
            self.post_message(SearchAnswered(line, found))

    @on(SearchAnswered)
    def _search_answered(self, message: SearchAnswered) -> None:
        self.search_pane.show_results(message.line, message.found)

    # -- notes chosen, and what the workers found ----------------------------------------------
    @on(OpenNote)
    def _open_note(self, message: OpenNote) -> None:
        self.navigator.open_note(message)

    @on(FollowLink)
    def _follow_link(self, message: FollowLink) -> None:
        if message.web:
            self.web.follow(message.target)
        else:
            self.navigator.follow_link(message)

    @on(NoteRead)
    def _note_read(self, message: NoteRead) -> None:
        self.reader.show_note(message.note, message.ranges, message.top, message.anchor)
        self.files_tree.reveal(message.note.path)

    @on(NoteUnreadable)
    def _note_unreadable(self, message: NoteUnreadable) -> None:
        self.reader.show_missing(message.path, message.reason, message.gone)
        if message.gone:  # and so are its links
            self.neighbours.clear(f"{message.path} is gone.")

    @on(NeighboursGathered)
    def _neighbours_gathered(self, message: NeighboursGathered) -> None:
        self.neighbours.show(message.data)

    @on(NoteCreated)
    def _note_created(self, message: NoteCreated) -> None:
        self.notes.created(message.path)

    @on(FilesListed)
    def _files_listed(self, message: FilesListed) -> None:
        self.files_tree.listed(message.model)

    @on(FilesTimed)
    def _files_timed(self, message: FilesTimed) -> None:
        self.files_tree.timed(message.times)

    @on(FilesPane.Asked)
    def _files_asked(self, message: FilesPane.Asked) -> None:
        self.files_tree.asked(message.operation, message.path)

    @on(Undone)
    def _undone(self, message: Undone) -> None:
        self.notes.undone(message.report)

    @on(Optimized)
    def _optimized(self, message: Optimized) -> None:
        self.upkeep.optimized(message.lines)

    @on(Rebuilt)
    def _rebuilt(self, message: Rebuilt) -> None:
        self.upkeep.rebuilt(message.summary)
        self.files_tree.rebuilt()

    @on(VectorsToggled)
    def _vectors_toggled(self, message: VectorsToggled) -> None:
        self.upkeep.vectors_toggled(message.status)

    # -- panes ----------------------------------------------------------------------------------
    def _focus_pane(self, step: int) -> None:
        index = self.pane_layout.step(self.focused, step)
        if index == SEARCH:
            results = self.search_pane.query_one("#results", OptionList)
            target: Widget = results if results.option_count else self.search_pane.query_one(Input)
        elif index == READER:
            target = self.reader.view
        elif index == FILES:
            target = self.files_pane.view
        else:
            target = self.neighbours.query_one(OptionList)
        target.focus()

    def pane_in_focus(self) -> str:
        """`search`, `reader`, `links` or `files` (`reader` when nothing has the focus)."""
        index = self.pane_layout.pane_of(self.focused)
        return ("search", "reader", "links", "files")[index if index >= 0 else READER]

    def focus_reader(self) -> None:
        """Focus the reader's note view (source or rendered: the same widget)."""
        self.pane_layout.bring_forward(READER)
        self.reader.view.focus()

    # -- actions --------------------------------------------------------------------------------
    def action_focus_search(self) -> None:
        """Focus the query box."""
        self.pane_layout.bring_forward(SEARCH)
        self.search_pane.query_one("#query", Input).focus()

    def action_go_back(self) -> None:
        """Return to the previous place."""
        self.navigator.back()

    def action_forward(self) -> None:
        """Undo a back."""
        self.navigator.forward()

    def action_next_pane(self) -> None:
        """Cycle focus: search → reader → links."""
        self._focus_pane(+1)

    def action_previous_pane(self) -> None:
        """Cycle focus backwards."""
        self._focus_pane(-1)

    def action_switcher(self) -> None:
        """Open a note by name (exact, prefix, typo), path or description."""
        ws = self.ws
        if ws is None:
            self.notify(notices.STILL_OPENING, timeout=2)
            return
        recent = list(self.browser.app_state.recent)
        self.app.push_screen(SwitcherPalette(lambda: ranker_for(ws), recent, self.reader.path))

    def action_tags(self) -> None:
        """Every tag with its count; the note chosen there opens in the reader."""
        if self.ws is None:
            self.notify(notices.STILL_OPENING, timeout=2)
            return
        self.app.push_screen(TagsScreen(self.ws), self._tag_note_chosen)

    def _tag_note_chosen(self, path: str | None) -> None:
        if path:
            self.navigator.open_path(path)
            self.focus_reader()

    def action_copy(self) -> None:
        """Copy the path, a link or the lines of the note, hit or link in focus."""
        self.copier.copy()

    def action_markdown(self) -> None:
        """Toggle the rendered Markdown view."""
        self.reader.toggle_markdown()

    def action_toggle_links(self) -> None:
        """Show or hide the links pane (hidden by default on narrow terminals)."""
        leaving = self.pane_layout.pane_of(self.focused) == LINKS
        self.pane_layout.choose_links(not self.neighbours.display)
        if leaving and not self.neighbours.display:
            self.focus_reader()
        elif self.neighbours.display and self.pane_layout.single:
            self.neighbours.query_one(OptionList).focus()

    def action_toggle_files(self) -> None:
        """Show the files tree (focused) or hide it."""
        self.files_tree.toggle()

    def action_traverse(self) -> None:
        """Toggle the depth-2 traverse in the neighbours pane (gathered when first shown)."""
        if self.neighbours.toggle_traverse() and self.neighbours.data is not None:
            self.navigator.gather_neighbours(self.neighbours.data.path)

    # The note operations and the upkeep, by their controllers (keys and palette alike).
    def action_move_note(self) -> None:
        """Rename/move the open note; the dialog previews the links it will rewrite."""
        self.notes.move()

    def action_delete_note(self) -> None:
        """Delete the open note after showing what still links to it."""
        self.notes.delete()

    def action_undo(self) -> None:
        """Revert the last delete or move made through reme (here or by another process)."""
        self.notes.undo()

    def action_new_note(self) -> None:
        """Create a note in the open note's folder (the workspace root when none is open)."""
        self.notes.new()

    def action_edit(self) -> None:
        """Open $VISUAL/$EDITOR at the current line; re-read the note afterwards."""
        self.upkeep.edit()

    def action_edit_property(self) -> None:
        """Edit one property of the open note (the other keys and their order kept)."""
        edit_property(self)

    def action_graph(self) -> None:
        """The open note's local graph, walkable with the keyboard."""
        show_graph(self)

    def action_sync(self) -> None:
        """Apply changes on disk now (the listener refreshes the panes)."""
        self.upkeep.sync()

    def action_optimize(self) -> None:
        """Compact the index and report before → after."""
        self.upkeep.optimize()

    def action_rebuild(self) -> None:
        """Drop derived state and re-read every file, with progress."""
        self.upkeep.rebuild()

    def action_toggle_vectors(self) -> None:
        """Turn vector recall on or off."""
        self.upkeep.toggle_vectors()

    # The browsing views, by their controller (keys and palette alike).
    def action_bookmark(self) -> None:
        """Bookmark the open note, a heading of it, or the search."""
        self.browse.bookmark()

    def action_bookmarks(self) -> None:
        """List the bookmarks (Obsidian's own in a vault); Enter opens one."""
        self.browse.bookmarks()

    def action_today(self) -> None:
        """Open today's daily note, creating it if missing."""
        self.browse.today()

    def action_previous_daily(self) -> None:
        """The daily note before the open one."""
        self.browse.daily_step(-1)

    def action_next_daily(self) -> None:
        """The daily note after the open one."""
        self.browse.daily_step(+1)

    def action_history(self) -> None:
        """Recently opened notes, newest first."""
        self.browse.history()

    def action_random_note(self) -> None:
        """Open a random note."""
        self.browse.random_note()

    def action_tag_tree(self) -> None:
        """Nested tags as a tree with counts."""
        self.browse.tag_tree()
