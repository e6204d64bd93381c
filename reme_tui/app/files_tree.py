"""The Files pane's controller: reads the tree in a worker, keeps it live, acts on its asks.

A controller of `MainScreen`. The tree is read once, when the pane is first shown
(`Workspace.note_times`: every indexed note with its modified time, so excludes and the mode
apply), and built off the UI thread. Each applied batch then changes it in place: removals and
additions at once, on the UI thread and in the batches' order, the added notes' modified times
filled in by a worker afterwards (until then they count as just now, which they nearly are).
A rebuild reads it again. The file operations are the note operations' own dialogs, on the
highlighted note or folder.
"""

from __future__ import annotations

import time

from reme_core import BatchReport
from reme_tui.app.host import Host
from reme_tui.app.note_ops import NoteOps
from reme_tui.app.pane_layout import FILES, PaneLayout
from reme_tui.screens.new_folder import NewFolderScreen
from reme_tui.services import FilesListed, FilesTimed, read_tree
from reme_tui.text import notices
from reme_tui.widgets.files.model import SORTS, FilesModel
from reme_tui.widgets.files.pane import FilesPane


class FilesTree:
    """The Files pane's data: read, kept current, revealed, and its operations."""

    def __init__(self, screen: Host, pane: FilesPane, layout: PaneLayout, notes: NoteOps) -> None:
        self.screen = screen
        self.pane = pane
        self.layout = layout
        self.notes = notes
        self._loading = False
        self._stale = False  # a batch arrived while the tree was being read

    @property
    def model(self) -> FilesModel | None:
        return self.pane.model

    def load(self) -> None:
        """Read the tree (again) in a worker."""
        ws = self.screen.ws
        if ws is None:
            return
        self._loading, self._stale = True, False
        self.screen.in_thread(
            lambda: self.screen.post_message(FilesListed(read_tree(ws))), "files-tree", "files tree"
        )

    def rebuilt(self) -> None:
        """The index was rebuilt: a tree already read is read again."""
        if self.model is not None:
            self.load()

    def listed(self, model: FilesModel) -> None:
        """The worker's tree: shown, the open note revealed; read again if it is already old."""
        self._loading = False
        self.pane.show_model(model)
        self.reveal(self.screen.reader.path, again=True)
        if self._stale:
            self.load()

    def toggle(self) -> None:
        """Show the tree with the focus in it (read the first time), or hide it."""
        screen, layout = self.screen, self.layout
        if layout.files_shown:
            leaving = layout.pane_of(screen.focused) == FILES
            layout.choose_files(False)
            if leaving:
                screen.focus_reader()
            return
        if screen.ws is None:
            screen.notify(notices.STILL_OPENING, timeout=2)
            return
        layout.choose_files(True)
        self.pane.view.focus()
        if self.model is None:
            if not self._loading:
                self.load()
        else:
            self.reveal(screen.reader.path, again=True)

    def reveal(self, path: str, again: bool = False) -> None:
        """Mark the reader's note, and open its folders so that it shows: when another note
        opens, or `again` (a note read again after a change leaves the cursor where it is)."""
        view = self.pane.view
        if path == view.open_path and not again:
            return
        view.open_path = path
        if path and view.model is not None and path in view.model:
            view.reveal(path)
        view.refresh()

    def index_changed(self, report: BatchReport) -> None:
        """Apply a batch to the tree in place (no rebuild): removals, then additions."""
        if self._loading:
            self._stale = True
            return
        model = self.model
        if model is None or not report.changes:
            return
        removed = [c.path for c in report.changes if c.kind == "deleted"]
        added = [c.path for c in report.changes if c.kind != "deleted"]
        row = self.pane.view.highlighted
        now = time.time()
        if model.apply(removed, [(p, now) for p in added]):
            self.pane.changed()
        fresh = [c.path for c in report.changes if c.kind == "added"]
        if row is not None and row.path in removed and len(fresh) == 1:
            self.pane.view.reveal(fresh[0])  # the highlighted note moved: follow it
        ws = self.screen.ws
        if added and ws is not None:
            self.screen.run_worker(
                lambda: self.screen.post_message(FilesTimed(ws.note_times(added))),
                thread=True,
                group="files-times",
                name="files times",
                exit_on_error=False,
            )

    def timed(self, times: dict[str, float]) -> None:
        """The modified times of added notes, for those still in the tree."""
        model = self.model
        if model is not None and model.apply((), [(p, t) for p, t in times.items() if p in model]):
            self.pane.changed()

    # -- the pane's asks ------------------------------------------------------------------------
    def asked(self, operation: str, path: str) -> None:
        """A file operation on the highlighted row: notes move and delete through the link-safe
        dialogs; a note or a folder is made in the highlighted folder."""
        model, notes = self.model, self.notes
        if model is None:
            return
        folder = model.folder_of(path) if path else ""
        if operation == "sort":
            model.set_sort(SORTS[(SORTS.index(model.sort) + 1) % len(SORTS)])
            self.pane.changed()
        elif operation == "new_note":
            notes.new(folder)
        elif operation == "new_folder":
            ws = self.screen.ws
            if ws is not None:
                self.screen.app.push_screen(NewFolderScreen(ws, folder), self._folder_made)
        elif not path or model.is_folder(path):
            self.screen.notify(notices.FOLDER_NOT_MOVED, timeout=3)
        elif operation == "move":
            notes.move(path)
        elif operation == "delete":
            notes.delete(path)

    def _folder_made(self, path: str | None) -> None:
        """A new folder: shown in the tree (empty) with the cursor on it."""
        model = self.model
        if path and model is not None:
            model.add_folder(path)
            self.pane.changed()
            self.pane.view.reveal(path)
            self.pane.view.focus()
