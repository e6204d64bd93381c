"""What runs in each parse-pool process before its first batch: no ties to the host's output,
no life of its own after the host's, and a lower priority than anyone's foreground work.

A worker outliving its host (killed with SIGKILL, SIGTERM or SIGHUP) would hold its memory
and any pipe the host wrote to (a ``reme-tui --reindex | tee`` would never end); the pool's
own queues never tell a worker its host is gone, so each one watches the host itself.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time

from reme_core.parse import parsing  # noqa: F401  (the parsing stack, loaded before the fork)
from reme_core.processes import pid_alive

_POLL_SECONDS = 0.5
# Parsing is background work: a browser's keys, an agent's search or another program should
# not wait behind it. Added to the host's niceness; on an idle machine the pool still has
# every core, so a rebuild takes as long as before.
NICENESS = 10


def start_worker(host_pid: int) -> None:
    """The pool's initializer: detach from the host's terminal or pipes, lower the worker's
    priority, then watch the host."""
    detach_stdio()
    with contextlib.suppress(AttributeError, OSError):  # no `nice` on this platform
        os.nice(NICENESS)
    threading.Thread(
        target=_exit_with, args=(host_pid,), name="reme-host-watch", daemon=True
    ).start()


def detach_stdio() -> None:
    """Point standard input, output and error at the null device (nothing here prints)."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)


def _exit_with(host_pid: int) -> None:
    """Leave at once when the host process ends (a pidfd where the kernel has them)."""
    try:
        fd = os.pidfd_open(host_pid)
    except ProcessLookupError:
        os._exit(0)
    except (AttributeError, OSError):
        fd = -1
    if fd >= 0:
        select.select([fd], [], [])
    else:
        while pid_alive(host_pid):
            time.sleep(_POLL_SECONDS)
    os._exit(0)
