"""Opening a workspace's index: the state folder, its database, and when to rebuild.

A database built with other settings, or none at all, is rebuilt (once across processes:
the others wait on the state lock, then load what was built); a damaged one is rebuilt from
the files with a warning; a state folder that cannot be used leaves the index in memory.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from reme_core.errors import RemeError, disk_full
from reme_core.files.paths import METADATA_DIR, normalize_relpath
from reme_core.files.state_files import create_new
from reme_core.indexing.db_files import remove_db, remove_stale_rebuilds
from reme_core.indexing.live_index import DB_NAME, IndexPlace, LiveIndex
from reme_core.indexing.state_lock import StateLock
from reme_core.store.database import Store, StoreError, retry_busy
from reme_core.workspace_warning import Warn, WorkspaceWarning

# Rebuilds `LiveIndex` from the files (the workspace's `reindex`).
Reindex = Callable[[LiveIndex], object]


def open_live_index(
    place: IndexPlace,
    state_lock: StateLock,
    reindex: Reindex,
    warn: Warn,
) -> LiveIndex:
    """The workspace's index, loaded, or built by `reindex` when it must be."""
    state = place.state_dir.name
    db = place.db_path
    if db == ":memory:":
        what = "symlink" if place.state_dir.is_symlink() else "file"
        warn(WorkspaceWarning("state_not_folder", state, what))
        return _rebuilt(LiveIndex(place, Store(":memory:")), reindex)
    assert isinstance(db, Path)
    live: LiveIndex | None = None
    try:
        make_state_dir(place, warn)
        remove_stale_rebuilds(db)
        live = LiveIndex(place, retry_busy(lambda: Store(db)))
        if live.stale_reason() is not None:
            # Another process may be building it right now: wait, then use what it built.
            waited = lambda: warn(WorkspaceWarning("waited_for_build"))  # noqa: E731
            with state_lock.held(waited):
                reason = live.stale_reason()
                if reason is not None:
                    if reason:
                        warn(WorkspaceWarning("settings_changed"))
                    return _rebuilt(live, reindex)
        missing = _mostly_missing(live.store, place.root)
        if missing:
            warn(WorkspaceWarning("mostly_missing", str(db.relative_to(place.root)), count=missing))
            with state_lock.held():
                return _rebuilt(live, reindex)
        retry_busy(live.load)
        return live
    except StoreError as exc:
        warn(WorkspaceWarning("damaged", str(db.relative_to(place.root)), str(exc)))
        if live is not None:
            live.store.close()
        remove_db(db)
        return _rebuilt(LiveIndex(place, retry_busy(lambda: Store(db))), reindex)
    except (OSError, sqlite3.Error) as exc:
        # A read-only mount, a folder we may not write, a full disk: not the index's fault,
        # and nothing to fix by deleting it; this run searches an index built in memory.
        if disk_full(exc):
            why = WorkspaceWarning("disk_full")
        elif isinstance(exc, OSError) and (
            isinstance(exc, PermissionError) or exc.errno == errno.EROFS
        ):
            why = WorkspaceWarning("unwritable", state, str(exc.strerror))
        else:
            raise
        if live is not None:
            live.store.close()
        warn(why)
        return _rebuilt(LiveIndex(place, Store(":memory:")), reindex)


# A store listing more files than this, most of them missing on disk, is rebuilt from the
# files instead of loaded: loading costs per stored row (a junk store of 300k rows took
# minutes to load and diff), a rebuild per file on disk.
MANY_FILES = 10_000
_SAMPLE = 64


def _mostly_missing(store: Store, root: Path) -> int:
    """How many files the store lists when it is not worth loading (0 when it is): many,
    and most of a sample of them do not exist (a bounded check: a count and 64 look-ups)."""
    count, paths = retry_busy(lambda: store.sample_paths(_SAMPLE))
    if count <= MANY_FILES or not paths:
        return 0
    absent = 0
    for path in paths:
        try:
            os.lstat(root / normalize_relpath(path))
        except (OSError, RemeError):
            absent += 1
    if absent * 4 <= len(paths) * 3:
        return 0
    return int(count)


def _rebuilt(live: LiveIndex, reindex: Reindex) -> LiveIndex:
    reindex(live)
    return live


def make_state_dir(place: IndexPlace, warn: Warn) -> None:
    """Create the state folder; in a vault, hidden and kept out of git, and an index that
    an older version left in the vault's `metadata/` is moved into it."""
    state = place.state_dir
    legacy = place.root / METADATA_DIR
    if place.mode == "vault" and not state.exists() and adopt_vault_index(legacy, state):
        warn(WorkspaceWarning("index_moved", METADATA_DIR, state.name))
    state.mkdir(parents=True, exist_ok=True)
    if place.mode == "vault":
        # made once; whatever has the name stays (a symlink there is never written through)
        with contextlib.suppress(OSError):
            create_new(state / ".gitignore", _GITIGNORE)


_GITIGNORE = b"# reme-tui's derived state: rebuilt from the notes\n*\n"
_LEGACY_STATE = ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "bm25-postings.npz")


def adopt_vault_index(legacy: Path, state: Path) -> bool:
    """Move our index out of a vault's `metadata/` (where versions before 0.2 kept it) into
    the hidden state folder; True when moved. Only a real folder holding a database with our
    meta table counts: a user's own `metadata/index.sqlite` is left alone. A killed rebuild's
    copy goes along, to be removed by the open as any other."""
    db = legacy / DB_NAME
    try:
        if legacy.is_symlink() or not db.is_file() or db.is_symlink():
            return False
        conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
        try:
            conn.execute("PRAGMA trusted_schema=OFF")
            ours = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        return False
    if not ours:
        return False
    try:
        state.mkdir(parents=True, exist_ok=True)
        for name in _LEGACY_STATE:
            if (legacy / name).is_file():
                os.replace(legacy / name, state / name)
    except OSError:
        return False
    for leftover in legacy.glob(f"{DB_NAME}.rebuild-*"):  # a killed rebuild's copy
        with contextlib.suppress(OSError):
            os.replace(leftover, state / leftover.name)
    with contextlib.suppress(OSError):
        legacy.rmdir()  # only when empty: anything else in it is the owner's
    return True
