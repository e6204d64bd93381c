"""The database's files in the state folder: removed log first, and rebuild copies left by
processes that died removed (kept while their process lives)."""

from __future__ import annotations

import contextlib
import errno
from pathlib import Path

from reme_core.indexing.live_index import DB_NAME
from reme_core.processes import pid_alive


def remove_db(db: Path) -> None:
    """Delete a database and its log (the log first: never an old log beside a new file)."""
    if db.parent.is_symlink():  # never delete through one: it may be another program's
        raise PermissionError(errno.EPERM, f"{db.parent.name} is a symbolic link")
    for suffix in ("-wal", "-shm", ""):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{db}{suffix}").unlink()


def remove_stale_rebuilds(db: Path) -> None:
    """Delete rebuild files left by processes that died mid-rebuild."""
    for leftover in db.parent.glob(f"{DB_NAME}.rebuild-*"):
        # index.sqlite.rebuild-<pid>, and its -wal, -shm or -journal beside it
        pid = leftover.name[len(DB_NAME) + len(".rebuild-") :].split("-", 1)[0]
        if not pid.isdigit() or pid_alive(int(pid)) or not leftover.is_file():
            continue
        with contextlib.suppress(OSError):
            leftover.unlink()
