"""Escape sequences in a note never reach the user's terminal through `reme-tui` (issue 12).

The commands run in real child processes whose output is a real terminal (a pseudo-terminal
made with `pty.openpty`), or a pipe: a terminal sees control characters as `cat -v` shows
them, a pipe gets the exact text, and `--json` is exact (and escaped) either way.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from reme_core import Workspace

TITLE = "\x1b]0;pwned\x07"  # sets the terminal's title
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: writes the clipboard
CSI_8BIT = "\x9b2J"  # the one-byte CSI: clears the screen on some terminals
HOSTILE = (
    "# Hostile\n\n"
    f"sneaky words {TITLE} and {CLIPBOARD}\n"
    f"more sneaky {CSI_8BIT} text\tand a tab\x7f\n"
)
FILES = {"daily/hostile.md": HOSTILE, "daily/plain.md": "# Plain\n\nplain words\n"}
RAW = ("\x1b", "\x07", "\x9b", "\x7f")


def _command(root: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "reme_tui.cli", *args, "-w", str(root)]


def on_terminal(cmd: list[str], stream: str = "stdout") -> tuple[str, str]:
    """(what the terminal received, the other stream's text) when `stream` is a terminal."""
    master, slave = pty.openpty()
    pipe = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    pipe[stream] = slave
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, **pipe)  # type: ignore[call-overload]
    os.close(slave)
    received = bytearray()
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            proc.kill()
            raise AssertionError(f"{cmd} wrote nothing for 120 s")
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        received += data
    os.close(master)
    other = proc.stderr if stream == "stdout" else proc.stdout
    rest = other.read().decode("utf-8", "replace") if other is not None else ""
    assert proc.wait(timeout=120) == 0, rest
    return received.decode("utf-8", "replace").replace("\r\n", "\n"), rest


@pytest.fixture
def root(make_tree) -> Path:
    root = make_tree(FILES)
    Workspace.open(root).close()
    return root


@pytest.mark.parametrize(
    "args",
    [
        ["search", "sneaky"],
        ["read", "daily/hostile.md"],
        ["chunks", "daily/hostile.md"],
    ],
)
def test_a_terminal_sees_control_characters_not_their_effect(root: Path, args: list) -> None:
    shown, _ = on_terminal(_command(root, *args))
    assert not any(c in shown for c in RAW), repr(shown)
    assert "sneaky words ^[]0;pwned^G and ^[]52;c;cm0gLXJmIH4=^G" in shown
    assert "more sneaky M-^[2J text\tand a tab^?" in shown  # the tab is kept


def test_a_pipe_gets_the_exact_text(root: Path) -> None:
    proc = subprocess.run(
        _command(root, "read", "daily/hostile.md"), capture_output=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == HOSTILE.rstrip("\n") + "\n"


def test_json_is_exact_and_escaped_on_a_terminal(root: Path) -> None:
    shown, _ = on_terminal(_command(root, "search", "sneaky", "--json", "--no-links"))
    assert not any(c in shown for c in RAW), repr(shown)
    (hit,) = json.loads(shown)["results"]
    assert hit["text"] == HOSTILE.rstrip("\n")


def test_a_file_name_with_escapes_is_shown_visibly_on_stderr(root: Path) -> None:
    (root / "daily" / f"{TITLE}.md").write_text("# Named\n\nnamed words\n")
    shown, _ = on_terminal(_command(root, "search", "named", "--no-links"))
    assert "daily/^[]0;pwned^G.md" in shown and TITLE not in shown
    cmd = _command(root, "read", f"daily/{TITLE}x.md")  # refused: stderr names the file
    master, slave = pty.openpty()
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    told = os.read(master, 65536).decode("utf-8", "replace")
    os.close(master)
    assert proc.returncode == 1
    assert "daily/^[]0;pwned^Gx.md: no such file" in told and TITLE not in told
