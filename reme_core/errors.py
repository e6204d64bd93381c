"""Errors a caller can catch and show: each carries a message meant for a person."""

from __future__ import annotations


class RemeError(Exception):
    """Base of every error reme_core raises on purpose."""


class ConfigError(RemeError):
    """`reme.yaml` or an option is invalid (an unknown key, a wrong type)."""


class PathRefused(RemeError):
    """A path is absolute, escapes the workspace, or is otherwise not allowed."""


class FileRefused(RemeError):
    """A file cannot be indexed or read as asked (binary, too large, strict-mode encoding)."""


class RangeError(RemeError):
    """A requested line range does not fit the file."""


class NotIndexed(RemeError):
    """The path is not a file of this workspace's index."""


class EmbedderUnavailable(RemeError):
    """The embedding provider cannot be used; vector recall turns off and BM25 keeps working."""


def disk_full(exc: BaseException) -> bool:
    """Whether an error is a full disk or quota (``ENOSPC``/``EDQUOT``, SQLite's
    ``SQLITE_FULL``), anywhere in its chain: what a command must say in those words."""
    import errno
    import sqlite3

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(seen, sqlite3.Error) and (
            getattr(seen, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
            or "database or disk is full" in str(seen)
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


DISK_FULL = (
    "the disk is full (no space left on device): the index could not be written; "
    "the notes are untouched, free some space and run again"
)
