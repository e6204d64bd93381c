"""The workspace's trash: a deleted note goes to `.trash/` at the root, keeping its relative path.

Obsidian's convention (its "move to .trash" setting), so a vault's trash holds notes from both
programs. A dot-folder, so the index ignores it. Nothing here ever overwrites a file: a name
already taken in the trash gets a numeric suffix, and a restore refuses a path that exists.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
from pathlib import Path

from reme_core.edit.folders import make_parents, remove_dirs
from reme_core.errors import RemeError
from reme_core.files.paths import resolve_inside

TRASH_DIR = ".trash"
# errno values for which a hard link cannot stand in for an atomic no-replace rename.
_NO_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS}


def rename_no_replace(src: Path, dst: Path) -> None:
    """Rename `src` to `dst`, raising `FileExistsError` rather than replacing `dst`.

    `os.rename` silently replaces an existing file, so a link-then-unlink makes the check and
    the rename one step; file systems without hard links fall back to check-then-rename.
    """
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in _NO_LINKS:
            raise
        if os.path.lexists(dst):
            raise FileExistsError(errno.EEXIST, "File exists", str(dst)) from None
        os.rename(src, dst)
        return
    try:
        os.unlink(src)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(dst)
        raise


def trash_name(rel: str, n: int) -> str:
    """The trash path of `rel` for the n-th attempt: `.trash/rel`, then `.trash/stem 1.ext`, …"""
    if n == 0:
        return f"{TRASH_DIR}/{rel}"
    folder, name = posixpath.split(rel)
    stem, ext = posixpath.splitext(name)
    if not stem:  # a name such as ".md" has no stem to number
        stem, ext = name, ""
    return posixpath.join(TRASH_DIR, folder, f"{stem} {n}{ext}")


def move_to_trash(root: Path, rel: str) -> str:
    """Move the workspace file `rel` into the trash; returns its trash path (relative)."""
    made: list[Path] = []
    try:
        resolve_inside(root, TRASH_DIR)  # a `.trash` symlink leading out is refused
        made = make_parents(root, trash_name(rel, 0))
        for n in range(10_000):
            slot = trash_name(rel, n)
            try:
                rename_no_replace(root / rel, root / slot)
            except FileExistsError:
                continue
            return slot
    except OSError as exc:
        remove_dirs(made)
        raise RemeError(f"{rel}: cannot move to {TRASH_DIR}/ ({exc.strerror})") from None
    raise RemeError(f"{rel}: {TRASH_DIR}/ holds too many files of that name")


def restore_from_trash(root: Path, slot: str, rel: str) -> None:
    """Put a trashed file back at `rel` (never over an existing file); prune empty folders."""
    made: list[Path] = []
    try:
        made = make_parents(root, rel)
        rename_no_replace(root / slot, root / rel)
    except OSError as exc:
        remove_dirs(made)
        raise RemeError(f"{slot}: cannot restore to {rel} ({exc.strerror})") from None
    folder = posixpath.dirname(slot)
    while folder and folder != TRASH_DIR:
        try:
            (root / folder).rmdir()
        except OSError:
            break
        folder = posixpath.dirname(folder)
