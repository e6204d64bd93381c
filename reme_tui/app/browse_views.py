"""The browsing views beside search: bookmarks, today's note and its neighbours, the history
list, a random note and the tag tree.

A controller of `MainScreen` (like `NoteOps`): each view is a modal screen that ends with a
typed choice; the workspace and file work (bookmarks file, daily note, the list of notes) runs
in the screen's thread workers, so a failure reaches the app's error hub as one line, and the
result comes back to the UI thread through `call_from_thread`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.widgets import Input

from reme_core import (
    Bookmark,
    Workspace,
    add_bookmark,
    adjacent_daily_note,
    bookmark_entry,
    daily_note_settings,
    open_daily_note,
)
from reme_tui.app.host import Host
from reme_tui.messages import FollowLink
from reme_tui.screens.bookmarks import BookmarksScreen
from reme_tui.screens.pick_list import PickScreen
from reme_tui.screens.tag_tree import TagTreeScreen
from reme_tui.state import bookmarks_file
from reme_tui.text import hints, notices
from reme_tui.widgets.safe_text import drawable


class BrowseViews:
    """Bookmarks, Today, History, Random note and the tag tree, for keys and palette alike."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen

    def _workspace(self) -> Workspace | None:
        ws = self.screen.ws
        if ws is None:
            self.screen.notify(notices.STILL_OPENING, timeout=2)
        return ws

    def _in_thread(self, name: str, job: Callable[[], None]) -> None:
        self.screen.run_worker(job, thread=True, group="browse", name=name, exit_on_error=False)

    def _back_on_ui(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.screen.app.call_from_thread(fn, *args, **kwargs)

    def _open(self, path: str | None, anchor: str = "") -> None:
        if path:
            self.screen.navigator.open_path(path, anchor=anchor)
            self.screen.focus_reader()

    # -- bookmarks ------------------------------------------------------------------------------
    def bookmark(self) -> None:
        """Bookmark the open note, one of its headings, or the search in the box."""
        ws = self._workspace()
        if ws is None:
            return
        reader = self.screen.reader
        rows: list[tuple[str | Text, dict[str, Any] | None]] = []
        if reader.path:
            rows.append((f"This note  {reader.path}", bookmark_entry("file", path=reader.path)))
            for h in reader.note.headings if reader.note else []:
                entry = bookmark_entry("file", path=reader.path, subpath=f"#{h.title}")
                rows.append((f"{'  ' * h.level}#{h.title}", entry))
        query = self.screen.search_pane.query_one("#query", Input).value.strip()
        if query:
            rows.append((f"This search  {query}", bookmark_entry("search", query=query)))
        if not rows:
            self.screen.notify(notices.BOOKMARK_NEEDS_SOMETHING, timeout=2)
            return
        file = bookmarks_file(ws.root, ws.mode)
        hint = hints.bookmark_here_hint(_shown_file(ws, file))
        self.screen.app.push_screen(
            PickScreen("Bookmark", rows, hint), partial(self._add_chosen, file)
        )

    def _add_chosen(self, file: Path, entry: dict[str, Any] | None) -> None:
        if entry is not None:
            self._in_thread("bookmark", partial(self._add, file, entry))

    def _add(self, file: Path, entry: dict[str, Any]) -> None:
        mark, added = add_bookmark(file, entry)
        said = "Bookmarked" if added else "Already bookmarked"
        self._back_on_ui(self.screen.notify, drawable(mark.title), title=said, timeout=3)

    def bookmarks(self) -> None:
        """The bookmarks list; Enter opens one."""
        ws = self._workspace()
        if ws is not None:
            file = bookmarks_file(ws.root, ws.mode)
            self.screen.app.push_screen(BookmarksScreen(file), self._bookmark_chosen)

    def _bookmark_chosen(self, mark: Bookmark | None) -> None:
        if mark is None:
            return
        if mark.kind == "file":
            self._open(mark.path, mark.subpath.lstrip("#"))
        elif mark.kind in ("search", "folder"):
            folder = mark.path.strip("/")
            line = mark.query if mark.kind == "search" else f'path:"{folder}/"'
            box = self.screen.search_pane.query_one("#query", Input)
            box.value = line
            box.focus()
        elif mark.kind == "url":
            self.screen.post_message(FollowLink(mark.url, web=True))

    # -- daily notes ----------------------------------------------------------------------------
    def today(self) -> None:
        """Open today's daily note, creating it where the workspace keeps daily notes."""
        ws = self._workspace()
        if ws is not None:
            self._in_thread("today", partial(self._today, ws))

    def _today(self, ws: Workspace) -> None:
        path, created = open_daily_note(ws)
        if created:
            self._back_on_ui(self.screen.notify, path, title=notices.CREATED_TODAY, timeout=3)
        self._back_on_ui(self._open, path)

    def daily_step(self, step: int) -> None:
        """The daily note before (-1) or after (+1) the open one (or today)."""
        ws = self._workspace()
        if ws is not None:
            self._in_thread("daily note", partial(self._step, ws, self.screen.reader.path, step))

    def _step(self, ws: Workspace, here: str, step: int) -> None:
        settings = daily_note_settings(ws.root, ws.mode)
        found = adjacent_daily_note(ws.files(), settings, here, step)
        if found is None:
            self._back_on_ui(self.screen.notify, notices.no_daily_note(step), timeout=2)
        else:
            self._back_on_ui(self._open, found)

    # -- history and chance ---------------------------------------------------------------------
    def history(self) -> None:
        """The recently opened notes, newest first (kept per workspace across sessions)."""
        ws = self._workspace()
        if ws is None:
            return
        here = self.screen.reader.path
        rows: list[tuple[str | Text, str | None]] = []
        for path in self.screen.browser.app_state.recent:
            if (ws.root / path).is_file():
                label = Text(drawable(path))
                if path == here:
                    label.append("  (open)", "dim")
                rows.append((label, path))
        if not rows:
            self.screen.notify(notices.NO_HISTORY, timeout=2)
            return
        hint = hints.history_hint(len(rows))
        self.screen.app.push_screen(PickScreen("History", rows, hint), self._open)

    def random_note(self) -> None:
        """Open a note picked at random among the indexed ones."""
        ws = self._workspace()
        if ws is not None:
            self._in_thread("random note", partial(self._random, ws, self.screen.reader.path))

    def _random(self, ws: Workspace, here: str) -> None:
        files = [p for p in ws.files() if p != here and p.endswith(".md")]
        if not files:
            self._back_on_ui(self.screen.notify, notices.NO_OTHER_NOTE, timeout=2)
            return
        self._back_on_ui(self._open, random.choice(files))

    def tag_tree(self) -> None:
        """Nested tags as a tree with counts; the note chosen there opens."""
        ws = self._workspace()
        if ws is not None:
            self.screen.app.push_screen(TagTreeScreen(ws), self._open)


def _shown_file(ws: Workspace, file: Path) -> str:
    """The bookmarks file as a person finds it: vault-relative, else its full path."""
    try:
        return str(file.relative_to(ws.root))
    except ValueError:
        return str(file)
