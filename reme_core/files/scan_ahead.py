"""The start-up diff's walk in a forked child, collected in parts as it goes.

Opening a large workspace is two independent halves: loading the index (numpy and JSON) and
walking the folders (``scandir`` + ``stat``). On a second core the walk is free. The child
sends its listing in parts of `PART_FILES` files, so the parent can look up the first parts
while the walk goes on: at 50k files the look-ups were 20 ms after the walk ended.

The pipe never holds the walk up: the child writes without blocking and keeps what the
pipe cannot take yet for its next part (or its last, which waits until the parent reads).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import struct
import threading
from array import array
from collections.abc import Callable
from pathlib import Path

from reme_core.files.folder_cache import FolderCache
from reme_core.files.scanner import folder_cache, list_files, list_files_cached
from reme_core.files.scope import Listing, Scope

PART_FILES = 2048
# A part: file count, bytes of the NUL-joined paths, bytes of the names left out, last (0/1);
# then the paths, float64 mtimes, int64 sizes and the names left out.
_HEADER = struct.Struct("<4q")
_PIPE_BYTES = 1 << 20  # asked for (Linux); the walk of 50k files sends ~2.5 MB
# What `ScanAhead.result` hands each part to: (part, offset of its first file).
Part = Callable[[Listing, int], None]


class ScanAhead:
    """A scan started now in a forked child and collected later.

    Only a single-threaded process forks (a child of a threaded one could inherit a held
    lock); otherwise, or if anything fails, `result` walks here. The walk is a little older
    than the loaded index, so the diff re-checks the files it calls deleted.
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
                cache = _walk_and_send(root, scope, write_fd)
                code = 0
                cache.save()  # after the parent has the walk: no failure of it is the walk's
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

    def result(self, each: Part | None = None) -> Listing:
        """What `list_files(root, scope)` returns, from the child when it succeeded.

        ``each(part, offset)`` is given every part as it arrives, ``offset`` its first file's
        place in the listing. A part at offset 0 starts the listing afresh: when the child
        failed after some parts, the whole listing walked here follows as one part.
        """
        if self._pid:
            pid, self._pid = self._pid, 0
            try:
                with os.fdopen(self._fd, "rb") as pipe:
                    found = _receive(pipe.read, each)
                _, status = os.waitpid(pid, 0)
                if found is not None and os.waitstatus_to_exitcode(status) == 0:
                    return found
            except (OSError, ValueError):
                pass
        found = list_files_cached(self.root, self.scope)
        if each is not None:
            each(found, 0)
        return found

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


def _walk_and_send(root: Path, scope: Scope, fd: int) -> FolderCache:
    """The child's work: the walk, sent part by part, then the rest and the names left out;
    the folder cache it walked with (and updated), for the caller to save."""
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, False)
    with contextlib.suppress(AttributeError, OSError):  # a larger pipe where Linux allows
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    pending = bytearray()
    sent = 0

    def send(found: Listing) -> None:
        nonlocal sent
        pending.extend(_encode(found, sent, False))
        sent = len(found.paths)
        _write_some(fd, pending)

    cache = folder_cache(root, scope)
    found = list_files(root, scope, every=(PART_FILES, send), cache=cache)
    pending.extend(_encode(found, sent, True))
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    view = memoryview(pending)
    while view:
        view = view[os.write(fd, view) :]
    os.close(fd)
    return cache


def _write_some(fd: int, pending: bytearray) -> None:
    """Write what the pipe takes now; the rest stays in ``pending``."""
    while pending:
        try:
            n = os.write(fd, pending)
        except BlockingIOError:
            return
        del pending[:n]


def _encode(found: Listing, start: int, last: bool) -> bytes:
    """The part of ``found`` from file ``start`` on (and, in the last, the names left out)."""
    names = "\0".join(found.paths[start:]).encode("utf-8")
    left_out = json.dumps([found.undecodable, found.too_deep]).encode() if last else b""
    n = len(found.paths) - start
    header = _HEADER.pack(n, len(names), len(left_out), int(last))
    mtimes = array("d", found.mtimes[start:]).tobytes()
    sizes = array("q", found.sizes[start:]).tobytes()
    return header + names + mtimes + sizes + left_out


def _receive(read: Callable[[int], bytes], each: Part | None) -> Listing | None:
    """The parts read until the last, joined; None when the pipe ends before it."""
    found = Listing()
    while True:
        head = read(_HEADER.size)
        if len(head) != _HEADER.size:
            return None
        n, n_names, n_left_out, last = _HEADER.unpack(head)
        if min(n, n_names, n_left_out) < 0 or last not in (0, 1):
            raise ValueError("a damaged scan part")
        body = read(n_names + 16 * n + n_left_out)
        if len(body) != n_names + 16 * n + n_left_out:
            return None
        part = _decode(body, n, n_names, n_left_out)
        if each is not None and n:
            each(part, len(found.paths))
        found.paths += part.paths
        found.mtimes += part.mtimes
        found.sizes += part.sizes
        found.undecodable += part.undecodable
        found.too_deep += part.too_deep
        if last:
            return found


def _decode(body: bytes, n: int, n_names: int, n_left_out: int) -> Listing:
    part = Listing()
    if n_left_out:
        part.undecodable, part.too_deep = json.loads(body[n_names + 16 * n :])
    if not n:
        return part
    part.paths = body[:n_names].decode("utf-8").split("\0")
    if len(part.paths) != n:
        raise ValueError("a scan part of another length")
    mtimes, sizes = array("d"), array("q")
    mtimes.frombytes(body[n_names : n_names + 8 * n])
    sizes.frombytes(body[n_names + 8 * n : n_names + 16 * n])
    part.mtimes, part.sizes = mtimes.tolist(), sizes.tolist()
    return part
