"""Link-safe file operations on the open note: rename/move, delete, new, undo.

A controller of `MainScreen`. The modal screens of `reme_tui.screens.file_ops` do the work
through `Workspace.move/delete/create`; the workspace listener then refreshes search results
and neighbours. Here the reader is pointed at the note's new place *before* that refresh runs,
so the refresh re-reads the right file instead of reporting the old path as deleted. Undo
(`Workspace.undo`) reverts the last delete or move, also one made by another process.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from rich.text import Text

from reme_core import (
    DeleteReport,
    MoveReport,
    RemeError,
    UndoReport,
    Workspace,
    list_templates,
    template_settings,
)
from reme_tui.app.host import Host
from reme_tui.messages import NoteCreated, Undone
from reme_tui.screens.create_note import CreateNoteScreen
from reme_tui.screens.file_ops import DeleteScreen, FileOpScreen, MoveScreen, NewNoteScreen
from reme_tui.screens.pick_list import PickScreen
from reme_tui.services import create_note, new_note_path
from reme_tui.text import hints, notices
from reme_tui.text.reports import deleted_toast, moved_toast, undone_toast
from reme_tui.widgets.reader.note_links import LinkState

Kept = TypeVar("Kept", NewNoteScreen, MoveScreen)  # the dialogs kept between openings


class NoteOps:
    """Rename / delete / new-note / undo, shared by the keys and the command palette."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen
        self._dialogs: dict[type[FileOpScreen[Any]], FileOpScreen[Any]] = {}  # kept, `reopen`ed

    def _open_note_path(self) -> str:
        """The open note's path, or "" after telling the user to open one."""
        path, ws = self.screen.reader.path, self.screen.ws
        if ws is None or not path or not (ws.root / path).exists():
            self.screen.notify(notices.OPEN_A_NOTE_FIRST, timeout=2)
            return ""
        return path

    def _workspace(self) -> Workspace | None:
        """The workspace, or None after saying it is still opening."""
        ws = self.screen.ws
        if ws is None:
            self.screen.notify(notices.STILL_OPENING, timeout=2)
        return ws

    def move(self, path: str = "") -> None:
        """Rename/move a note (the open one by default); the dialog previews the links it
        will rewrite."""
        path, ws = path or self._open_note_path(), self.screen.ws
        if path and ws is not None:
            self.screen.app.push_screen(self._dialog(MoveScreen, ws, path), self._moved)

    def _moved(self, report: MoveReport | None) -> None:
        if report is None:
            return
        self.screen.notify(moved_toast(report), title="Moved")
        if self.screen.reader.path == report.src:
            self._follow(report.src, report.dst)

    def _follow(self, src: str, dst: str) -> None:
        """The open note moved: keep the reader's place in it at its new path."""
        reader = self.screen.reader
        top = int(reader.view.scroll_y)
        ranges = list(reader.view.ranges)
        reader.retarget(src, dst)
        self.screen.navigator.open_path(dst, ranges, record=False, top=top)

    def delete(self, path: str = "") -> None:
        """Delete a note (the open one by default) after showing what still links to it."""
        path, ws = path or self._open_note_path(), self.screen.ws
        if path and ws is not None:
            self.screen.app.push_screen(DeleteScreen(ws, path), self._deleted)

    def _deleted(self, report: DeleteReport | None) -> None:
        if report is None:
            return
        self.screen.notify(deleted_toast(report), title="Deleted")
        reader = self.screen.reader
        if reader.path != report.path:
            return
        reader.forget(hints.gone(report.path, on_disk=False))
        self.screen.neighbours.clear(f"{report.path} was deleted.")
        if reader.history.back:
            self.screen.navigator.back()

    def undo(self) -> None:
        """Revert the last delete or move made through reme (here or by another process),
        in a worker: a refusal reaches the user through the error hub."""
        ws = self._workspace()
        if ws is not None:
            self.screen.in_thread(
                lambda: self.screen.post_message(Undone(ws.undo())), "file-ops", "undo"
            )

    def undone(self, report: UndoReport) -> None:
        """Say what was reverted; follow a moved-back open note, show a restored one."""
        self.screen.notify(undone_toast(report), title="Undone")
        if report.op == "move" and self.screen.reader.path == report.source:
            self._follow(report.source, report.path)
        elif report.op == "delete":
            self.screen.navigator.open_path(report.path)
            self.screen.focus_reader()

    def new(self, folder: str | None = None) -> None:
        """Create a note in `folder`, by default the open note's (the workspace root when none
        is open); in a vault with a templates folder, from a template (a picker when there are
        several)."""
        ws = self._workspace()
        if ws is None:
            return
        if folder is None:
            folder = posixpath.dirname(self.screen.reader.path)
        templates = (
            list_templates(ws.root, template_settings(ws.root)) if ws.mode == "vault" else []
        )
        if len(templates) <= 1:
            template = templates[0] if templates else ""
            dialog = self._dialog(NewNoteScreen, ws, folder, template)
            self.screen.app.push_screen(dialog, self.created)
            return
        rows: list[tuple[str | Text, str | None]] = [("Blank note", "")]
        rows += [(t, t) for t in templates]
        where = folder

        def chosen(template: str | None) -> None:
            if template is not None:
                screen = self._dialog(NewNoteScreen, ws, where, template)
                self.screen.app.push_screen(screen, self.created)

        hint = hints.templates_hint(len(templates))
        self.screen.app.push_screen(PickScreen(hints.NEW_FROM_TEMPLATE, rows, hint), chosen)

    def _dialog(self, kind: type[Kept], ws: Workspace, *args: str) -> Kept:
        """The dialog of this kind, kept between openings and reopened for ``args`` (what its
        constructor takes after the workspace): composing one anew was most of the time it
        took to appear. The app opens its workspace once, so one is kept per kind."""
        kept = self._dialogs.get(kind)
        if isinstance(kept, kind) and kept.ws is ws:
            kept.reopen(*args)
            return kept
        dialog = self._dialogs[kind] = kind(ws, *args)
        self.screen.app.install_screen(dialog, f"kept-{kind.__name__}-{id(dialog)}")
        return dialog

    def created(self, path: str | None) -> None:
        """A note was made here (the New-note dialog, a dangling link's): open it."""
        if path:
            self.screen.notify(notices.created(path), title="New note")
            self.screen.navigator.open_path(path)
            self.screen.focus_reader()

    def offer_note(self, link: LinkState, otherwise: Callable[[], None]) -> None:
        """A dangling link of the open note: offer to create its note where Obsidian would,
        then open it; `otherwise` (follow it as any other link) when its note exists by now.
        Asked in a worker: the index's lock may be held, and the keys must not wait."""
        ws = self.screen.ws
        if ws is not None:
            self.screen.in_thread(
                partial(self._offer_if_missing, ws, link, otherwise), "offer-note", "dangling link"
            )

    def _offer_if_missing(
        self, ws: Workspace, link: LinkState, otherwise: Callable[[], None]
    ) -> None:
        app = self.screen.app
        try:
            exists = ws.node(link.target) is not None or (ws.root / link.target).exists()
        except RemeError as exc:  # e.g. `[[../../x]]`: a link out of the workspace
            message = notices.unfollowable_link(exc)
            app.call_from_thread(self.screen.notify, message, title="Link", severity="warning")
            return
        app.call_from_thread(otherwise if exists else partial(self._offer, ws, link))

    def _offer(self, ws: Workspace, link: LinkState) -> None:
        path = new_note_path(ws.root, link, self.screen.reader.path)

        def confirmed(create: bool | None) -> None:
            if create:
                self.screen.in_thread(
                    lambda: self.screen.post_message(NoteCreated(create_note(ws, path))),
                    "file-ops",
                    "new note",
                )

        self.screen.app.push_screen(CreateNoteScreen(path, link.match.raw), confirmed)
