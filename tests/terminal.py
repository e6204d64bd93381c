"""The installed `reme-tui` in a real pseudo-terminal, read back through a terminal emulator.

`App.run_test()` skips the driver, the terminal's size and colour settings and Textual's start
on a real event loop: a crash at every launch on Python 3.12 and 3.13 and one under NO_COLOR
passed it unseen. These tests start the program as a person does, in a pty whose screen is
kept by `pyte`, type into it and read what it drew.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import signal
import struct
import termios
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pyte

from tests.helpers import REME_TUI

KEYS = {"enter": "\r", "down": "\x1b[B", "up": "\x1b[A", "escape": "\x1b", "tab": "\t",
        "f6": "\x1b[17~", "ctrl+q": "\x11", "ctrl+p": "\x10", "ctrl+o": "\x0f",
        "delete": "\x1b[3~"}  # fmt: skip


class Terminal:
    """A program on a pty of `columns`×`lines`, its output drawn on a pyte screen."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        columns: int = 80,
        lines: int = 24,
        cwd: Path | None = None,
    ) -> None:
        self.screen = pyte.Screen(columns, lines)
        # The size is the pty's: an inherited COLUMNS/LINES (xdist's workers set 80×24) would
        # override it in the program.
        env = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.code: int | None = None
        self._lock = threading.Lock()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: a session of its own, the pty its terminal
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
                signal.signal(signal.SIGHUP, signal.SIG_DFL)
                if cwd is not None:
                    os.chdir(cwd)
                os.execve(argv[0], list(argv), dict(env))
            finally:
                os._exit(127)
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        """Read as a terminal does (an unread pty would block the program)."""
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.raw.extend(data)
                self.stream.feed(data)

    def text(self) -> str:
        """The screen as lines of text."""
        with self._lock:
            return "\n".join(line.rstrip() for line in self.screen.display)

    def poll(self) -> int | None:
        if self.code is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.code = os.waitstatus_to_exitcode(status)
        return self.code

    def wait_for(self, text: str, timeout: float = 60) -> None:
        """Wait until `text` is on screen; fail at once, showing the screen, if the program
        has exited, else after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while text not in self.text():
            if self.poll() is not None:
                time.sleep(0.2)  # the last output
                raise AssertionError(
                    f"the program exited ({self.code}) before {text!r} showed:\n{self.output()}"
                )
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} did not show in {timeout} s:\n{self.text()}")
            time.sleep(0.05)

    def press(self, *keys: str) -> None:
        """Keys by name (`KEYS`) or literal text, each a separate write."""
        for key in keys:
            os.write(self.fd, KEYS.get(key, key).encode())
            time.sleep(0.05)

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def wait_exit(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"the program did not exit in {timeout} s:\n{self.text()}")
            time.sleep(0.05)
        self._reader.join(5)
        assert self.code is not None
        return self.code

    def output(self) -> str:
        """Everything the program wrote, decoded (what stays in the scrollback)."""
        with self._lock:
            return self.raw.decode("utf-8", "replace")

    def close(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)


def browser_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a new user's terminal: a fresh home (settings, state, crash logs)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REME_", "NO_COLOR"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_STATE_HOME=str(home / ".local/state"), TERM="xterm-256color")  # fmt: skip
    env.update(extra)
    return env


def browser(root: Path, home: Path, columns: int = 80, lines: int = 24, **env: str) -> Terminal:
    """The installed `reme-tui ROOT` in a terminal of that size."""
    return Terminal([*REME_TUI, str(root)], env=browser_env(home, **env), columns=columns,
                    lines=lines)  # fmt: skip
