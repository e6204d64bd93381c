"""The New folder dialog of the files tree: a path, checked and made by the workspace."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label

from reme_core import RemeError, Workspace
from reme_tui.screens.file_ops import FileOpScreen, PreviewPane
from reme_tui.text import hints


class NewFolderScreen(FileOpScreen[str]):
    """Make an empty folder (in the highlighted folder by default); ends with its path."""

    def __init__(self, ws: Workspace, folder: str = "") -> None:
        super().__init__(ws)
        self.folder = folder

    def compose(self) -> ComposeResult:
        start = f"{self.folder.strip('/')}/" if self.folder.strip("/") else ""
        with Vertical():
            yield Label("New folder", classes="title")
            yield Input(
                value=start,
                placeholder="folder path, e.g. projects/2026",
                select_on_focus=False,
                id="folder-path",
            )
            yield PreviewPane("", id="folder-preview")
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button("Create", variant="primary", id="create")

    def on_mount(self) -> None:
        self.query_one("#folder-path", Input).focus()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#folder-path")
    @on(Button.Pressed, "#create")
    def _confirm(self) -> None:
        path = self.query_one("#folder-path", Input).value.strip().strip("/")
        if not path:
            self.show(hints.TYPE_FOLDER_PATH, True)
            return
        self._make(path)

    @work(thread=True, exclusive=True, group="create", exit_on_error=False)
    def _make(self, path: str) -> str | None:
        try:
            return self.ws.make_folder(path)
        except RemeError as exc:
            self.post_message(self.Preview(str(exc), True))
            return None
