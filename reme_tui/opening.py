"""The browser's `Workspace.open`, started before Textual is imported.

A first build of a 5k-note vault takes seconds, and the browser's imports and first screen
another ~0.6 s before it: started from the command line at once, the open runs beside them
(its parsing is in other processes; the snapshot's load is mostly numpy and file reads). The
app takes the running open over; progress reported before anything listens is kept, and the
newest of it is handed on when the screen starts listening.

No Textual import here: `run_browser` starts this before the app's modules load.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from reme_core import Workspace

Progress = Callable[[int, int], None]


class Opening:
    """`Workspace.open(root, sync=False)` in a daemon thread (a quit during a first build
    leaves at once; the abandoned build is a killed one, which the next open clears)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()  # orders a report against the listener's start
        self._listener: Progress | None = None
        self._last: tuple[int, int] | None = None
        self._outcome: Workspace | BaseException | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="reme-open", daemon=True)

    def start(self) -> Opening:
        """Begin the open; returns self."""
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self._outcome = Workspace.open(self.root, progress=self._report, sync=False)
        except BaseException as exc:  # re-raised by `result`, in the app's worker
            self._outcome = exc
        finally:
            self._done.set()

    def _report(self, done: int, total: int) -> None:
        with self._lock:
            self._last = (done, total)
            if self._listener is not None:
                self._listener(done, total)

    def listen(self, progress: Progress) -> None:
        """Send the open's progress to ``progress`` from now on, starting with its newest."""
        with self._lock:
            self._listener = progress
            if self._last is not None:
                progress(*self._last)

    def wait(self, timeout: float) -> bool:
        """Whether the open has ended (opened or failed), waiting at most ``timeout`` s."""
        return self._done.wait(timeout)

    def result(self) -> Workspace:
        """The opened workspace; the open's error is raised here. Only after `wait`."""
        outcome = self._outcome
        if isinstance(outcome, BaseException):
            raise outcome
        assert outcome is not None, "result() before the open ended"
        return outcome
