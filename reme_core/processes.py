"""Whether another process still runs: the parse pool's workers watch their host with it,
and leftovers of a dead rebuild or snapshot writer are told apart from a live one's."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """Whether a process exists (one owned by another user counts as alive). A pid past
    what the system can hold (read from a file name a workspace brought) is no process."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except OSError:
        return True
    return True
