"""Derived state is data, never a path to follow: the one way state files are opened.

A workspace arrives by `git clone`, sync or zip, and its state folder (`metadata/`, or
`.reme-tui/` in a vault) with it: any entry there may be a symlink leading out, a FIFO that
blocks whoever opens it, a device or a folder. Every open of a journal, undo record, lock or
copy goes through here: `O_NOFOLLOW` (a symlink is refused, never followed), `O_NONBLOCK` (a
FIFO cannot hang the open) and a check that what was opened is a regular file; new files are
made with `O_CREAT|O_EXCL` only; folders are checked with `lstat` before anything is made in
them. A refused entry raises `NotRegular`, an `OSError` whose `strerror` says what it was.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import IO

from reme_core.processes import pid_alive
from reme_core.workspace_warning import WorkspaceWarning

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no cross-process locks, one process assumed
    fcntl = None  # type: ignore[assignment]

# Whether `flock_exclusive` locks anything here (POSIX); elsewhere it is a no-op.
CAN_LOCK = fcntl is not None
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# Never follow a final symlink, never wait for a FIFO's other end (absent on Windows).
SAFE_OPEN = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | SAFE_OPEN


class NotRegular(OSError):
    """A state entry that is not a plain file (or folder): never opened, written or followed."""

    def __init__(self, path: Path | str, what: str) -> None:
        super().__init__(errno.EPERM, f"{what}, not followed", str(path))


def kind_of(mode: int) -> str:
    """What an entry is, in words, for a refusal."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def open_fd(
    path: Path | str, flags: int = os.O_RDONLY, mode: int = 0o644, dir_fd: int | None = None
) -> int:
    """A descriptor of the regular file at `path` (never through a symlink, never blocking;
    relative to the folder `dir_fd` when given); `NotRegular` for anything else there.
    `flags` must not truncate: a file is only known to be regular once it is open."""
    try:
        fd = os.open(path, flags | SAFE_OPEN, mode, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink
            raise NotRegular(path, "a symbolic link") from None
        raise
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotRegular(path, kind_of(st.st_mode))
    return fd


def read_bytes(path: Path | str) -> bytes:
    """The whole regular file at `path` (see `open_fd`)."""
    with os.fdopen(open_fd(path), "rb") as fh:
        return fh.read()


def open_regular(path: Path) -> IO[bytes] | None:
    """``path`` opened for reading when it is a regular file, else None (a snapshot's reader:
    anything unusual is simply not used)."""
    try:
        return os.fdopen(open_fd(path), "rb")
    except OSError:
        return None


def create_new(path: Path | str, data: bytes, mode: int = 0o644, sync: bool = False) -> None:
    """Write a new file at `path`, which must not exist (`O_CREAT|O_EXCL`: no symlink or FIFO
    left there is ever written through). `mode` is applied exactly (not through the umask)."""
    fd = os.open(path, NEW_FILE, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
            os.fchmod(fh.fileno(), mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise


def flock_exclusive(fd: int, *, wait: bool = True) -> None:
    """An exclusive `flock` on a descriptor, held until it is closed (the one guard for
    platforms without `fcntl`: nothing is locked there). ``wait=False``: `BlockingIOError`
    when another process holds it."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)


def open_lock(path: Path | str, dir_fd: int | None = None) -> int:
    """A descriptor of the lock file at `path` (in the folder `dir_fd`), made if missing and
    never truncated. An entry that is not a regular file (a symlink, a FIFO) is ours to
    replace: removing the entry touches nothing it points at."""
    flags = os.O_RDWR | os.O_CREAT
    try:
        return open_fd(path, flags, dir_fd=dir_fd)
    except NotRegular:
        if stat.S_ISDIR(os.lstat(path, dir_fd=dir_fd).st_mode):
            raise
        os.unlink(path, dir_fd=dir_fd)
        return open_fd(path, flags | os.O_EXCL, dir_fd=dir_fd)


def _is_kind(path: Path | str, wanted: Callable[[int], bool]) -> bool:
    """Whether what is at `path` (not followed) passes `wanted`; False when nothing is;
    `NotRegular` for anything else."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not wanted(mode):
        raise NotRegular(path, kind_of(mode))
    return True


def check_folder(path: Path | str) -> bool:
    """Whether a real folder (not a symlink to one) is at `path`; False when nothing is;
    `NotRegular` for anything else."""
    return _is_kind(path, stat.S_ISDIR)


_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | _CLOEXEC


def _open_folder(name: Path | str, dir_fd: int | None) -> int:
    """A descriptor of the real folder `name` (in `dir_fd`); `NotRegular` for a symlink or
    anything else in its place."""
    try:
        return os.open(name, _FOLDER, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        raise NotRegular(name, kind_of(os.lstat(name, dir_fd=dir_fd).st_mode)) from None


def folder_fd(state_dir: Path, *parts: str, create: bool = True) -> int:
    """A descriptor of ``state_dir/parts…``, opened level by level under the descriptor of
    the level above (openat), each a real folder (made when missing and `create`): a
    symlinked state, `journal/` or `undo/` folder is refused, never written through, even
    if swapped in while we look. The caller closes it."""
    fd = _open_folder(state_dir, None)
    try:
        for part in parts:
            try:
                inner = _open_folder(part, fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
                inner = _open_folder(part, fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def state_folder(state_dir: Path, *parts: str, create: bool = True) -> Path:
    """``state_dir/parts…``, each level checked to be a real folder (`folder_fd`)."""
    os.close(folder_fd(state_dir, *parts, create=create))
    return state_dir.joinpath(*parts)


def lstat_regular(path: Path | str) -> bool:
    """Whether a regular file is at `path` (False when nothing is); `NotRegular` otherwise."""
    return _is_kind(path, stat.S_ISREG)


def remove_odd(state_dir: Path, expected: dict[str, bool]) -> list[WorkspaceWarning]:
    """Remove each entry ``state_dir/rel`` that is not what `expected` says (True: a real
    folder, False: a regular file); returns a warning for each. Only the entry goes (unlinking a
    symlink touches nothing it points at); a folder is never removed. Nothing is done when
    the state folder itself is not a real folder (the index is then in memory)."""
    try:
        if not check_folder(state_dir):
            return []
    except NotRegular:
        return []
    said = []
    for rel, is_dir in expected.items():
        path = state_dir / rel
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        if (stat.S_ISDIR(mode) if is_dir else stat.S_ISREG(mode)) or stat.S_ISDIR(mode):
            continue
        with contextlib.suppress(OSError):
            os.unlink(path)
            said.append(WorkspaceWarning("entry_removed", f"{state_dir.name}/{rel}", kind_of(mode)))
    return said


def remove_dead_temps(folder: Path | int, name: str) -> None:
    """Remove the ``name.<pid>.tmp`` files of writers that died between their write and
    their rename (their process is gone), in the real folder only (never through a
    symlink; a folder that cannot be opened is left as it is). ``folder``: its path, or a
    descriptor the caller holds open already."""
    if isinstance(folder, int):
        _remove_dead_temps_at(folder, name)
        return
    try:
        fd = folder_fd(folder, create=False)
    except OSError:
        return
    try:
        _remove_dead_temps_at(fd, name)
    finally:
        os.close(fd)


def _remove_dead_temps_at(fd: int, name: str) -> None:
    for entry in os.listdir(fd):
        pid = entry[len(name) + 1 : -len(".tmp")]
        temp = entry.startswith(f"{name}.") and entry.endswith(".tmp") and pid.isdigit()
        if temp and not pid_alive(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(entry, dir_fd=fd)
