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
import stat
from pathlib import Path

from reme_core.edit.folders import make_parents, remove_dirs
from reme_core.errors import RemeError
from reme_core.files.state_files import NotRegular, check_folder

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


def drop_second_name(a: Path, b: Path) -> None:
    """A `rename_no_replace` killed halfway (linked, not yet unlinked) left one file under
    both names (hard links of one regular file): drop the old name `a`, finishing it. A
    symlink to the file is no second name of it: following one would delete the note."""
    with contextlib.suppress(OSError):
        sa, sb = os.lstat(a), os.lstat(b)
        if stat.S_ISREG(sa.st_mode) and (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino):
            os.unlink(a)


def trash_name(rel: str, n: int) -> str:
    """The trash path of `rel` for the n-th attempt: `.trash/rel`, then `.trash/stem 1.ext`, …"""
    if n == 0:
        return f"{TRASH_DIR}/{rel}"
    folder, name = posixpath.split(rel)
    stem, ext = posixpath.splitext(name)
    if not stem:  # a name such as ".md" has no stem to number
        stem, ext = name, ""
    return posixpath.join(TRASH_DIR, folder, f"{stem} {n}{ext}")


def trash_slot(root: Path, rel: str) -> str:
    """The first free trash path for the workspace file `rel` (relative). Every folder of it
    that exists must be a real folder: a `.trash/` or `.trash/sub/` symlink could lead out of
    the workspace (or back into it), so the trash never moves a file through one."""
    folder = posixpath.dirname(trash_name(rel, 0))
    parts = folder.split("/")
    try:
        for depth in range(1, len(parts) + 1):
            check_folder(root.joinpath(*parts[:depth]))
    except NotRegular as exc:
        shown = Path(exc.filename).relative_to(root).as_posix()
        raise RemeError(f"{rel}: cannot move to {TRASH_DIR}/ ({shown} is {exc.strerror})") from None
    except OSError as exc:
        raise RemeError(f"{rel}: cannot move to {TRASH_DIR}/ ({exc.strerror})") from None
    for n in range(10_000):
        slot = trash_name(rel, n)
        if not os.path.lexists(root / slot):
            return slot
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
