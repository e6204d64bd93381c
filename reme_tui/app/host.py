"""What the browser's controllers (`Navigator`, `NoteOps`, `Copier`, `WebOpener`, `Upkeep`,
`Preferences`) use of the screen and the app that own them, declared below both: the
controllers import this module, never `main_screen` or `browser`, so the `app/` modules import
one way (`browser` -> `main_screen` -> controllers -> `host`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, cast

from textual.screen import Screen
from textual.worker import Worker

from reme_core import Workspace
from reme_tui.settings import UserSettings
from reme_tui.state import WorkspaceState
from reme_tui.widgets.neighbours import NeighboursPane
from reme_tui.widgets.reader.note_links import LinkState
from reme_tui.widgets.reader.reader import Reader
from reme_tui.widgets.search.pane import SearchPane
from reme_tui.widgets.status import StatusBar


class Browser(Protocol):
    """The app's own parts (`RemeApp`): its workspace, folder and state."""

    ws: Workspace | None
    root: Path
    app_state: WorkspaceState

    @property
    def main(self) -> Host: ...

    def keymap_classes(self) -> tuple[type, ...]: ...

    def open_workspace(self, progress: Callable[[int, int], None]) -> Worker[None]: ...

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None: ...


class Navigating(Protocol):
    """What other controllers ask of the `Navigator`."""

    def open_path(
        self,
        path: str,
        ranges: list[tuple[int, int]] | None = None,
        anchor: str = "",
        *,
        record: bool = True,
        top: int | None = None,
    ) -> None: ...

    def read(
        self, path: str, ranges: list[tuple[int, int]], anchor: str, top: int | None
    ) -> None: ...

    def back(self) -> None: ...


class OffersNotes(Protocol):
    """What the `Navigator` asks of `NoteOps`: a dangling link's note."""

    def offer_note(self, link: LinkState, otherwise: Callable[[], None]) -> None: ...


class Host(Screen[None]):
    """The main screen as its controllers see it: the panes, the other controllers, and the
    few screen-wide steps they take (`MainScreen` is the one subclass)."""

    status: StatusBar
    search_pane: SearchPane
    reader: Reader
    neighbours: NeighboursPane
    navigator: Navigating
    notes: OffersNotes

    @property
    def browser(self) -> Browser:
        """The app this screen belongs to, typed (it is `RemeApp`'s default screen)."""
        return cast("Browser", self.app)

    @property
    def ws(self) -> Workspace | None:
        """The app's workspace; None while it opens."""
        return self.browser.ws

    def in_thread(self, work: Callable[[], Any], group: str, name: str) -> Worker[Any]:
        """Run a workspace call in a thread worker of this screen: the newest of its `group`
        cancels the one before, and a failure reaches the app's error hub (never the loop)."""
        return self.run_worker(
            work, thread=True, exclusive=True, group=group, name=name, exit_on_error=False
        )

    def apply_settings(self, settings: UserSettings, *, first: bool) -> None:
        raise NotImplementedError

    def progress(self, verb: str) -> Callable[[int, int], None]:
        raise NotImplementedError

    def progress_done(self, activity: str = "") -> None:
        raise NotImplementedError

    def refresh_counts(self) -> None:
        raise NotImplementedError

    def pane_in_focus(self) -> str:
        raise NotImplementedError

    def focus_reader(self) -> None:
        raise NotImplementedError
