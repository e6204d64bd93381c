"""The Textual browser over one workspace: the app and what is app-wide.

`RemeApp` opens the workspace in a worker (so the first screen paints at once), runs the live
watcher, holds the user's settings (`Preferences`) and the workspace state, and pushes the
`MainScreen`, which owns the panes, their bindings and actions. Every worker's failure, the
app's and the main screen's, becomes a notification in one place: `on_worker_state_changed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, cast

from textual import events, on, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.command import CommandPalette as TextualPalette
from textual.widgets import HelpPanel
from textual.worker import Worker, WorkerState, get_current_worker

from reme_core import BatchReport, Committed, RemeError, Workspace
from reme_tui.app.collector import TICK_SECONDS, IdleCollector
from reme_tui.app.commands import RemeCommands
from reme_tui.app.main_screen import MainScreen
from reme_tui.app.preferences import Preferences
from reme_tui.app.textual_fixes import unpin_styles_caches
from reme_tui.messages import CaughtUp, IndexChanged, WorkspaceOpened
from reme_tui.opening import Opening
from reme_tui.screens.create_note import CreateNoteScreen
from reme_tui.screens.file_ops import DeleteScreen, FileOpScreen
from reme_tui.screens.tags import TagsScreen
from reme_tui.state import WorkspaceState, load_state
from reme_tui.text import hints, notices
from reme_tui.widgets.backdrop import Backdropped
from reme_tui.widgets.files.pane import FilesPane
from reme_tui.widgets.files.view import FilesView
from reme_tui.widgets.outline import OutlinePane
from reme_tui.widgets.reader.note_view import NoteView
from reme_tui.widgets.reader.reader import Reader
from reme_tui.widgets.search.pane import SearchPane
from reme_tui.widgets.switcher import SwitcherPalette


class CommandPalette(TextualPalette, Backdropped):
    """Textual's command palette (under its own name: the CSS and the tests know it by it)."""


# How often the browser reads the change log for other processes' commits.
FEED_POLL_SECONDS = 1.0
# How often the open's worker looks whether the browser is closing.
OPEN_POLL_SECONDS = 0.05


class RemeApp(App[None]):
    """Browse, search and follow the links of a folder of Markdown memory."""

    CSS_PATH = "app.tcss"
    TITLE = "reme"
    COMMANDS: ClassVar = App.COMMANDS | {RemeCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        # Ids as on the main screen's bindings: `keymap:` in settings.yaml remaps by id.
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="quit"),
        Binding(
            "ctrl+p", "command_palette", "palette", show=False, priority=True, id="command_palette"
        ),
    ]

    def __init__(self, path: Path, *, watch: bool = True, opening: Opening | None = None) -> None:
        """``opening``: the workspace's open, already started (`reme-tui` starts it before
        importing the browser); without it the browser starts one once its screen is up."""
        super().__init__()
        unpin_styles_caches()
        self.root = Path(path)
        self._opening = opening
        self.watch_enabled = watch
        self.ws: Workspace | None = None
        self.app_state: WorkspaceState = load_state(self.root)  # last query, recent notes
        self.preferences = Preferences(self)
        self._watch_stop: asyncio.Event | None = None
        self.crash: Exception | None = None  # what stopped the app, for the one-line report
        self.collector = IdleCollector()  # the collector's full passes when the user pauses
        self._catching_up = False  # the start-up diff was started (once per app)
        self.caught_up = False  # the start-up diff has ended (or failed)

    def keymap_classes(self) -> tuple[type, ...]:
        """The app's, the screens', the panes', the dialogs' and the palettes' bindings may
        be remapped."""
        return (
            type(self),
            MainScreen,
            Reader,
            NoteView,
            OutlinePane,
            SearchPane,
            FilesPane,
            FilesView,
            FileOpScreen,
            DeleteScreen,
            CreateNoteScreen,
            TagsScreen,
            SwitcherPalette,
        )

    def get_default_screen(self) -> MainScreen:
        """The main screen as the default screen, not as a mode's: Textual puts the default
        screen on the stack before mounting it, while a mode's screen is mounted first; with
        Python 3.12's eager tasks its `Input` then looked for a screen on an empty stack."""
        return MainScreen()

    @property
    def main(self) -> MainScreen:
        """The browser's screen, at the base of the stack."""
        main = self.screen_stack[0]
        assert isinstance(main, MainScreen)
        return main

    def on_mount(self) -> None:
        self.preferences.apply(first=True)
        self.collector.start()
        if self.collector.active:  # not where the interpreter keeps its own full passes
            self.set_interval(TICK_SECONDS, self.collector.tick)

    def on_unmount(self) -> None:
        self.collector.stop()
        self.app_state.save()
        if self._watch_stop is not None:
            self._watch_stop.set()

    async def on_event(self, event: events.Event) -> None:
        """A key or mouse event puts off the collector's idle pass."""
        if isinstance(event, events.InputEvent):
            self.collector.input_seen()
        await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        """Keys typed in one burst with "o" were queued below the switcher: it takes them."""
        if isinstance(self.screen, SwitcherPalette):
            self.screen.take_key(event)

    def _handle_exception(self, error: Exception) -> None:
        """Textual's last resort: keep the error for `run_browser`, which names it in one line
        with a log file and exits non-zero; Textual's long traceback only with REME_DEBUG."""
        self.crash = error
        super()._handle_exception(error)
        if not os.environ.get("REME_DEBUG"):
            self._exit_renderables.clear()

    # -- the error hub --------------------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker's failure ends here, as a notification (never a traceback); the main
        screen forwards those of its own workers."""
        if event.state is not WorkerState.ERROR:
            return
        worker, error, main = event.worker, event.worker.error, self.main
        text = str(error) if isinstance(error, RemeError) else f"{type(error).__name__}: {error}"
        if worker.group == "search":
            main.search_pane.show_error(text)
            return
        self.notify(text, title=notices.worker_failed(worker.name), severity="error", timeout=8)
        if worker.group == "open":
            main.status.update_state(activity=hints.COULD_NOT_OPEN)
            main.reader.show_message(hints.could_not_open(self.root, text))
        elif worker.group == "watcher":
            main.status.update_state(watcher=False)
            if self.ws is not None:  # it may have failed before its watches were placed
                self._catch_up_once(self.ws)
        elif worker.group == "catch-up":
            self.caught_up = True
        elif worker.group == "maintenance":
            main.progress_done()

    # -- opening --------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="open", name="open workspace", exit_on_error=False)
    def open_workspace(self, progress: Callable[[int, int], None]) -> None:
        """Wait for the index's load (or build) off the UI thread; the screen is already up.
        The start-up diff runs after (`catch_up`): the panes answer from the loaded index at
        once.

        The open runs in its own daemon thread (`Opening`), which `reme-tui` starts before
        the browser's imports; this worker only waits on it, so a quit during a first build
        leaves at once (Textual waits for its worker threads at exit)."""
        opening = self._opening or Opening(self.root).start()
        opening.listen(progress)
        worker = get_current_worker()
        while not opening.wait(OPEN_POLL_SECONDS):
            if worker.is_cancelled:
                return  # the browser is closing: the open is left to the process's exit
        ws = opening.result()
        # Through the screen, behind the progress messages posted there: it bubbles up to the
        # app only after the last of them has been drawn (and hidden again by the open).
        self.main.post_message(WorkspaceOpened(ws, ws.counts(), ws.filter_samples()))

    @work(thread=True, exclusive=True, group="catch-up", name="catch up", exit_on_error=False)
    def catch_up(self, ws: Workspace, progress: Callable[[int, int], None]) -> None:
        """The start-up diff, once the listener (and the watcher's watches, when it is on)
        is in place: files changed while the browser was closed reach the panes as a batch,
        as the watcher's do, and nothing changed meanwhile is missed."""
        report = ws.sync(progress)
        if get_current_worker().is_cancelled:
            return  # the browser is closing: a quit waits for no dictionary
        # Through the screen, as the open's result: a direct call could run before the
        # queued progress messages and leave the bar at 100 %.
        self.main.post_message(CaughtUp(len(report.changes)))
        # The segmenter's dictionary now, not on the first Chinese keystroke (when needed).
        ws.warm_up_segmenter()

    @on(CaughtUp)
    def _caught_up(self, message: CaughtUp) -> None:
        self.caught_up = True
        if message.changed:
            self.main.progress_done()

    @on(WorkspaceOpened)
    def _workspace_opened(self, message: WorkspaceOpened) -> None:
        self.ws = message.ws
        self.main.workspace_ready(message.ws, message.counts)
        self.main.search_pane.show_samples(message.samples)
        self.main.search_pane.refresh_results()
        # After the frame that shows the counts: the watcher and the start-up diff's walk
        # compete for the interpreter with it (at 50k notes it came a third of a second
        # later).
        self.call_after_refresh(self._follow_the_disk, message.ws)

    def _follow_the_disk(self, ws: Workspace) -> None:
        """The start-up diff and the live watcher (when on). With the watcher, the diff
        starts once its watches are in place and is its only catch-up: one walk of the
        disk at start, not two."""
        if self.watch_enabled:
            self.start_watcher(on_placed=lambda: self._catch_up_once(ws))
        else:
            self._catch_up_once(ws)

    def _catch_up_once(self, ws: Workspace) -> None:
        if not self._catching_up:
            self._catching_up = True
            self.catch_up(ws, self.main.progress("indexing"))

    # -- the live watcher -----------------------------------------------------------------------
    def start_watcher(self, on_placed: Callable[[], object] | None = None) -> None:
        """The live watcher (imported here: watchfiles costs start-up time); `on_placed`
        runs once its first watches are in place (`watch_workspace`)."""
        from reme_core import watch_workspace

        self.watch_worker(functools.partial(watch_workspace, on_placed=on_placed))

    @work(exclusive=True, group="watcher", name="watcher", exit_on_error=False)
    async def watch_worker(self, watch_workspace: Callable[..., Any]) -> None:
        """Run reme_core's live watcher; its batches reach the UI through the listener, the
        commits of other processes (the MCP server, `reme-tui write`) through the feed."""
        self._watch_stop = stop = asyncio.Event()
        status = self.main.status
        status.update_state(watcher=True)
        ws = self.ws
        assert ws is not None
        others = asyncio.create_task(self._follow_others(ws, stop))
        try:
            async for _report in watch_workspace(ws, stop_event=stop):
                pass  # applied: the workspace listener posts IndexChanged
        finally:
            others.cancel()
            status.update_state(watcher=False)

    async def _follow_others(self, ws: Workspace, stop: asyncio.Event) -> None:
        """Tell the panes (and an open switcher) of what other processes committed: this
        process's watcher then finds those files indexed already, and reports nothing."""
        own = os.getpid()
        feed = await asyncio.to_thread(ws.change_feed)
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), FEED_POLL_SECONDS)
            try:
                events = await asyncio.to_thread(feed.poll)
            except Exception as exc:  # the database busy or replaced: read again next time
                self.log.error(f"change feed: {exc!r}")
                continue
            theirs = [e for e in events if not (isinstance(e, Committed) and e.pid == own)]
            if theirs:
                await asyncio.to_thread(ws.refresh_if_changed)  # the panes read the new index
                paths = {c.path for e in theirs if isinstance(e, Committed) for c in e.changes}
                # generation 0: not taken for one this screen has handled already
                self.main.post_message(IndexChanged(BatchReport(), paths))

    # -- palette actions of the app -------------------------------------------------------------
    def action_command_palette(self) -> None:
        """Textual's palette, on the backdrop drawn once (`Backdropped`)."""
        if self.use_command_palette and not TextualPalette.is_open(cast("App[object]", self)):
            self.push_screen(CommandPalette(id="--command-palette"))

    def action_show_help_panel(self) -> None:
        """Textual's keys-and-help panel, its table of keys kept between openings
        (`KeysHelpPanel`; Textual's own where a later Textual moved what that one builds on)."""
        if not self.screen.query(HelpPanel):
            try:
                from reme_tui.widgets.keys_help import KeysHelpPanel
            except ImportError:
                self.screen.mount(HelpPanel())
            else:
                self.screen.mount(KeysHelpPanel())

    def action_open_settings(self) -> None:
        """Edit the settings file in $VISUAL/$EDITOR, then apply it."""
        self.preferences.open_settings()
