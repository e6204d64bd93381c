"""Which files belong to the index: memory layers or a whole vault, minus ignored paths."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import struct
import threading
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reme_core.config import Config
from reme_core.files.excludes import Excludes
from reme_core.files.paths import (
    CASELESS,
    METADATA_DIR,
    TEMP_ENDINGS,
    is_ignored,
    is_ignored_child,
    state_dir_name,
)
from reme_core.files.text_decode import shown_name, undecodable

WATCH_LAYERS = ("daily", "digest")
REINDEX_LAYERS = ("daily", "digest", "resource")


@dataclass(frozen=True, slots=True)
class FileStat:
    """What the start-up diff compares: modification time and size."""

    mtime: float
    size: int


@dataclass(frozen=True, slots=True)
class Scope:
    """The folders and suffixes a scan covers (`""` as a folder means the whole root), less
    the derived-state folder and the owner's excludes."""

    dirs: tuple[str, ...]
    suffixes: tuple[str, ...]
    state_dir: str = METADATA_DIR
    excludes: Excludes | None = field(default=None, compare=False)

    def ignores(self, relpath: str) -> bool:
        """Ignored whatever the folders: state, dot-paths, temp files, the owner's excludes."""
        if is_ignored(relpath, self.state_dir):
            return True
        return self.excludes is not None and self.excludes.excludes(relpath)

    def covers(self, relpath: str) -> bool:
        """Whether a workspace-relative path is inside this scope."""
        if not relpath.endswith(self.suffixes) or self.ignores(relpath):
            return False
        return any(d == "" or relpath == d or relpath.startswith(d + "/") for d in self.dirs)


def scopes_for(root: Path, config: Config) -> tuple[str, Scope, Scope]:
    """(mode, live/start-up scope, rebuild scope) for a workspace (SPEC §1)."""
    mode = config.resolved_mode(root)
    state = state_dir_name(mode)
    # A vault's .gitignore is its owner's word on what is not notes; a ReMe workspace has none.
    excludes = Excludes.for_workspace(root, config.exclude, gitignore=mode == "vault")
    watch_dirs: Sequence[str]
    rebuild_dirs: Sequence[str]
    if mode == "memory":
        watch_dirs, suffixes = config.watch_dirs or WATCH_LAYERS, config.watch_suffixes
        rebuild_dirs, rebuild_suffixes = (
            config.reindex_dirs or REINDEX_LAYERS,
            config.reindex_suffixes,
        )
    else:
        watch_dirs, suffixes = config.watch_dirs or ("",), config.watch_suffixes
        rebuild_dirs, rebuild_suffixes = config.reindex_dirs or ("",), config.watch_suffixes
    watch = Scope(tuple(watch_dirs), tuple(suffixes), state, excludes)
    rebuild = Scope(tuple(rebuild_dirs), tuple(rebuild_suffixes), state, excludes)
    return mode, watch, rebuild


class Found(dict[str, FileStat]):
    """What `scan` returns: path -> stat, plus the names it left out because they are not
    valid UTF-8 (`shown_name`: escaped), so that a warning can name them."""

    __slots__ = ("undecodable",)

    def __init__(self) -> None:
        super().__init__()
        self.undecodable: list[str] = []


@dataclass(slots=True)
class Listing:
    """A walk's files as parallel lists (no object per file: the start-up diff of 50k files
    compares these as they are), and the names it left out as `Found.undecodable`."""

    paths: list[str] = field(default_factory=list)
    mtimes: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    undecodable: list[str] = field(default_factory=list)

    def found(self) -> Found:
        """The same files as path -> `FileStat`."""
        found = Found()
        found.update(zip(self.paths, map(FileStat, self.mtimes, self.sizes), strict=True))
        found.undecodable = list(self.undecodable)
        return found


def scan(
    root: Path, scope: Scope, *, when_many: tuple[int, Callable[[], None]] | None = None
) -> Found:
    """Walk the scope's folders; follow symlinks only while their real path stays inside.

    ``when_many`` is (n, fn): ``fn`` is called once, as soon as n files are found (a rebuild
    starts its process pool's server then, so it loads while the walk goes on).
    """
    return list_files(root, scope, when_many=when_many).found()


def list_files(
    root: Path, scope: Scope, *, when_many: tuple[int, Callable[[], None]] | None = None
) -> Listing:
    """`scan` as a `Listing`."""
    real_root = root.resolve()
    found = Listing()
    seen_dirs: set[tuple[int, int]] = set()
    hook = [when_many] if when_many is not None else []
    for top in sorted(set(scope.dirs)):
        start = root / top if top else root
        if top and (scope.ignores(top) or _excluded_dir(scope, top)):
            continue  # every path below it is ignored
        if start.is_dir():
            _walk(str(start), top, real_root, scope, found, seen_dirs, hook)
    if hook and len(found.paths) >= hook[0][0]:  # reached in the last folder walked
        hook.pop()[1]()
    return found


def _excluded_dir(scope: Scope, rel: str) -> bool:
    return scope.excludes is not None and scope.excludes.excludes(rel, is_dir=True)


def _inside(real_root: Path, path: str) -> bool:
    try:
        real = Path(path).resolve()
    except (OSError, RuntimeError):
        return False
    return real == real_root or real_root in real.parents


# Folders are walked by descriptor where the platform allows: each file's `stat` then names
# it relative to its open folder (`fstatat`), not by a path the kernel resolves from the
# root again (with the temp-name test by strings, the 50k walk went 0.40 -> 0.33 s).
_BY_FD = os.scandir in os.supports_fd and os.open in os.supports_dir_fd
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _walk(
    folder: str,
    rel: str,
    real_root: Path,
    scope: Scope,
    found: Listing,
    seen_dirs: set[tuple[int, int]],
    hook: list[tuple[int, Callable[[], None]]],
    fd: int | None = None,
) -> None:
    """One folder, then its subfolders depth-first, in directory order; ``fd``: the folder
    opened already (closed here).

    Plain strings and `DirEntry` data (the type from the directory listing, one `stat` per
    kept file): the walk of 50k files in 7k folders is most of the start-up diff.
    """
    if hook and len(found.paths) >= hook[0][0]:
        hook.pop()[1]()
    try:
        if fd is None and _BY_FD:
            fd = os.open(folder, _DIR_FLAGS)
        info = os.fstat(fd) if fd is not None else os.stat(folder)
        key = (info.st_dev, info.st_ino)
        if key in seen_dirs:
            return
        seen_dirs.add(key)
        with os.scandir(fd if fd is not None else folder) as listing:
            entries = list(listing)
        _entries(entries, folder, rel, fd, real_root, scope, found, seen_dirs, hook)
    except OSError:
        return
    finally:
        if fd is not None:
            os.close(fd)


def _entries(
    entries: list[os.DirEntry[str]],
    folder: str,
    rel: str,
    fd: int | None,
    real_root: Path,
    scope: Scope,
    found: Listing,
    seen_dirs: set[tuple[int, int]],
    hook: list[tuple[int, Callable[[], None]]],
) -> None:
    """The entries of one listed folder: its files kept, its subfolders walked."""
    # `rel` is not ignored and lies inside one of the scope's folders, so for the entries
    # below only their own name and suffix need testing (what `scope.covers` would add).
    prefix = f"{rel}/" if rel else ""
    suffixes, state_dir, excludes = scope.suffixes, scope.state_dir, scope.excludes
    paths, mtimes, sizes = found.paths, found.mtimes, found.sizes
    for entry in entries:
        name = entry.name
        # Most names cannot be ignored: only those the cheap test lets through are asked
        # (all of them where names compare caselessly: the endings are lower case).
        if (
            CASELESS or name[0] in ".#" or name.endswith(TEMP_ENDINGS) or name == "4913" or not rel
        ) and is_ignored_child(rel, name, state_dir):
            continue
        try:
            if not name.isascii() and undecodable(name):  # no path of it could be stored
                if name.endswith(suffixes) or entry.is_dir():
                    found.undecodable.append(shown_name(prefix + name))
                continue
            if entry.is_symlink() and not _inside(real_root, f"{folder}/{name}"):
                continue
            if entry.is_dir():
                if excludes is None or not excludes.excludes(prefix + name, is_dir=True):
                    sub = os.open(name, _DIR_FLAGS, dir_fd=fd) if fd is not None else None
                    _walk(
                        f"{folder}/{name}",
                        prefix + name,
                        real_root,
                        scope,
                        found,
                        seen_dirs,
                        hook,
                        sub,
                    )
            elif name.endswith(suffixes) and entry.is_file():
                if excludes is not None and excludes.excludes(prefix + name):
                    continue
                st = entry.stat()
                paths.append(prefix + name)
                mtimes.append(st.st_mtime)
                sizes.append(st.st_size)
        except OSError:
            continue


class ScanAhead:
    """A scan started now in a forked child and collected later (the start-up diff's walk).

    Opening a large workspace is two independent halves: loading the index (numpy and JSON)
    and walking the folders (``scandir`` + ``stat``). On a second core the walk is free. Only
    a single-threaded process forks (a child of a threaded one could inherit a held lock);
    otherwise, or if anything fails, `result` walks here. The walk is a little older than the
    loaded index, so the diff re-checks the files it calls deleted.
    """

    def __init__(self, root: Path, scope: Scope) -> None:
        self.root, self.scope = root, scope
        self._pid, self._fd = 0, -1
        if not hasattr(os, "fork") or threading.active_count() != 1:
            return
        try:
            read_fd, write_fd = os.pipe()
        except OSError:
            return
        try:
            pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            return
        if pid == 0:  # the child: walk, send, and leave without running any exit handler
            code = 1
            # No collection in the child: it would write to the header of every object it
            # inherited, copying the parent's pages (15k faults, half the walk's system time);
            # the walk makes no cycles.
            gc.disable()
            try:
                os.close(read_fd)
                with os.fdopen(write_fd, "wb") as out:
                    out.write(_encode(list_files(root, scope)))
                code = 0
            finally:
                os._exit(code)
        os.close(write_fd)
        self._pid, self._fd = pid, read_fd

    @classmethod
    def reuse(cls, walk: ScanAhead | None, root: Path, scope: Scope) -> ScanAhead:
        """``walk`` when it walks these folders (`walk_ahead` started it early), else a walk
        started now (and ``walk`` stopped)."""
        if walk is not None and walk.root == root and walk.scope == scope:
            return walk
        cls.drop(walk)
        return cls(root, scope)

    @staticmethod
    def drop(walk: ScanAhead | None) -> None:
        """Stop a walk that will not be used (none: nothing to do)."""
        if walk is not None:
            walk.close()

    @property
    def forked(self) -> bool:
        """Whether the walk runs in a child (else `result` walks in this process)."""
        return self._pid != 0

    def result(self) -> Listing:
        """What `list_files(root, scope)` returns, from the child when it succeeded."""
        if self._pid:
            pid, self._pid = self._pid, 0
            try:
                with os.fdopen(self._fd, "rb") as pipe:
                    data = pipe.read()
                _, status = os.waitpid(pid, 0)
                if os.waitstatus_to_exitcode(status) == 0:
                    return _decode(data)
            except (OSError, ValueError):
                pass
        return list_files(self.root, self.scope)

    def close(self) -> None:
        """Stop and reap the child if `result` was never asked for (idempotent)."""
        if self._pid:
            pid, self._pid = self._pid, 0
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.close(self._fd)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


_HEADER = struct.Struct("<3q")


def _encode(found: Listing) -> bytes:
    """Paths (NUL-separated, UTF-8), float64 mtimes, int64 sizes, then the names left out."""
    names = "\0".join(found.paths).encode("utf-8")
    left_out = "\0".join(found.undecodable).encode("utf-8")
    header = _HEADER.pack(len(found.paths), len(names), len(left_out))
    mtimes, sizes = array("d", found.mtimes).tobytes(), array("q", found.sizes).tobytes()
    return header + names + mtimes + sizes + left_out


def _decode(data: bytes) -> Listing:
    n, n_names, n_left_out = _HEADER.unpack_from(data)
    at = _HEADER.size + n_names
    if min(n, n_names, n_left_out) < 0 or len(data) != at + 16 * n + n_left_out:
        raise ValueError("truncated scan result")
    found = Listing()
    if n_left_out:
        found.undecodable = data[at + 16 * n :].decode("utf-8").split("\0")
    if not n:
        return found
    found.paths = data[_HEADER.size : at].decode("utf-8").split("\0")
    if len(found.paths) != n:
        raise ValueError("a scan result of another length")
    mtimes, sizes = array("d"), array("q")
    mtimes.frombytes(data[at : at + 8 * n])
    sizes.frombytes(data[at + 8 * n : at + 16 * n])
    found.mtimes, found.sizes = mtimes.tolist(), sizes.tolist()
    return found
