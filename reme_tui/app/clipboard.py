"""Copy a note's path, a link to it, or the lines of a hit, to the terminal's clipboard.

A controller of `MainScreen`. What is copied is the thing in focus: the highlighted hit, the
highlighted entry of the links pane, else the open note (with the lines the reader marks).
The choices are made in a thread worker (a wikilink's shortest form looks at every file
name), then offered in `CopyScreen`; Textual's `copy_to_clipboard` sends them as OSC 52,
which reaches the local clipboard also over SSH and in tmux (`set-clipboard on`).
"""

from __future__ import annotations

import posixpath

from reme_core import Workspace, markdown_link_to, wikilink_to
from reme_tui.app.host import Host
from reme_tui.screens.copy import CopyChoice, CopyScreen
from reme_tui.text import notices

Target = tuple[str, int | None, int | None]  # path, first line, last line


def copy_choices(ws: Workspace, target: Target) -> list[CopyChoice]:
    """Path, wikilink (to the lines too, where some are marked), Markdown link, and the
    marked lines' text: for `target`, in the workspace's link style."""
    path, start, end = target
    obsidian = ws.link_resolution == "obsidian"
    link = wikilink_to(path, ws.files(), obsidian=obsidian)
    node = ws.node(path)
    stem = posixpath.splitext(posixpath.basename(path))[0]
    label = (node.name if node is not None else "") or stem
    choices = [CopyChoice("Path", path), CopyChoice("Wikilink", link)]
    if start is not None and end is not None:
        lines = f"L{start}" if start == end else f"L{start}-L{end}"
        choices.append(CopyChoice(f"Wikilink {lines}", f"{link[:-2]}#{lines}]]"))
    choices.append(CopyChoice("Markdown link", markdown_link_to(path, label)))
    if start is not None and end is not None:
        text = ws.read(path, start, end).text
        choices.append(CopyChoice(f"Lines {start}-{end}", text))
    return choices


class Copier:
    """`y` and the palette's Copy entries."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen

    def target(self) -> Target | None:
        """What has the focus: a hit, a links-pane entry, else the open note."""
        screen = self.screen
        pane = screen.pane_in_focus()
        if pane == "search":
            return screen.search_pane.highlighted_target()
        if pane == "links":
            return screen.neighbours.highlighted_target()
        reader = screen.reader
        if not reader.path:
            return None
        ranges = list(reader.view.ranges)
        if ranges:
            return reader.path, ranges[0][0], ranges[-1][1]
        return reader.path, None, None

    def copy(self) -> None:
        """Offer the choices for what has the focus."""
        ws, target = self.screen.ws, self.target()
        if ws is None or target is None:
            self.screen.notify(notices.COPY_NEEDS_A_NOTE, timeout=2)
            return
        self.screen.run_worker(
            lambda: self._offer(ws, target), thread=True, group="copy", name="copy", exclusive=True
        )

    def _offer(self, ws: Workspace, target: Target) -> None:
        choices = copy_choices(ws, target)
        self.screen.app.call_from_thread(
            self.screen.app.push_screen, CopyScreen(f"Copy from {target[0]}", choices), self.chosen
        )

    def chosen(self, choice: CopyChoice | None) -> None:
        """Put the choice on the clipboard and say what went there."""
        if choice is None:
            return
        self.screen.app.copy_to_clipboard(choice.text)
        lines = choice.text.count("\n") + 1
        shown = choice.text if lines == 1 else f"{lines} lines"
        self.screen.notify(shown, title=f"Copied: {choice.what}", timeout=3)
