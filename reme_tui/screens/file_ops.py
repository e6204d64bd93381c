"""Modal screens for link-safe file operations: move/rename, delete, new note.

Each screen does its work through `reme_core.edit.file_ops` in a thread (the UI never blocks on
disk) and, once that worker has finished, dismisses with the result — a `MoveReport`, a
`DeleteReport`, the new note's workspace-relative path — or None when cancelled. The app
refreshes its panes from the workspace listener and opens the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Static
from textual.worker import Worker, WorkerState

from reme_core import (
    DeleteReport,
    MoveReport,
    RemeError,
    Workspace,
    inbound_links,
    suffix_warnings,
)
from reme_tui.services import create_note
from reme_tui.text import hints
from reme_tui.text.reports import move_preview
from reme_tui.text.words import dangling
from reme_tui.widgets.backdrop import Backdropped

_CSS = """
FileOpScreen { align: center middle; }
FileOpScreen > Vertical {
    width: 90%; max-width: 120; height: auto; max-height: 90%;
    border: thick $accent; background: $surface; padding: 1 2;
}
FileOpScreen .title { text-style: bold; margin-bottom: 1; }
FileOpScreen .preview-box { height: auto; max-height: 20; margin: 1 0; }
FileOpScreen .preview { height: auto; }
FileOpScreen .error { color: $error; }
FileOpScreen Horizontal { height: auto; align-horizontal: right; }
FileOpScreen Button { margin-left: 2; }
"""


DIALOG_SHARE = 0.9  # of the screen's rows, as the CSS's max-height
PREVIEW_ROWS = 20  # the preview's rows when the screen has them

# The workers whose result ends a screen: a report, or the new note's path (None: refused).
DONE_GROUPS = ("move", "delete", "create")


ResultT = TypeVar("ResultT")


class PreviewPane(VerticalScroll):
    """The preview's text (a `.preview` Static) in a box that scrolls: Tab reaches it, and the
    arrows move it, only when it holds more lines than it shows."""

    def __init__(self, text: str, *, id: str) -> None:
        super().__init__(classes="preview-box")
        self._first = Static(text, classes="preview", id=id)

    def compose(self) -> ComposeResult:
        yield self._first

    def allow_focus(self) -> bool:
        return self.max_scroll_y > 0


class FileOpScreen(ModalScreen[ResultT | None], Backdropped, Generic[ResultT]):
    """Shared look and the Escape binding of the three screens; each ends with its
    operation's result, or None when cancelled."""

    DEFAULT_CSS = _CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="dialog.cancel")
    ]

    def __init__(self, ws: Workspace) -> None:
        super().__init__()
        self.ws = ws
        self.opening = 0  # counts `begin_again`: a worker's words from an earlier one are dropped

    def begin_again(self) -> None:
        """A dialog kept between openings opens again: the last opening's workers and their
        words end here, and the screen beneath is taken as it is now."""
        self.opening += 1
        self.workers.cancel_node(self)
        self.retake_backdrop()

    def say(self, opening: int, text: str, error: bool = False) -> None:
        """A worker's text for the preview, from the opening that started it."""
        self.post_message(self.Preview(text, error, opening))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_preview)

    def _fit_preview(self) -> None:
        """Keep the buttons on screen: the preview scrolls in the rows the dialog's other parts
        leave (four in a 24-row terminal, up to twenty in a tall one)."""
        box = self.query_one(Vertical)
        preview = self.query_one(PreviewPane)
        others = sum(
            w.outer_size.height + w.styles.margin.height for w in box.children if w is not preview
        )
        room = int(self.size.height * DIALOG_SHARE) - others - box.styles.gutter.height
        preview.styles.max_height = max(2, min(PREVIEW_ROWS, room - preview.styles.margin.height))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Dismiss with an operation's result once its worker is done (dismissing from inside
        the worker would cancel it with the screen)."""
        done = event.state is WorkerState.SUCCESS and event.worker.group in DONE_GROUPS
        if done and event.worker.result is not None:
            self.dismiss(event.worker.result)

    @dataclass
    class Preview(Message):
        """A worker's text for the preview (a dry run, the inbound links, or a refusal)."""

        text: str
        error: bool = False
        opening: int = 0

    @on(Preview)
    def _preview(self, message: Preview) -> None:
        if message.opening == self.opening:
            self.show(message.text, message.error)

    def show(self, text: str, error: bool = False) -> None:
        """Put plain text (link text holds brackets, so never markup) in the preview."""
        preview = self.query_one(".preview", Static)
        preview.set_class(error, "error")
        preview.update(Text(text))


class MoveScreen(FileOpScreen[MoveReport]):
    """Rename/move the open note; the preview lists the links the move would rewrite.

    A destination that takes a note away from `.md` is only moved to on a second Move (the
    first one shows the warning).
    """

    def __init__(self, ws: Workspace, src: str) -> None:
        super().__init__(ws)
        self.src = src
        self._warned = ""  # the destination whose warning the user has seen

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("", classes="title", id="move-title")
            yield Input(placeholder="new workspace-relative path", select_on_focus=False, id="dst")
            yield Checkbox(hints.REWRITE_LINKS, value=True, id="rewrite")
            yield PreviewPane("", id="move-preview")
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button("Move", variant="primary", id="move")

    def on_mount(self) -> None:
        self._fill()

    def reopen(self, src: str) -> None:
        """Ready the kept dialog for moving ``src``."""
        self.begin_again()
        self.src, self._warned = src, ""
        if self.is_mounted:
            self._fill()

    def _fill(self) -> None:
        self.query_one("#move-title", Label).update(Text(hints.move_title(self.src)))
        dst = self.query_one("#dst", Input)
        with self.prevent(Input.Changed, Checkbox.Changed):
            dst.value = self.src
            dst.cursor_position = len(self.src)
            self.query_one("#rewrite", Checkbox).value = True
        dst.focus()
        self.refresh_preview()

    @on(Input.Changed, "#dst")
    @on(Checkbox.Changed, "#rewrite")
    def refresh_preview(self) -> None:
        dst = self.query_one("#dst", Input).value.strip()
        if not dst or dst == self.src:
            self.show(hints.TYPE_NEW_PATH)
            return
        self._dry_run(self.src, dst, self.query_one("#rewrite", Checkbox).value, self.opening)

    @work(thread=True, exclusive=True, group="move-preview", exit_on_error=False)
    def _dry_run(self, src: str, dst: str, rewrite: bool, opening: int) -> None:
        try:
            report = self.ws.move(src, dst, rewrite_links=rewrite, dry_run=True)
        except RemeError as exc:
            self.say(opening, str(exc), True)
            return
        self.say(opening, "\n".join(move_preview(report)))

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#dst")
    @on(Button.Pressed, "#move")
    def _confirm(self) -> None:
        dst = self.query_one("#dst", Input).value.strip()
        warnings = suffix_warnings(self.src, dst)
        if warnings and self._warned != dst:
            self._warned = dst
            self.show("\n".join([*warnings, hints.MOVE_ANYWAY]), True)
            return
        self._move(self.src, dst, self.query_one(Checkbox).value, self.opening)

    @work(thread=True, exclusive=True, group="move", exit_on_error=False)
    def _move(self, src: str, dst: str, rewrite: bool, opening: int) -> MoveReport | None:
        try:
            return self.ws.move(src, dst, rewrite_links=rewrite)
        except RemeError as exc:
            self.say(opening, str(exc), True)
            return None


class DeleteScreen(FileOpScreen[DeleteReport]):
    """Move the open note to `.trash/` after showing what still links to it.

    Cancel has the focus and no letter confirms, so keys typed as part of a word (`n` cancels)
    never delete: Tab to "Move to trash", then Enter, or click it.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "cancel", "Cancel", id="delete.cancel")
    ]

    def __init__(self, ws: Workspace, path: str) -> None:
        super().__init__(ws)
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(f"Delete {self.path}?"), classes="title")
            yield Label(hints.TRASH_EXPLAINED)
            yield PreviewPane(hints.LOOKING_FOR_LINKS, id="delete-preview")
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button(hints.MOVE_TO_TRASH, variant="error", id="delete")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()
        self._inbound()

    @work(thread=True, exclusive=True, group="delete-preview", exit_on_error=False)
    def _inbound(self) -> None:
        try:
            links = [x for x in inbound_links(self.ws, self.path) if x.path != self.path]
        except RemeError as exc:
            self.post_message(self.Preview(str(exc), True))
            return
        if not links:
            text = hints.NO_INBOUND
        else:
            lines = [f"{dangling(len(links), ahead=True)}:"]
            lines += [f"  {x.path}:{x.line}  {x.raw}" for x in links]
            text = "\n".join(lines)
        self.post_message(self.Preview(text))

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#delete")
    def _confirm(self) -> None:
        self._delete()

    @work(thread=True, exclusive=True, group="delete", exit_on_error=False)
    def _delete(self) -> DeleteReport | None:
        try:
            return self.ws.delete(self.path)
        except RemeError as exc:
            self.post_message(self.Preview(str(exc), True))
            return None


class NewNoteScreen(FileOpScreen[str]):
    """Create a note (in the given folder by default), from a vault template when one is
    given. Its frontmatter follows the workspace's rule (`Workspace.create`): ReMe's name and
    description in memory mode; in a vault only the fields typed here.

    The browser keeps one and `reopen`s it for each new note: composing and styling it anew
    was most of the time the dialog took to appear (108 vs 45 ms at 50k notes, idle)."""

    def __init__(self, ws: Workspace, folder: str = "", template: str = "") -> None:
        super().__init__(ws)
        self.folder = folder
        self.template = template

    def compose(self) -> ComposeResult:
        optional = hints.VAULT_NAME_OPTIONAL if self.ws.mode == "vault" else ""
        with Vertical():
            yield Label("New note", classes="title")
            yield Label("", id="new-template")
            yield Input(
                placeholder="path, e.g. digest/wiki/topic.md", select_on_focus=False, id="path"
            )
            yield Input(placeholder=f"name{optional}", id="name")
            yield Input(placeholder="description: one line on what it holds", id="description")
            yield PreviewPane("", id="new-preview")
            with Horizontal():
                yield Button("Cancel", id="cancel")
                yield Button("Create", variant="primary", id="create")

    def on_mount(self) -> None:
        self._fill()

    def reopen(self, folder: str, template: str = "") -> None:
        """Ready the kept dialog for another note: empty fields, the path starting in
        ``folder``, and no word of the last opening (its preview, a create still running)."""
        self.begin_again()
        self.folder, self.template = folder, template
        if self.is_mounted:
            self._fill()

    def _fill(self) -> None:
        start = f"{self.folder.strip('/')}/" if self.folder.strip("/") else ""
        template = self.query_one("#new-template", Label)
        template.update(Text(f"From template {self.template}"))
        template.display = bool(self.template)
        path = self.query_one("#path", Input)
        path.value = start
        path.cursor_position = len(start)
        self.query_one("#name", Input).value = ""
        self.query_one("#description", Input).value = ""
        self.show("")
        path.focus()

    @on(Input.Submitted, "#path")
    @on(Input.Submitted, "#name")
    def _next_field(self) -> None:
        self.focus_next()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#description")
    @on(Button.Pressed, "#create")
    def _confirm(self) -> None:
        path, name, description = (
            self.query_one(f"#{i}", Input).value.strip() for i in ("path", "name", "description")
        )
        self._create(path, name, description, self.template, self.opening)

    @work(thread=True, exclusive=True, group="create", exit_on_error=False)
    def _create(
        self, path: str, name: str, description: str, template: str, opening: int
    ) -> str | None:
        try:
            return create_note(self.ws, path, name, description, heading=True, template=template)
        except RemeError as exc:
            self.say(opening, str(exc), True)
            return None
