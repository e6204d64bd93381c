"""The browser on vaults above the parse pool's threshold: opened without any CLI step, a
600-note storm copied in while it runs, the palette's rebuild, then the installed `reme-tui`
in a real pseudo-terminal, as a person starts it, and closing that terminal.

The first version could not open any vault of 256+ notes in the browser: every TUI test used
small workspaces, so none started the pool inside a running Textual app.
"""

from __future__ import annotations

import os
import pty
import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from reme_core import Workspace
from reme_tui.app.browser import RemeApp
from tests.helpers import REME_TUI
from tests.real_vault import N_NOTES, kill_all, tagged_pids, wait_until, write_vault
from tests.test_tui_app import SIZE
from tests.test_tui_app import wait_until as app_wait_until

pytestmark = pytest.mark.slow  # CI runs it; `pytest -m "not slow"` skips it


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = write_vault(tmp_path / "vault")
    (root / "reme.yaml").write_text("workers: 2\n")  # the pool, whatever the core count
    return root


def indexed_files(root: Path) -> int:
    """Files in the index on disk, read without opening a workspace (no start-up diff)."""
    db = root / ".reme-tui" / "index.sqlite"
    if not db.is_file():
        return 0
    try:
        conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT count(*) FROM files").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


async def test_browser_opens_a_big_vault_stays_live_through_a_storm_and_rebuilds(vault):
    app = RemeApp(vault)
    async with app.run_test(size=SIZE) as pilot:
        await app_wait_until(pilot, lambda: app.ws is not None, timeout=120)
        assert app.ws is not None
        assert app.main.status.state.files == N_NOTES
        assert app.ws.warnings == []  # parsed by the pool, not by a fallback
        await app_wait_until(pilot, lambda: app.main.status.state.watcher, timeout=30)

        write_vault(vault, n=N_NOTES, start=N_NOTES, folder="Copied in")  # a 600-note storm
        await app_wait_until(pilot, lambda: app.main.status.state.files == 2 * N_NOTES, timeout=120)
        assert app.main.status.state.watcher, "the watcher is still on after the storm"
        hit = app.ws.search(f"uniq{2 * N_NOTES - 1}", expand_links=False).results
        assert [h.path for h in hit] == [f"Copied in/Note {2 * N_NOTES - 1}.md"]

        notes: list[str] = []
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        app.main.action_rebuild()
        await app_wait_until(pilot, lambda: any("files" in n for n in notes), timeout=120)
        assert f"{2 * N_NOTES} files" in notes[-1]
        assert app.main.status.state.watcher
    reopened = Workspace.open(vault)
    assert reopened.last_reindex is None and len(reopened.files()) == 2 * N_NOTES
    reopened.close()


def _drain(fd: int, sink: bytearray, stop: threading.Event) -> None:
    """Read the terminal's output as a terminal would (an undrained pty blocks the app)."""
    while not stop.is_set():
        try:
            data = os.read(fd, 65536)
        except OSError:
            return
        if not data:
            return
        sink.extend(data)


class Browser:
    """`reme-tui VAULT` on a pseudo-terminal that is its controlling terminal, as a terminal
    emulator starts it (closing the terminal then hangs it up)."""

    def __init__(self, vault: Path, tag: str) -> None:
        env = {**os.environ, "REME_TEST_TAG": tag, "TERM": "xterm-256color"}
        env.pop("REME_WORKSPACE", None)
        env.update(LINES="40", COLUMNS="140")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the browser
            try:
                # as a terminal emulator starts it: a hang-up ends it even when the test
                # itself runs under nohup (which would be inherited as SIG_IGN)
                signal.signal(signal.SIGHUP, signal.SIG_DFL)
                os.execve(REME_TUI[0], [*REME_TUI, str(vault)], env)
            finally:
                os._exit(127)
        self.code: int | None = None

    def poll(self) -> int | None:
        if self.code is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.code = os.waitstatus_to_exitcode(status)
        return self.code

    def wait(self, timeout: float) -> int:
        wait_until(lambda: self.poll() is not None, timeout, "the browser to exit", step=0.1)
        assert self.code is not None
        return self.code


@pytest.mark.parametrize("ending", ["ctrl+q", "terminal closed"])
def test_installed_browser_in_a_real_terminal(vault: Path, ending: str) -> None:
    """Open a never-indexed vault, take a storm, then quit (or lose the terminal): the index
    is built and kept live by the browser alone, and nothing it started outlives it."""
    tag = f"pty-{os.getpid()}-{time.monotonic_ns()}"
    proc = Browser(vault, tag)
    primary = proc.fd
    screen = bytearray()
    stop = threading.Event()
    reader = threading.Thread(target=_drain, args=(primary, screen, stop), daemon=True)
    reader.start()
    try:
        wait_until(lambda: indexed_files(vault) == N_NOTES, 120, "the browser to build the index")
        wait_until(lambda: b"files" in screen, 60, "the header to show the counts")
        time.sleep(2)  # the watcher is in place
        write_vault(vault, n=N_NOTES, start=N_NOTES, folder="Copied in")
        wait_until(lambda: indexed_files(vault) == 2 * N_NOTES, 120, "the storm to be indexed live")
        assert proc.poll() is None
        if ending == "ctrl+q":
            os.write(primary, b"\x11")
            assert proc.wait(60) == 0
        else:
            stop.set()
            os.close(primary)  # the terminal window closes: the kernel hangs the session up
            primary = -1
            proc.wait(60)
        wait_until(lambda: not tagged_pids(tag), 20, "no process of the browser left")
        assert b"Traceback" not in screen
    finally:
        stop.set()
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        kill_all(tagged_pids(tag))
        if primary >= 0:
            os.close(primary)
    if ending == "ctrl+q":  # a clean exit folds the write-ahead log in
        assert not (vault / ".reme-tui" / "index.sqlite-wal").exists()
