"""Vaults above the parse pool's threshold, and the processes that run on them.

Size matters here: the pool (and what breaks it) only starts for jobs of `POOL_THRESHOLD`
files or more, so these vaults are several times that, with names that have spaces and links
by name, as Obsidian vaults have.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from reme_core.parse.parse_pool import POOL_THRESHOLD

N_NOTES = 2 * POOL_THRESHOLD + 88  # 600: twice the threshold and a part batch


def write_vault(
    root: Path, n: int = N_NOTES, start: int = 0, folder: str = "", padding: int = 0
) -> Path:
    """Notes `Note {i}.md` in ten folders, each linking the next by name, each with a word
    of its own (`uniq{i}`) so a search can tell whether that very note is indexed.
    ``padding`` adds that many words to each (slower to parse)."""
    filler = " ".join(f"filler{w % 97} cell{w % 13}" for w in range(padding // 2))
    for i in range(start, start + n):
        sub = root / (folder or f"Area {i % 10}")
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"Note {i}.md").write_text(
            f"---\nname: Note {i}\n---\n# Note {i}\n\nThe uniq{i} topic, polysilicon and "
            f"inverters, see [[Note {i + 1}]].\n\n## Details\n\nMore about wafer {i % 7}.\n"
            f"\n{filler}\n",
            encoding="utf-8",
        )
    (root / ".obsidian").mkdir(exist_ok=True)
    return root


def tagged_pids(tag: str) -> list[int]:
    """Processes whose environment carries `REME_TEST_TAG=tag` (a run and all it started)."""
    needle = f"REME_TEST_TAG={tag}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                env = fh.read().split(b"\0")
            with open(f"/proc/{entry}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in env and state != b"Z":
            pids.append(int(entry))
    return pids


def wait_until(cond: Callable[[], bool], timeout: float, what: str, step: float = 0.05) -> None:
    """Poll `cond()` until true; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(step)


def kill_all(pids: list[int]) -> None:
    """Clean up after a failed test: nothing it started may outlive it."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
