"""Following a link to a note that does not exist: where Obsidian would create it, and asking.

Obsidian puts a note made from a name-only link in the vault's folder for new notes
(`.obsidian/app.json`: `newFileLocation` "folder" with `newFileFolderPath`, "current" for
the linking note's folder, else the vault root); a link that names a path gets that path.
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from reme_core import MarkdownLinkMatch
from reme_tui.widgets.reader.note_links import LinkState
from reme_tui.widgets.safe_text import drawable


def new_notes_folder(root: Path, source: str) -> str:
    """The vault's folder for new notes ("" = the root), from `.obsidian/app.json`."""
    try:
        settings = json.loads((root / ".obsidian" / "app.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    if not isinstance(settings, dict):
        return ""
    location = settings.get("newFileLocation")
    if location == "current":
        return posixpath.dirname(source)
    folder = settings.get("newFileFolderPath")
    if location == "folder" and isinstance(folder, str):
        return folder.strip().strip("/")
    return ""


def new_note_path(root: Path, link: LinkState, source: str) -> str:
    """Where following this dangling link creates its note (workspace-relative, `.md`)."""
    if isinstance(link.match, MarkdownLinkMatch):
        return link.target  # already resolved against the linking note's folder
    target = link.match.target.strip().strip("/")
    if not target.lower().endswith(".md"):
        target += ".md"
    if "/" in target:
        return posixpath.normpath(target)
    return posixpath.join(new_notes_folder(root, source), target)


class CreateNoteScreen(ModalScreen[bool]):
    """ "Create Folder/Name.md?" — True to create it, False (or Escape) to leave it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "answer(False)", "Cancel", id="create.cancel"),
        Binding("y", "answer(True)", "Create", id="create.confirm"),
    ]

    def __init__(self, path: str, written: str) -> None:
        super().__init__()
        self.path = path
        self.written = written

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Create the linked note?", classes="title")
            yield Static(
                Text.assemble(
                    drawable(self.written),
                    " points at a note that does not exist yet.\nCreate ",
                    (drawable(self.path), "bold"),
                    " and open it?",
                )
            )
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button("Create", variant="primary", id="create")

    def on_mount(self) -> None:
        self.query_one("#create", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "create")

    def action_answer(self, create: bool) -> None:
        """y / n / Escape."""
        self.dismiss(create)
