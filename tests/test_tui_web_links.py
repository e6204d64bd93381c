"""Web links in the reader: found outside code, selectable like note links, labelled in the
rendered view, and handed to the system browser (`webbrowser`, through a stand-in browser
named by $BROWSER in a real terminal), or copied where the terminal has no display."""

from __future__ import annotations

import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reme_core import find_web_links
from reme_tui.app.browser import RemeApp
from reme_tui.screens.web_link import OpenWebScreen
from tests.conftest import write_files
from tests.helpers import REME_TUI
from tests.terminal import Terminal, browser_env
from tests.test_tui_app import SIZE, wait_until

NOTE = """# Links out

Read [the docs](https://example.com/docs_(v2)) or <http://example.org/a?b=1>,
then https://example.net/page. Not `https://in.code.example` nor:

```
https://in.fence.example
```

[[Other]] stays a note link; javascript:alert(1) and file:///etc/passwd are text.
"""


def test_web_links_are_found_outside_code_and_only_for_http() -> None:
    urls = [(m.line, m.url, m.text) for m in find_web_links(NOTE)]
    assert urls == [
        (3, "https://example.com/docs_(v2)", "the docs"),
        (3, "http://example.org/a?b=1", "http://example.org/a?b=1"),
        (4, "https://example.net/page", "https://example.net/page"),  # the full stop left out
    ]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_files(
        tmp_path / "vault",
        {".obsidian/app.json": "{}", "Links out.md": NOTE, "Other.md": "# Other\n"},
    )


async def test_without_a_display_the_reader_asks_and_copies_the_link(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SSH_CONNECTION", "SSH_TTY"):
        monkeypatch.delenv(name, raising=False)
    app = RemeApp(vault, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.ws is not None, timeout=60)
        app.main.navigator.open_path("Links out.md")
        await wait_until(pilot, lambda: app.main.reader.view.links != [])
        view = app.main.reader.view
        assert [(link.kind, link.target) for link in view.links] == [
            ("web", "https://example.com/docs_(v2)"),
            ("web", "http://example.org/a?b=1"),
            ("web", "https://example.net/page"),
            ("note", "Other.md"),
        ]
        app.main.focus_reader()
        await pilot.press("tab", "tab", "enter")  # the second link
        await wait_until(pilot, lambda: isinstance(app.screen, OpenWebScreen))
        await pilot.press("c")
        await wait_until(pilot, lambda: not isinstance(app.screen, OpenWebScreen))
        assert app.clipboard == "http://example.org/a?b=1"
        await pilot.press("m")  # rendered: a Markdown link shows its text
        await wait_until(pilot, lambda: view.rendered is not None)
        assert any("Read the docs or" in line.text for line in view.rendered or [])


def wait_until_true(cond: Callable[[], bool], timeout: float, screen: Callable[[], str]) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, screen()
        time.sleep(0.05)


@pytest.mark.slow
def test_a_web_link_opens_in_the_system_browser_from_a_real_terminal(
    vault: Path, tmp_path: Path
) -> None:
    opened = tmp_path / "opened.txt"
    stand_in = tmp_path / "browser.sh"
    stand_in.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >> "{opened}"\n')
    stand_in.chmod(stand_in.stat().st_mode | stat.S_IEXEC)
    env = browser_env(tmp_path / "home", DISPLAY=":0", BROWSER=f"{stand_in} %s")
    env.pop("SSH_CONNECTION", None)
    env.pop("SSH_TTY", None)
    term = Terminal([*REME_TUI, str(vault)], env=env, columns=100, lines=30)
    try:
        term.wait_for("files", 120)
        term.press("ctrl+o")
        term.wait_for("Open note")
        term.type("Links out")
        term.wait_for("Links out.md")
        term.press("enter")
        term.wait_for("Read [the docs]")
        term.press("tab", "tab", "tab", "enter")  # the bare address
        wait_until_true(lambda: opened.exists() and opened.read_text() != "", 30, term.text)
        term.press("ctrl+q")
        assert term.wait_exit() == 0
    finally:
        term.close()
    assert opened.read_text().splitlines() == ["https://example.net/page"]
