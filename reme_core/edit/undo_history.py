"""The undo history on disk: `ws.state_dir/undo/last.json` lists the deletes and moves made
through reme, oldest first (each a step `undo` reverts, newest first), and a folder per move
keeps its linking files' bytes from before. One process at a time reads or changes it (a lock
file beside it); it is derived state, so every step is checked before it is used (`_check`)
and nothing in the folder is followed (`state_files`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reme_core.edit.journal_files import UNDO_DIR, UNDO_LOCK, UNDO_RECORD, remove_file
from reme_core.edit.trash import TRASH_DIR
from reme_core.errors import RemeError
from reme_core.files import state_files
from reme_core.files.paths import normalize_relpath, resolve_inside

if TYPE_CHECKING:
    from reme_core.ports import EditIndex

_RECORD = UNDO_RECORD
MAX_STEPS = 64  # the deepest history kept (a move's copies are kept as long as its step)


class UndoRefused(RemeError):
    """There is nothing to undo, or undoing would lose a change made since."""


def write_step(ws: EditIndex, record: dict[str, Any]) -> None:
    """Add a step to the history atomically (a permanent or unrecoverable one replaces it),
    dropping the copies of the steps that leave it. Best effort: an operation already done
    is not failed because its step cannot be written (then `undo` reverts the one before)."""
    record = {"time": time.time(), **record}
    with contextlib.suppress(OSError), locked(ws.state_dir) as folder:
        try:
            steps = read_steps(ws)
        except UndoRefused:
            steps = []  # an unreadable history is started afresh
        dropped: list[dict[str, Any]] = []
        if record["op"] in ("permanent", "unrecoverable"):
            dropped, steps = steps, []
        steps.append(record)
        while len(steps) > MAX_STEPS:
            dropped.append(steps.pop(0))
        for old in dropped:
            _drop_copies(folder, old, keep=record.get("blobs"))
        _save(folder, steps)


def _save(folder: Path, steps: list[dict[str, Any]]) -> None:
    """Write the history (the lock held): a new file, then renamed over the old one."""
    for name in os.listdir(folder):  # left by a process killed while writing one
        if name.startswith(f".{_RECORD}.") and name.endswith(".tmp"):
            remove_file(folder / name)
    if not steps:
        remove_file(folder / _RECORD)
        return
    tmp = folder / f".{_RECORD}.{secrets.token_hex(6)}.tmp"
    data = json.dumps({"version": 2, "steps": steps}, ensure_ascii=False).encode()
    state_files.create_new(tmp, data)
    os.replace(tmp, folder / _RECORD)  # a symlink in its place is replaced, not followed


def _drop_copies(folder: Path, old: dict[str, Any] | None, keep: str | None = None) -> None:
    """Remove the copies an old record kept (not another process's fresh ones)."""
    name = old.get("blobs") if old else None
    if isinstance(name, str) and name != keep and re.fullmatch(r"[0-9a-f]{12}", name):
        shutil.rmtree(folder / name, ignore_errors=True)


@contextlib.contextmanager
def locked(state_dir: Path) -> Iterator[Path]:
    """One process at a time records or undoes (a lock file beside the record); yields the
    undo folder. Both are checked, never followed: a symlinked state or undo folder is
    refused, a lock file that is not a regular file replaced (never truncated)."""
    folder = state_files.folder_fd(state_dir, UNDO_DIR)
    try:
        fd = state_files.open_lock(UNDO_LOCK, dir_fd=folder)  # openat: in this very folder
    finally:
        os.close(folder)
    try:
        state_files.flock_exclusive(fd)
        yield state_dir / UNDO_DIR
    finally:
        os.close(fd)


def read_steps(ws: EditIndex) -> list[dict[str, Any]]:
    """The history, oldest first ([] when none); `UndoRefused` when it cannot be read."""
    try:
        data = state_files.read_bytes(ws.state_dir / UNDO_DIR / _RECORD)
        stored = json.loads(data.decode("utf-8"))
    except FileNotFoundError:
        return []
    except state_files.NotRegular as exc:
        raise UndoRefused(f"cannot undo: the undo record is {exc.strerror}") from None
    except OSError as exc:
        raise UndoRefused(f"cannot undo: the undo record is unreadable ({exc.strerror})") from None
    except ValueError as exc:
        raise UndoRefused(f"cannot undo: the undo record is unreadable ({exc})") from None
    if not isinstance(stored, dict):
        return []
    if stored.get("version") == 1:  # one step, as earlier versions kept it
        return [stored]
    steps = stored.get("steps") if stored.get("version") == 2 else None
    return [step for step in steps if isinstance(step, dict)] if isinstance(steps, list) else []


def newest(ws: EditIndex) -> dict[str, Any] | None:
    """The newest step, checked; None when the history is empty."""
    steps = read_steps(ws)
    if not steps:
        return None
    record = steps[-1]
    try:
        _check(ws.root, record)
    except (RemeError, KeyError, TypeError, ValueError):
        # Derived state is never trusted: paths must stay inside the workspace.
        raise UndoRefused("cannot undo: the undo record is damaged") from None
    return record


def _check(root: Path, record: dict[str, Any]) -> None:
    """Refuse a record naming anything outside the workspace (or outside the trash)."""
    op = record.get("op")
    paths: list[str] = []
    if op == "delete":
        paths = [record["path"], record["trash"]]
        if not normalize_relpath(record["trash"]).startswith(f"{TRASH_DIR}/"):
            raise ValueError("not in the trash")
        for folder in record.get("made", []):
            if folder != TRASH_DIR and not record["trash"].startswith(f"{folder}/"):
                raise ValueError("a made folder that is not the trash slot's")
    elif op == "move":
        paths = [record["src"], record["dst"], *(f["path"] for f in record["files"])]
        for folder in record.get("made", []):
            if not record["dst"].startswith(f"{folder}/"):
                raise ValueError("a made folder that is not the destination's")
        if not re.fullmatch(r"[0-9a-f]{12}", record["blobs"]):
            raise ValueError("bad copy folder")
        for f in record["files"]:
            if not str(f["blob"]).isdigit() or not isinstance(f["after_len"], int):
                raise ValueError("bad file entry")
    for rel in paths:
        if normalize_relpath(rel) != rel:
            raise ValueError("not a normalised path")
        resolve_inside(root, rel)


def spend(ws: EditIndex, record: dict[str, Any]) -> None:
    """The newest step is spent (the undo lock held): off the history, its copies dropped."""
    folder = ws.state_dir / UNDO_DIR
    try:
        steps = read_steps(ws)
    except UndoRefused:
        steps = []
    if steps and steps[-1] == record:
        steps.pop()
    _save(folder, steps)
    _drop_copies(folder, record)
