"""Link-safe file operations on the open note: rename/move, delete, new, undo.

A mixin of `RemeApp`. The modal screens of `reme_tui.screens.file_ops` do the work through
`Workspace.move/delete/create`; the workspace listener then refreshes search results and
neighbours. Here the reader is pointed at the note's new place *before* that refresh runs,
so the refresh re-reads the right file instead of reporting the old path as deleted. Undo
(`Workspace.undo`) reverts the last delete or move, also one made by another process.
"""

from __future__ import annotations

import posixpath

from textual import work

from reme_core import DeleteReport, MoveReport
from reme_tui.app.base import BrowserBase
from reme_tui.messages import Undone
from reme_tui.screens.file_ops import DeleteScreen, MoveScreen, NewNoteScreen


class NoteOps(BrowserBase):
    """Rename / delete / new-note actions, shared by the keys and the command palette."""

    def _open_note_path(self) -> str:
        """The open note's path, or "" after telling the user to open one."""
        path = self.reader.path
        if self.ws is None or not path or not (self.ws.root / path).exists():
            self.notify("Open a note first.", timeout=2)
            return ""
        return path

    def action_move_note(self) -> None:
        """Rename/move the open note; the screen previews the links it will rewrite."""
        path = self._open_note_path()
        if path and self.ws is not None:
            self.push_screen(MoveScreen(self.ws, path), self._moved)

    def _moved(self, report: MoveReport | None) -> None:
        if report is None:
            return
        self.notify(f"{report.src} → {report.dst}\n{report.summary()}", title="Moved")
        top = int(self.reader.view.scroll_y)
        ranges = list(self.reader.view.ranges)
        self.reader.retarget(report.src, report.dst)
        self.open_path(report.dst, ranges, record=False, top=top)

    def action_delete_note(self) -> None:
        """Delete the open note after showing what still links to it."""
        path = self._open_note_path()
        if path and self.ws is not None:
            self.push_screen(DeleteScreen(self.ws, path), self._deleted)

    def _deleted(self, report: DeleteReport | None) -> None:
        if report is None:
            return
        n = len(report.inbound)
        left = f"\n{n} inbound link{'s' * (n != 1)} now dangling" if n else ""
        self.notify(
            f"Moved {report.path} to {report.trash}{left}\nCtrl+Z puts it back", title="Deleted"
        )
        self.reader.forget(
            f"[b]{report.path}[/b] was deleted.\n\n"
            "Press [b]b[/b] to go back, or search for another note."
        )
        self.neighbours.clear(f"{report.path} was deleted.")
        if self.reader.history.back:
            self.action_go_back()

    def action_undo(self) -> None:
        """Revert the last delete or move made through reme (here or by another process)."""
        if self.ws is None:
            self.notify("The workspace is still opening.", timeout=2)
            return
        self.undo_worker()

    @work(thread=True, exclusive=True, group="file-ops", name="undo", exit_on_error=False)
    def undo_worker(self) -> None:
        """Undo off the UI thread; a refusal reaches the user through the error hub."""
        assert self.ws is not None
        self.post_message(Undone(self.ws.undo()))

    def on_undone(self, message: Undone) -> None:
        report = message.report
        text = "\n".join(report.lines()[:2])
        self.notify(text, title="Undone")
        if report.op == "move" and self.reader.path == report.source:
            top = int(self.reader.view.scroll_y)
            ranges = list(self.reader.view.ranges)
            self.reader.retarget(report.source, report.path)
            self.open_path(report.path, ranges, record=False, top=top)
        elif report.op == "delete":
            self.open_path(report.path)
            self.focus_reader()

    def action_new_note(self) -> None:
        """Create a note in the open note's folder (the workspace root when none is open)."""
        if self.ws is None:
            self.notify("The workspace is still opening.", timeout=2)
            return
        folder = posixpath.dirname(self.reader.path)
        self.push_screen(NewNoteScreen(self.ws, folder), self._created)

    def _created(self, path: str | None) -> None:
        if path:
            self.notify(f"Created {path}", title="New note")
            self.open_path(path)
            self.focus_reader()
