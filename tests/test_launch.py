"""The installed browser as a person starts it: a real pty, the terminal's own settings.

Each launch opens the demo, answers a search, opens the top hit, switches to the rendered view
and quits with status 0, under NO_COLOR and several TERMs and sizes (down to 60×20, where the
panes stack). A forced crash exits 1 with one line and a log file. CI runs this module on every
Python the project claims (`.ci/run`): a Textual race crashed every launch on 3.12 and 3.13.
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import pytest

from tests.terminal import Terminal, browser, browser_env

pytestmark = pytest.mark.slow  # CI runs it; `pytest -m "not slow"` skips it

LEAVE_ALT_SCREEN = "\x1b[?1049l"  # the terminal is given back as it was


@pytest.mark.parametrize(
    ("env", "columns", "lines"),
    [
        pytest.param({"NO_COLOR": "1"}, 80, 24, id="NO_COLOR-80x24"),
        pytest.param({"NO_COLOR": "1"}, 60, 20, id="NO_COLOR-60x20"),
        pytest.param({"TERM": "linux"}, 80, 24, id="linux-80x24"),
        pytest.param({"TERM": "screen-256color"}, 100, 30, id="screen-256color"),
        pytest.param({"COLORTERM": "truecolor"}, 140, 40, id="truecolor-140x40"),
    ],
)
def test_the_installed_browser_starts_searches_opens_a_hit_and_quits(
    demo_copy: Path, tmp_path: Path, env: dict[str, str], columns: int, lines: int
) -> None:
    term = browser(demo_copy, tmp_path / "home", columns, lines, **env)
    try:
        term.wait_for("files", 120)  # the header's counts: the workspace is open
        term.type("solar")
        term.wait_for("hits in")
        term.press("down")
        term.wait_for("e Edit")  # the results have the focus (the footer says so)
        term.press("enter")
        term.wait_for("Solar Energy Research")  # the top hit's title in the reader's header
        term.wait_for("Key finding")
        term.press("m")  # the rendered view
        term.wait_for("Solar energy research")
        term.press("ctrl+q")
        code = term.wait_exit()
    finally:
        term.close()
    assert code == 0
    out = term.output()
    assert "Traceback" not in out
    assert LEAVE_ALT_SCREEN in out


def test_every_dialog_opens_and_closes_and_copy_reaches_the_terminal_under_no_color(
    demo_copy: Path, tmp_path: Path
) -> None:
    term = browser(demo_copy, tmp_path / "home", 80, 24, NO_COLOR="1")
    dialogs = [
        ("r", "Move or rename digest/wiki/solar.md"),
        ("delete", "Delete digest/wiki/solar.md?"),
        ("n", "New note"),
        ("o", "Open note"),
        ("ctrl+p", "Search for commands"),
    ]
    try:
        term.wait_for("files", 120)
        term.type("solar")
        term.wait_for("hits in")
        term.press("down")
        term.wait_for("e Edit")  # the results have the focus (the footer says so)
        term.press("enter")
        term.wait_for("Key finding")
        for key, title in dialogs:
            term.press(key)
            term.wait_for(title)
            term.press("escape")
            term.wait_for("Key finding")  # back on the reader, nothing changed
        term.press("y")  # copy: the first choice is the note's path, sent to the terminal
        term.wait_for("Copy from digest/wiki/solar.md")
        term.press("enter")
        term.wait_for("Copied: Path")
        term.press("ctrl+q")
        code = term.wait_exit()
    finally:
        term.close()
    assert code == 0
    assert "Traceback" not in term.output()
    assert (demo_copy / "digest/wiki/solar.md").is_file()
    osc52 = "\x1b]52;c;" + base64.b64encode(b"digest/wiki/solar.md").decode()
    assert osc52 in term.output()  # the clipboard sequence reached the terminal


CRASHING = """\
import base64
import sys
from reme_tui.widgets.reader.reader import Reader

def crash(self, *args, **kwargs):
    raise RuntimeError("forced crash")

Reader.show_welcome = crash  # runs on the event loop once the workspace is open
from reme_tui.cli.program import main

sys.argv = ["reme-tui", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "REME_DEBUG"])
def test_a_crash_exits_1_with_one_line_and_a_log_and_gives_the_terminal_back(
    demo_copy: Path, tmp_path: Path, debug: bool
) -> None:
    home = tmp_path / "home"
    env = browser_env(home, **({"REME_DEBUG": "1"} if debug else {}))
    term = Terminal([sys.executable, "-c", CRASHING, str(demo_copy)], env=env)
    try:
        code = term.wait_exit(120)
    finally:
        term.close()
    out = term.output()
    assert code == 1
    line = "reme-tui: the browser stopped on an unexpected error: RuntimeError: forced crash"
    assert line in out
    assert out.index(line) > out.rindex(LEAVE_ALT_SCREEN)  # said on the restored terminal
    assert ("Traceback" in out) == debug  # the long story only when asked for
    logs = list((home / ".local/state/reme-tui/crashes").glob("crash-*.log"))
    assert len(logs) == 1
    assert str(logs[0]) in out.replace("\r\n", "")
    text = logs[0].read_text()
    assert "Traceback (most recent call last)" in text and "RuntimeError: forced crash" in text
