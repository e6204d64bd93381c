"""The journal of one operation on disk, and the names and file helpers its writers share.

`<id>.json` names every temp file before one exists; `<id>.commit` and `<id>.abort` mark the
replace phase and a rollback; `<id>/` holds the old files' copies. The writing process keeps
an `flock` on the journal, so recovery (`journal_recovery`) leaves a live operation alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from reme_core.files import state_files
from reme_core.files.state_files import NEW_FILE, create_new, flock_exclusive, state_folder
from reme_core.indexing.state_lock import LOCK_NAME
from reme_core.workspace_warning import WorkspaceWarning

JOURNAL_DIR = "journal"
TEMP_SUFFIX = ".reme-tmp"
REFUSED_SUFFIX = ".refused"  # a journal recovery would not follow, set aside (never retried)
TEMPS_ONLY = frozenset({"write", "new"})  # kinds whose journal only names a temp file
UNDO_DIR = "undo"  # the undo record and its copies (`undo`)
UNDO_RECORD = "last.json"
UNDO_LOCK = ".lock"


def journals_left(state_dir: Path) -> bool:
    """Whether a journal folder holds anything: what an open checks before it imports and
    runs the recovery (`journal_recovery`), which then finds out what is left to do."""
    try:
        names = os.listdir(state_dir / JOURNAL_DIR)
    except OSError:
        return False
    return any(not name.endswith(REFUSED_SUFFIX) for name in names)


def tidy_state(state_dir: Path) -> list[WorkspaceWarning]:
    """At open: entries of the state folder that are not what we make there (a symlinked
    `undo/`, a FIFO named like the undo record or a lock) are removed, never followed; one
    warning each. A folder where a file belongs is left (then that file is refused)."""
    expected = {
        JOURNAL_DIR: True,
        UNDO_DIR: True,
        f"{UNDO_DIR}/{UNDO_RECORD}": False,
        f"{UNDO_DIR}/{UNDO_LOCK}": False,
        LOCK_NAME: False,
    }
    return state_files.remove_odd(state_dir, expected)


def temp_name(rel: str, op_id: str, n: int) -> str:
    """The temp file beside `rel`: a dot name (ignored by the index) that names its journal."""
    folder, _, name = rel.rpartition("/")
    temp = f".{name[:80]}.{op_id}.{n}{TEMP_SUFFIX}"
    return f"{folder}/{temp}" if folder else temp


def back_name(temp: str) -> str:
    """The temp file a rollback writes through (named after the operation's own temp)."""
    return temp[: -len(TEMP_SUFFIX)] + "b" + TEMP_SUFFIX


def new_id() -> str:
    """A fresh operation id (its journal's name, and part of each of its temp names)."""
    return os.urandom(6).hex()  # 48 random bits, as uuid4's first 12 digits (no uuid import)


def record(
    op_id: str,
    kind: str,
    label: str,
    info: Mapping[str, Any],
    files: list[tuple[str, str]],
    renames: list[tuple[str, str]],
) -> dict[str, Any]:
    """A journal's record: what recovery needs to finish or undo the operation (`files`:
    each file's path and temp name)."""
    return {
        "version": 1,
        "id": op_id,
        "pid": os.getpid(),
        "kind": kind,
        "label": label,
        "info": dict(info),
        "files": [{"path": path, "temp": temp} for path, temp in files],
        "renames": [list(r) for r in renames],
    }


@contextlib.contextmanager
def temp_journal(state_dir: Path, kind: str, label: str, rel: str) -> Iterator[str]:
    """The name of one temp file beside `rel`, named in a journal before it exists (a `kind`
    of `TEMPS_ONLY`): a kill leaves the journal, and the next open removes the temp file.
    Without a usable state folder (read-only, a symlink) the name is given all the same."""
    journal = Journal(state_dir / JOURNAL_DIR, new_id())
    temp = temp_name(rel, journal.id, 0)
    try:
        journal.create(record(journal.id, kind, label, {}, [(rel, temp)], []))
        kept = True
    except OSError:
        kept = False
    try:
        yield temp
    finally:
        if kept:
            journal.remove()


class Journal:
    """The files of one journaled operation under `ws.state_dir/journal/`."""

    def __init__(self, folder: Path, op_id: str) -> None:
        self.folder = folder
        self.id = op_id
        self.path = folder / f"{op_id}.json"
        self.blobs = folder / op_id
        self.lock: IO[bytes] | None = None

    def marker(self, name: str) -> Path:
        return self.folder / f"{self.id}.{name}"

    def blob(self, n: int, late: bool = False) -> Path:
        """The old bytes of file n (`late`: of its later replaces, for the check only)."""
        return self.blobs / (f"{n}.late" if late else str(n))

    def create(self, record: dict[str, Any]) -> None:
        """Write the journal atomically, locked before it gets its name; then its copy folder.
        The state and journal folders must be real folders (`state_folder`)."""
        state_folder(self.folder.parent, self.folder.name)
        tmp = self.folder / f".{self.id}.json.tmp"
        # stays open: its lock marks the operation live
        fh = os.fdopen(os.open(tmp, NEW_FILE, 0o644), "wb")
        try:
            flock_exclusive(fh.fileno(), wait=False)
            fh.write(json.dumps(record, ensure_ascii=False).encode())
            fh.flush()
            os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            self.lock = fh
            fsync_dir(self.folder)
            self.blobs.mkdir()
        except BaseException:
            self.remove()
            fh.close()
            remove_file(tmp)
            raise

    def mark(self, name: str) -> None:
        """Create a marker durably (the phase recovery goes by)."""
        create_new(self.marker(name), b"", sync=True)
        fsync_dir(self.folder)

    def remove(self) -> None:
        """Delete the journal: the journal file first, so from then on the operation is over
        for recovery; markers and copies left by a kill right after are orphans it removes."""
        remove_file(self.path)
        self.remove_orphans()
        if self.lock is not None:
            self.lock.close()
            self.lock = None

    def remove_orphans(self) -> None:
        """The markers and copies of an operation whose journal file is gone."""
        for name in ("commit", "abort"):
            remove_file(self.marker(name))
        if os.path.isdir(self.blobs) and not os.path.islink(self.blobs):
            shutil.rmtree(self.blobs, ignore_errors=True)
        else:  # a symlink or FIFO in its place: the entry goes, never what it points at
            remove_file(self.blobs)


# -- small file helpers -----------------------------------------------------------------------
def write_file(path: Path, data: bytes, mode: int) -> None:
    """Write a whole temp file afresh with the given permission bits: whatever had its name
    is unlinked first (a symlink or FIFO is never written through: `create_new`)."""
    remove_file(path)
    create_new(path, data, mode)


def remove_file(path: Path) -> None:
    """Unlink, where it still exists."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def fsync_dir(folder: Path) -> None:
    """Make a name change in `folder` durable (where the platform allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
