"""One builder at a time: an advisory lock on the derived-state folder, across processes.

N programs opening the same never-indexed workspace at once (a browser, an agent's server, a
script) must build its index once, not N times: the first builds, the others wait on the lock
and then load what it built. The lock is re-entrant within a process.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from reme_core.files.state_files import CAN_LOCK, flock_exclusive, open_lock

LOCK_NAME = "index.lock"


class StateLock:
    """An exclusive `flock` on ``<state folder>/index.lock`` (a no-op where it cannot exist)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_NAME
        self._mutex = threading.RLock()
        self._depth = 0
        self._fd = -1

    @contextlib.contextmanager
    def held(self, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
        """Hold the lock for the block; ``on_wait`` is called once if another process has it."""
        with self._mutex:
            if self._depth == 0:
                self._fd = self._acquire(on_wait)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fd >= 0:
                    os.close(self._fd)  # closing the descriptor releases the lock
                    self._fd = -1

    def _acquire(self, on_wait: Callable[[], None] | None) -> int:
        if not CAN_LOCK or self.path.parent.is_symlink():  # never create files through one
            return -1
        try:
            fd = open_lock(self.path)  # never through a symlink, never a FIFO
        except OSError:  # read-only or missing folder: nothing to build into anyway
            return -1
        try:
            flock_exclusive(fd, wait=False)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            flock_exclusive(fd)
        except OSError:
            os.close(fd)
            return -1
        return fd
