"""The cyclic collector's full passes, moved from wherever they fell to when the user pauses.

At 50k notes the browser holds ~540k objects the collector tracks; CPython's automatic full
(generation-2) pass walks them all with the GIL held, 0.6-0.9 s each, and it fell inside
dialog openings and keystrokes whenever a watcher batch had made enough objects. While the
browser runs, `IdleCollector` turns the automatic full pass off (the young generations still
run as before) and runs it itself: after `IDLE_SECONDS` without a key or a mouse event, no
more often than keeps collecting to `MAX_SHARE` of the wall time, and at once when it is
`OVERDUE` times as late as CPython would have been (memory held by cycles stays bounded when
the user never pauses). The thresholds are restored when the app closes.

Only for CPython's generational collector (3.11-3.13): 3.14's incremental collector does its
old-generation work in small steps and reads the thresholds differently, so it is left alone.
Nothing is frozen (`gc.freeze`): a replaced index stayed frozen in memory.
"""

from __future__ import annotations

import gc
import sys
import time

# CPython compares the thresholds as C ints: this one is never reached.
NEVER = 1 << 30
IDLE_SECONDS = 2.0
MAX_SHARE = 0.05  # of the wall time spent in the app's own full passes
OVERDUE = 20  # times the automatic threshold: a full pass even while keys keep arriving
TICK_SECONDS = 0.5

DEFAULT_DUE = 10  # CPython's threshold2, when another collector has it set to NEVER already


def generational() -> bool:
    """Whether this interpreter's collector has the full pass the collector takes over."""
    return sys.implementation.name == "cpython" and sys.version_info < (3, 14)


class IdleCollector:
    """Runs the full passes the interpreter no longer does on its own, while an app runs.

    `start` and `stop` bracket the app's run; `input_seen` is called on each key or mouse
    event; `tick` on a timer every `TICK_SECONDS`. `passes` counts the full passes it ran
    (the benchmark reports them beside the automatic ones)."""

    def __init__(self) -> None:
        self.active = False
        self.found = gc.get_threshold()  # restored by `stop`
        self.due_at = DEFAULT_DUE  # the automatic threshold2: gen-1 passes making a full one due
        self.last_input = time.monotonic()
        self.not_before = 0.0  # the time cap: no idle pass before this
        self.passes = 0

    def start(self) -> None:
        """Turn the automatic full pass off (generational CPython only)."""
        if self.active or not generational():
            return
        self.found = t0, t1, t2 = gc.get_threshold()
        if t2 != NEVER:  # (NEVER: another app in this process runs one; tests do)
            self.due_at = max(t2, 1)
        gc.set_threshold(t0, t1, NEVER)
        self.active = True

    def stop(self) -> None:
        """Restore the thresholds `start` found."""
        if self.active:
            self.active = False
            gc.set_threshold(*self.found)

    def input_seen(self) -> None:
        """A key or mouse event: the user is not pausing."""
        self.last_input = time.monotonic()

    def tick(self) -> None:
        """Run a full pass when the user paused and one is due, or when one is overdue."""
        if not self.active:
            return
        pending = gc.get_count()[2]  # generation-1 passes since the last full one
        now = time.monotonic()
        idle = now - self.last_input >= IDLE_SECONDS and now >= self.not_before
        if (idle and pending >= self.due_at) or pending >= OVERDUE * self.due_at:
            self.collect()

    def collect(self) -> None:
        """One full pass, timed; the next idle one waits so passes stay within `MAX_SHARE`."""
        started = time.perf_counter()
        gc.collect()
        took = time.perf_counter() - started
        self.passes += 1
        self.not_before = time.monotonic() + took / MAX_SHARE
