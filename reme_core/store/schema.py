"""The store's schema and the checks made before SQLite opens a file as our database.

A workspace may ship any file where the index belongs, so nothing is opened through a
symlink or as a FIFO, and no statement touches a database whose tables are not exactly ours.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
import threading
from pathlib import Path

from reme_core.store.rows import StoreError

SCHEMA_VERSION = 3  # 2: files.tags; 3: the changes table (`watch`'s feed)
BUSY_MS = 15_000

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, mtime REAL NOT NULL, size INTEGER NOT NULL,
    hash TEXT NOT NULL, frontmatter TEXT NOT NULL, warnings TEXT NOT NULL, origin TEXT NOT NULL,
    tags TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, file_id INTEGER NOT NULL, seq INTEGER NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, prefix TEXT NOT NULL,
    body TEXT NOT NULL, suffix TEXT NOT NULL, term_ids BLOB NOT NULL, tfs BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE TABLE IF NOT EXISTS links (
    file_id INTEGER NOT NULL, seq INTEGER NOT NULL, target TEXT NOT NULL, anchor TEXT NOT NULL,
    line INTEGER NOT NULL, alias TEXT NOT NULL, embed INTEGER NOT NULL, raw TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS links_file ON links(file_id);
CREATE TABLE IF NOT EXISTS vocab (id INTEGER PRIMARY KEY, term TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (
    hash TEXT NOT NULL, model TEXT NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (hash, model));
CREATE TABLE IF NOT EXISTS changes (
    generation INTEGER NOT NULL, seq INTEGER NOT NULL, pid INTEGER NOT NULL, kind TEXT NOT NULL,
    path TEXT NOT NULL, chunks INTEGER NOT NULL, PRIMARY KEY (generation, seq));
"""
# Tables a newer version added: a database without them is an older version's.
_ADDED_LATER = frozenset({"changes", "sqlite_autoindex_changes_1"})


# What `sqlite_master` of one of our databases holds, made once from `SCHEMA` itself.
_EXPECTED: frozenset[tuple[str, str, str, str | None]] | None = None
_EXPECTED_LOCK = threading.Lock()
MASTER = "SELECT type, name, tbl_name, sql FROM sqlite_master"
# Files SQLite opens beside the database: each must be absent or a regular file.
_SIDECARS = ("", "-wal", "-shm", "-journal")


def _expected_schema() -> frozenset[tuple[str, str, str, str | None]]:
    global _EXPECTED
    with _EXPECTED_LOCK:
        if _EXPECTED is None:
            conn = sqlite3.connect(":memory:")
            conn.executescript(SCHEMA)
            _EXPECTED = frozenset(conn.execute(MASTER).fetchall())
            conn.close()
        return _EXPECTED


def check_state_file(path: Path | str) -> None:
    """Refuse a database path that SQLite must not open: a symlinked folder or file, a FIFO,
    a device, a folder. The database is derived state, and a hostile workspace may ship any.

    ``PermissionError`` when nothing in place may be touched (the folder is a symlink or
    read-only, or a folder stands where a file should): keep the index in memory.
    ``StoreError`` when the entry is ours to replace (a symlink, FIFO or socket named like
    the database or its log): removing the entry touches nothing it points at.
    """
    path = Path(path)
    folder = path.parent
    if folder.is_symlink():
        raise PermissionError(errno.EPERM, f"{folder.name} is a symbolic link, not followed")
    for suffix in _SIDECARS:
        try:
            mode = os.lstat(f"{path}{suffix}").st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISREG(mode):
            continue
        name = f"{path.name}{suffix}"
        if stat.S_ISDIR(mode):
            raise PermissionError(errno.EISDIR, f"{name} is a folder, not a database")
        raise StoreError(f"{name} is not a regular file")
    # A read-only folder or database (a workspace from a read-only mount, `chmod -w`): SQLite
    # could not even open its log, and nothing in it may be replaced.
    if folder.is_dir() and not (
        os.access(folder, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))
    ):
        raise PermissionError(errno.EACCES, "read-only")


def connect(path: Path | str) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=BUSY_MS / 1000, check_same_thread=False)
    conn.isolation_level = None
    conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")
    conn.execute("PRAGMA trusted_schema=OFF")
    return conn


def verify_schema(conn: sqlite3.Connection) -> None:
    """StoreError unless `sqlite_master` is exactly what `SCHEMA` makes.

    `trusted_schema=OFF` only stops functions with side effects: a foreign database's
    triggers would still run inside our transactions and its views would run in place of
    our tables. So nothing but our own tables and indexes, with our exact definitions.
    """
    found = frozenset(conn.execute(MASTER).fetchall())
    expected = _expected_schema()
    if found != expected:
        if not any(t == "table" and n == "meta" for t, n, _, _ in found):
            raise StoreError("database has no meta table")
        if {n for _, n, _, _ in found ^ expected} == {"files"}:
            raise StoreError("an index made by an older version (its files table differs)")
        if not found - expected and {n for _, n, _, _ in expected - found} <= _ADDED_LATER:
            raise StoreError("an index made by an older version (it has no changes table)")
        odd = [f"unexpected {t} {n}" for t, n, _, _ in sorted(found - expected)]
        missing = [f"no {t} {n} as expected" for t, n, _, _ in sorted(expected - found)]
        raise StoreError(f"not this program's schema ({', '.join(odd + missing)})")
