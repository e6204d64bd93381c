"""Helpers shared by several test modules (fixtures live in conftest.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.notifications import Notification
from textual.worker import WorkerCancelled, WorkerFailed

if TYPE_CHECKING:
    from textual.app import App
    from textual.pilot import Pilot
    from textual.worker import Worker

    from reme_core import Workspace
    from reme_core.parts import WorkspaceParts


def _entry_point() -> list[str]:
    """The installed `reme-tui` of the running interpreter's environment, never a name looked
    up on PATH (another environment's, or none, when the venv is not activated); where no
    script was installed beside the interpreter, the same program through `-m`."""
    script = Path(sys.executable).parent / "reme-tui"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "reme_tui"]


REME_TUI: list[str] = _entry_point()


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file outside the derived state (`metadata/`, `.reme-tui/`), as bytes: what a
    failed or refused operation must keep."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] not in ("metadata", ".reme-tui")
    }


HOUR_AGO = time.time() - 3600


def quiet_folders(root: Path) -> None:
    """Date every folder outside `metadata/` an hour back, as on a disk that has been quiet
    a while: the folder cache keeps only folders past its racy window."""
    for folder, _, _ in os.walk(root):
        if "metadata" not in folder:
            os.utime(folder, (HOUR_AGO, HOUR_AGO))


def hits(ws: Workspace, query: str) -> list[str]:
    """The sorted paths of up to 50 hits, without link expansion."""
    return sorted(h.path for h in ws.search(query, limit=50, expand_links=False).results)


def read_text(path: Path) -> str:
    """A child's output so far ("" before it created the file)."""
    try:
        return path.read_text(errors="replace")
    except FileNotFoundError:
        return ""


def wait_for(cond: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll a condition; fail with `what` when it does not hold within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


async def workers_done(app: App[Any], workers: Iterable[Worker[Any]] | None = None) -> None:
    """Wait until the workers (all of the app's by default) have ended. One cancelled meanwhile
    counts as ended: a newer query cancels the search it replaces (an exclusive group), and
    `wait_for_complete` would raise for it, at whatever moment the second query came. One that
    failed has ended too: the app reports what its workers raise (a query error in the status
    line; a worker without `exit_on_error=False` ends the app, which `run_test` raises)."""
    for worker in list(app.workers if workers is None else workers):
        with contextlib.suppress(WorkerCancelled, WorkerFailed):
            await worker.wait()


def typing_pending(app: App[Any]) -> bool:
    """The search box's typing timer has not fired yet: the search it starts is still to come.
    (Textual's `Timer` says so only through its task; a fired one-shot timer's task is done.)"""
    main = app.screen_stack[0] if app.screen_stack else None
    timer = getattr(getattr(main, "search_pane", None), "_timer", None)
    task = getattr(timer, "_task", None)
    return task is not None and not task.done()


async def until(pilot: Pilot, cond: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Let the app run until `cond` holds; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause()


async def settle(pilot: Pilot, timeout: float = 30.0) -> None:
    """Until the app is quiet: the typing timer fired, the browser's start-up diff ended and
    every worker but the watcher ended, twice in a row (one step starts the next: a search,
    the note it opens, its neighbours). A condition, not a fixed sleep: it returns as soon
    as the work is done."""
    app = pilot.app
    deadline = time.monotonic() + timeout
    quiet = 0
    while quiet < 2:
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the app to settle")
        await pilot.pause()
        busy = [w for w in app.workers if w.group != "watcher" and not w.is_finished]
        # The browser's start-up diff starts once the watcher's watches are placed.
        catching_up = getattr(app, "ws", None) is not None and not getattr(app, "caught_up", True)
        if busy:
            await workers_done(app, busy)
            quiet = 0
        elif typing_pending(app) or catching_up:
            await asyncio.sleep(0.02)
            quiet = 0
        else:
            quiet += 1


async def retake_backdrop(pilot: Pilot) -> None:
    """Picture the screen beneath a dialog again, as it is once settled. The dimmed backdrop
    (`reme_tui.widgets.backdrop`) is taken when the dialog first draws, and whether the screen
    beneath had by then applied its last style changes (the focus leaving it) depends on the
    machine's load: a snapshot must not."""
    from reme_tui.widgets.backdrop import Backdropped

    screen = pilot.app.screen
    if isinstance(screen, Backdropped) and screen._backdrop is not None:
        screen._backdrop = None
        screen.refresh()
        await pilot.pause()


def said(app: App[Any]) -> list[Notification]:
    """Every toast the app raised, in order, including those whose timeout has passed (the
    app's own `_notifications` forgets a toast after 2-5 s of wall time, which a test on a
    loaded machine can outlast). Needs conftest's `KeptNotifications` (autouse)."""
    return list(app._notifications.raised)  # type: ignore[attr-defined]


def parts(ws: Workspace) -> WorkspaceParts:
    """A workspace's parts (live index, store, locks, indexer), for tests about them.

    The one place tests reach behind the facade: `Workspace`'s public names are its API and
    its parts are private (`ws._parts`); a test asserting on the graph or the store says so
    by calling this.
    """
    return ws._parts
