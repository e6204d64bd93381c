"""Where a crash's full traceback goes: a file under the user's state folder.

A person whose browser or command dies sees one line naming the error and this file, on a
terminal left usable; the file has what a bug report needs. `REME_DEBUG=1` shows the
traceback itself instead.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

CRASH_LOGS_KEPT = 20


def crash_folder() -> Path:
    """The folder of crash logs (`~/.local/state/reme-tui/crashes` on Linux)."""
    from platformdirs import user_state_path

    return user_state_path("reme-tui") / "crashes"


def write_crash_log(error: BaseException, about: Sequence[str] = ()) -> Path | None:
    """Write `error`'s traceback, after the lines `about` (versions, the command), to a new
    file; None when it cannot be written (the one-line message still names the error)."""
    folder = crash_folder()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"crash-{stamp}-{os.getpid()}.log"
    header = [*about, f"Python {sys.version.split()[0]}", "argv: " + " ".join(sys.argv), ""]
    text = "\n".join(header) + "\n" + "".join(traceback.format_exception(error))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Exclusive and not through a link: a log never overwrites anything.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with open(fd, "w", encoding="utf-8", errors="replace") as out:
            out.write(text)
    except OSError:
        return None
    _prune(folder)
    return path


def _prune(folder: Path) -> None:
    """Keep the newest `CRASH_LOGS_KEPT` logs."""
    try:
        logs = sorted(p for p in folder.iterdir() if p.name.startswith("crash-"))
        for old in logs[:-CRASH_LOGS_KEPT]:
            old.unlink()
    except OSError:
        pass
