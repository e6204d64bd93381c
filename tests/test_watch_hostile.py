"""`reme-tui watch` on a hostile folder and a hostile reader (issue 26): names that are not
UTF-8 beside self-referencing symlinks (inotify gives up on the one, polling on the other),
FIFOs and unreadable files do not end it; SIGTERM ends it even while nobody reads its stdout.
Real subprocesses; their timeouts turn a hang into a failure."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.helpers import wait_for

if not sys.platform.startswith("linux"):
    pytest.skip("names that are not UTF-8 and FIFOs as Linux has them", allow_module_level=True)


def start_watch(root: Path, stdout: int | object) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "reme_tui", "watch", "-w", str(root), "--quiet-ms", "50"],
        stdout=stdout,
        stderr=subprocess.DEVNULL,
    )


def stop(proc: subprocess.Popen[bytes]) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def hostile_vault(root: Path) -> None:
    (root / ".obsidian").mkdir(parents=True)
    (root / "a.md").write_text("# A\n\nalpha\n")
    os.symlink("loop.md", root / "loop.md")  # a link to itself
    os.symlink("loopdir", root / "loopdir")
    os.symlink("..", root / "up")  # out of the workspace and back: inotify names files through it
    os.mkfifo(root / "pipe.md")
    (root / "locked.md").write_text("# Locked\n")
    (root / "locked.md").chmod(0)


@pytest.mark.parametrize("first", ["bad name", "loop"])
def test_watch_survives_odd_names_and_self_loops_together(tmp_path: Path, first: str) -> None:
    root = tmp_path / "vault"
    hostile_vault(root)
    if first == "loop":  # the loop came before the watch; otherwise only the bad name does
        os.symlink("again.md", root / "again.md")
    out = tmp_path / "out.txt"
    with open(out, "wb") as sink:
        proc = start_watch(root, sink)
    try:
        wait_for(lambda: "watching" in out.read_text(), 60, "watch to start")
        (root / "first.md").write_text("# First\n")  # once seen, the notifier is in place
        wait_for(lambda: "added first.md" in out.read_text(), 60, "first.md to be indexed")
        (root / os.fsdecode(b"bad\xff.md")).write_bytes(b"# Bad\n")
        os.symlink("later.md", root / "later.md")
        time.sleep(1.5)  # the watcher meets the name and the loop before the next note
        (root / "c.md").write_text("# C\n\ncharlie\n")
        wait_for(lambda: "added c.md" in out.read_text(), 60, "c.md to be indexed")
        assert proc.poll() is None
        (root / "a.md").unlink()
        wait_for(lambda: "deleted a.md" in out.read_text(), 60, "a.md to be dropped")
    finally:
        assert stop(proc) == 0


def test_sigterm_ends_watch_whose_stdout_nobody_reads(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    (root / ".obsidian").mkdir(parents=True)
    (root / "a.md").write_text("# A\n")
    proc = start_watch(root, subprocess.PIPE)
    assert proc.stdout is not None
    fd = proc.stdout.fileno()

    def waiting() -> int:  # bytes in the pipe that nobody has read
        return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), "little")

    try:
        wait_for(lambda: waiting() > 0, 60, "watch to start")
        capacity = fcntl.fcntl(fd, 1032)  # F_GETPIPE_SZ
        name = "n" * 200
        made = 0
        # A blocked write leaves less room than one line (writes up to 4 KiB are atomic).
        while waiting() < capacity - 4096 and made < 5_000:
            for _ in range(100):  # each line names a 200-character file
                (root / f"{name}{made}.md").write_text(f"# {made}\n")
                made += 1
            time.sleep(0.3)
        assert waiting() >= capacity - 4096, "the pipe never filled"
        for i in range(100):  # more changes while the pipe is full: writes now block
            (root / f"more{i}.md").write_text("# more\n")
        time.sleep(2)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def test_read_of_a_self_loop_symlink_is_refused_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    (root / ".obsidian").mkdir(parents=True)
    (root / "a.md").write_text("# A\n")
    os.symlink("loop.md", root / "loop.md")
    done = subprocess.run(
        [sys.executable, "-m", "reme_tui", "-w", str(root), "read", "loop.md"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert done.stderr.strip() == "reme-tui: loop.md: a symbolic link that loops back on itself"
