"""The notifier's child process (see `reme_core.indexing.notifier`): watchfiles' watches, placed
here so that the host's interpreter is never held while they are, and each batch of events
written to standard output as a line of JSON. It ends when standard input closes.

Run as `python -P -m reme_core.indexing.notifier_child OPTIONS_JSON`; it imports nothing
but the standard library and watchfiles.
"""

from __future__ import annotations

import json
import os
import select
import sys
from typing import Any

_POLL_DELAY_MS = 300  # watchfiles' own default, when polling


class _InputClosed:
    """watchfiles' stop event: set once standard input reaches its end (the host closed the
    notifier, or died)."""

    def __init__(self) -> None:
        self._closed = False

    def is_set(self) -> bool:
        if not self._closed and select.select([0], [], [], 0)[0]:
            self._closed = not os.read(0, 4096)
        return self._closed


def _send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _run(options: dict[str, Any]) -> int:
    """The child: place the watches, say so, then write each batch as a line, until
    standard input closes."""
    from watchfiles._rust_notify import RustNotify

    stop = _InputClosed()
    paths, polling = [str(p) for p in options["paths"]], bool(options["force_polling"])
    debounce, step = int(options["debounce"]), int(options["step"])
    try:
        with RustNotify(paths, False, polling, _POLL_DELAY_MS, True, True) as notify:
            _send({"placed": True})
            while True:
                raw = notify.watch(debounce, step, 0, stop)  # 0: no time-out
                if isinstance(raw, str):  # "stop" (input closed) or "signal"
                    return 0
                _send({"events": [[int(change), path] for change, path in raw]})
    except BrokenPipeError:
        return 0
    except Exception as exc:  # watchfiles' own error: the host decides what to do
        _send({"error": type(exc).__name__, "message": str(exc)})
        return 1


if __name__ == "__main__":
    sys.exit(_run(json.loads(sys.argv[1])))
