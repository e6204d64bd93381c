"""A note's web links opened with the system browser (`webbrowser`).

At once where the terminal has a display of its own; where it has none (over SSH, on a
console) the browser would start on this machine, so the person is asked first and may copy
the address instead. Only `http(s)` addresses come here (`reme_core.find_web_links`), and
`webbrowser` starts a browser with the address as an argument, never through a shell.
"""

from __future__ import annotations

import os
import sys
import webbrowser
from collections.abc import Mapping

from reme_tui.app.host import Host
from reme_tui.screens.web_link import OpenWebScreen, WebChoice
from reme_tui.text import notices


def has_display(env: Mapping[str, str] = os.environ) -> bool:
    """Whether a browser started here would show where the person is."""
    if env.get("SSH_CONNECTION") or env.get("SSH_TTY"):
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


class WebOpener:
    """Enter (or a click) on a web link in the reader."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen

    def follow(self, url: str) -> None:
        if not url.lower().startswith(("http://", "https://")):
            self.screen.notify(notices.ONLY_WEB_LINKS, severity="warning")
            return
        if has_display():
            self._open(url)
        else:
            self.screen.app.push_screen(OpenWebScreen(url), lambda c: self._chosen(url, c))

    def _chosen(self, url: str, choice: WebChoice | None) -> None:
        if choice == "open":
            self._open(url)
        elif choice == "copy":
            self._copy(url, notices.WEB_COPIED)

    def _copy(self, url: str, title: str) -> None:
        self.screen.app.copy_to_clipboard(url)
        self.screen.notify(url, title=title, timeout=4)

    def _open(self, url: str) -> None:
        """Start the browser in a thread (finding one can take a moment)."""

        def start() -> None:
            opened = webbrowser.open(url)
            app = self.screen.app
            if opened:
                app.call_from_thread(self.screen.notify, url, title=notices.WEB_OPENING)
            else:
                app.call_from_thread(self._copy, url, notices.WEB_NO_BROWSER)

        self.screen.run_worker(start, thread=True, group="web", name="open web link")
