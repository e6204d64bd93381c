"""What each folder held at the last walk, so an unchanged folder is not read again.

The start-up diff walks every folder: at 50k files in 7k folders that is ~130k system calls,
three in five of them for the folders (open, duplicate, list, rewind, close). A folder's
modification time changes when an entry is added, removed or renamed in it, so a folder whose
identity and times are those of the last walk holds the same names: the walk then only
`stat`s its files (a file edited in place changes no folder, so each kept file is still
looked at).

Git's racy-clean rule applies: a folder changed within `RACY_NS` of its listing could change
again within the same clock tick without its time moving, so it is not kept (it is read
again next time). Folders whose listing held a symlink, a name left out or an error are not
kept either: what made them so can change without the folder's time moving.

The cache is derived state (``<state>/folders.cache``) a stranger's clone may carry: it is
read only as a regular file of bounded size, a record only counts for the very folder it was
made from (device, inode and both times), and the walk refuses a name holding a slash, so
nothing outside the folder opened is ever named through it. Anything odd: the walk reads every
folder.
"""

from __future__ import annotations

import contextlib
import os
import struct
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from operator import add
from pathlib import Path

from reme_core.files.state_files import NEW_FILE, folder_fd, open_fd, remove_dead_temps

CACHE_NAME = "folders.cache"
_MAGIC = b"reme-folders 3\n"
# After the magic: the number of folders, the bytes of their rels and of their names; then
# per folder its device and inode (unsigned), and its mtime_ns, ctime_ns, number of files
# and of subfolders (signed), 64 bits each; then the fingerprint and the rels, then each
# folder's files and subfolders, all NUL-separated.
_HEAD = struct.Struct("<3q")
_IDS, _TIMES = 2, 4  # unsigned and signed numbers per folder
RACY_NS = 3_000_000_000  # above the coarsest common clock tick (FAT: 2 s)
_MAX_BYTES = 128 << 20
# A folder's identity: (device, inode, mtime_ns, ctime_ns).
Identity = tuple[int, int, int, int]
# A folder's kept files and subfolders to walk, in directory order.
Names = tuple[Sequence[str], Sequence[str]]


@dataclass(slots=True)
class _Loaded:
    """The folders read from the cache, as columns (folder i's files are ``names[first[i] :
    first[i] + files[i]]``, its subfolders the ``subs[i]`` names after them)."""

    index: dict[str, int] = field(default_factory=dict)
    ids: list[Identity] = field(default_factory=list)
    files: list[int] = field(default_factory=list)
    subs: list[int] = field(default_factory=list)
    first: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)


class FolderCache:
    """The folders recorded by the last walk, and those this walk records (`save` writes
    them when they differ)."""

    def __init__(self, state: Path, fingerprint: str, loaded: _Loaded | None = None) -> None:
        self.state, self.fingerprint = state, fingerprint
        self.loaded = loaded or _Loaded()
        self.kept: dict[str, tuple[Identity, Names]] = {}
        self.hits = 0
        self._changed = False

    @classmethod
    def load(cls, root: Path, state_dir: str, fingerprint: str) -> FolderCache:
        """The cache of the workspace at ``root`` (empty when there is none, or it is not
        usable: another scope, another format, damaged, odd)."""
        state = root / state_dir
        with contextlib.suppress(OSError, ValueError):
            return cls(state, fingerprint, _parse(_read(state), fingerprint))
        return cls(state, fingerprint)

    def names(self, rel: str, st: os.stat_result) -> Names | None:
        """The files and subfolders kept of the folder ``rel`` (stat ``st``) when it is
        unchanged since they were recorded; None when it must be read."""
        c = self.loaded
        i = c.index.get(rel)
        if i is None:
            return None
        identity = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        if identity != c.ids[i]:
            return None
        at, mid = c.first[i], c.first[i] + c.files[i]
        names = (c.names[at:mid], c.names[mid : mid + c.subs[i]])
        self.kept[rel] = (identity, names)
        self.hits += 1
        return names

    def keep(
        self, rel: str, st: os.stat_result, files: Sequence[str], subs: Sequence[str], at: int
    ) -> None:
        """Remember what the folder ``rel`` held when read at ``at`` (ns; unless it changed
        too recently to be sure it cannot change unseen)."""
        self._changed = True
        identity = _identity(st)
        if st.st_mtime_ns < at - RACY_NS and _fits(identity):
            self.kept[rel] = (identity, (files, subs))

    def forget(self, rel: str) -> None:
        """Not keep the folder ``rel`` (it was found changed after all)."""
        self._changed = True
        self.kept.pop(rel, None)

    def save(self) -> None:
        """Write the records of this walk when they differ from those read (atomically;
        errors are ignored: the cache only saves time)."""
        if not self._changed and self.hits == len(self.loaded.index):
            return
        ids, numbers = array("Q"), array("q")
        names: list[str] = []
        for (dev, ino, mtime, ctime), (files, subs) in self.kept.values():
            ids += array("Q", (dev, ino))
            numbers += array("q", (mtime, ctime, len(files), len(subs)))
            names += files
            names += subs
        rels = "\0".join([self.fingerprint, *self.kept]).encode("utf-8")
        joined = "\0".join(names).encode("utf-8")
        head = _HEAD.pack(len(self.kept), len(rels), len(joined))
        data = b"".join([_MAGIC, head, ids.tobytes(), numbers.tobytes(), rels, b"\0", joined])
        with contextlib.suppress(OSError, ValueError):
            _write(self.state, data)


def _identity(st: os.stat_result) -> Identity:
    return st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns


def _fits(identity: Identity) -> bool:
    """Whether the identity fits the file's 64-bit fields (times past 2262 do not)."""
    dev, ino, mtime, ctime = identity
    unsigned = min(dev, ino) >= 0 and max(dev, ino) < 1 << 64
    return unsigned and min(mtime, ctime) >= -(1 << 63) and max(mtime, ctime) < 1 << 63


def _read(state: Path) -> bytes:
    """The cache's bytes: a regular file (never through a symlink, never a FIFO) in the real
    state folder, of bounded size."""
    dir_fd = folder_fd(state, create=False)
    try:
        fd = open_fd(CACHE_NAME, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    with os.fdopen(fd, "rb") as fh:
        if os.fstat(fh.fileno()).st_size > _MAX_BYTES:
            raise ValueError("too large")
        return fh.read(_MAX_BYTES + 1)


def _parse(data: bytes, fingerprint: str) -> _Loaded:
    """The folders of a cache's bytes; ValueError when they are damaged."""
    at = len(_MAGIC) + _HEAD.size
    if not data.startswith(_MAGIC) or len(data) < at:
        raise ValueError("not a folder cache")
    count, n_rels, n_names = _HEAD.unpack_from(data, len(_MAGIC))
    ids_end = at + 8 * _IDS * count
    numbers_end = ids_end + 8 * _TIMES * count
    if min(count, n_rels, n_names) < 0 or numbers_end + n_rels + 1 + n_names != len(data):
        raise ValueError("a damaged folder cache")
    rels = data[numbers_end : numbers_end + n_rels].decode("utf-8").split("\0")
    if rels[0] != fingerprint:
        return _Loaded()
    if len(rels) != count + 1:
        raise ValueError("a damaged folder cache")
    text = data[numbers_end + n_rels + 1 :].decode("utf-8")
    names = text.split("\0") if text else []
    ids, numbers = array("Q"), array("q")
    ids.frombytes(data[at:ids_end])
    numbers.frombytes(data[ids_end:numbers_end])
    files, subs = numbers[2::_TIMES].tolist(), numbers[3::_TIMES].tolist()
    if min(files + subs, default=0) < 0 or sum(files) + sum(subs) != len(names):
        raise ValueError("a damaged folder cache")
    return _Loaded(
        index=dict(zip(rels[1:], range(count), strict=True)),
        ids=list(
            zip(
                ids[0::_IDS].tolist(),
                ids[1::_IDS].tolist(),
                numbers[0::_TIMES].tolist(),
                numbers[1::_TIMES].tolist(),
                strict=True,
            )
        ),
        files=files,
        subs=subs,
        first=list(accumulate(map(add, files, subs), initial=0)),
        names=names,
    )


def _write(state: Path, data: bytes) -> None:
    """``data`` as the cache, by a new file of our own renamed over it, in the real state
    folder (never through a symlink)."""
    dir_fd = folder_fd(state, create=False)
    tmp = f"{CACHE_NAME}.{os.getpid()}.tmp"
    try:
        remove_dead_temps(dir_fd, CACHE_NAME)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=dir_fd)
        fd = os.open(tmp, NEW_FILE, 0o644, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, CACHE_NAME, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
            raise
    finally:
        os.close(dir_fd)
