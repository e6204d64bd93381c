"""Helpers shared by several test modules (fixtures live in conftest.py)."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.worker import WorkerCancelled

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
    `wait_for_complete` would raise for it, at whatever moment the second query came."""
    for worker in list(app.workers if workers is None else workers):
        with contextlib.suppress(WorkerCancelled):
            await worker.wait()


async def settle_workers(pilot: Pilot) -> None:
    """Let every worker of the app (and of its modal screens) finish; for apps run without
    the watcher, whose worker never finishes."""
    for _ in range(2):
        await pilot.pause()
        await workers_done(pilot.app)
    await pilot.pause()


def parts(ws: Workspace) -> WorkspaceParts:
    """A workspace's parts (live index, store, locks, indexer), for tests about them.

    The one place tests reach behind the facade: `Workspace`'s public names are its API and
    its parts are private (`ws._parts`); a test asserting on the graph or the store says so
    by calling this.
    """
    return ws._parts
