"""Shared fixtures: real folders in tmp_path, the real demo workspace, no mocks."""

from __future__ import annotations

import gc
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import textual.app
from textual.notifications import Notification, Notifications

import reme_tui

# The demo of the reme_tui that is imported: the source tree's, or an installed wheel's when
# CI runs the launch tests against the wheel on the other Pythons.
DEMO = Path(reme_tui.__file__).resolve().parent / "demo"

# Where PYTHONDONTWRITEBYTECODE is set (this machine sets it), every `reme-tui` subprocess a
# test starts compiled the project's modules anew: about half a second of CPU each, hundreds
# of times. Cleared here, the first one writes the bytecode and the rest read it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers per core. Many tests wait on a subprocess, a terminal or the
    watcher: with one worker per core the cores idled about a quarter of the time (the whole
    suite on 2 quiet cores: 400 s with 3 workers, 364 s with 4)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 2 * (cores or 1)


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create files (text or bytes) under root, making folders as needed."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def make_tree(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    """Build a workspace folder from a {path: content} mapping."""

    def build(files: dict[str, str | bytes]) -> Path:
        root = tmp_path / "ws"
        root.mkdir(exist_ok=True)
        return write_files(root, files)

    return build


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    """A writable copy of the bundled demo workspace."""
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target)
    return target


@pytest.fixture(scope="session")
def _indexed_demo_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo with its index built, once per session (per xdist worker); never written."""
    from reme_core import Workspace

    master = tmp_path_factory.mktemp("indexed") / "demo"
    shutil.copytree(DEMO, master)
    Workspace.open(master).close()
    return master


@pytest.fixture
def indexed_demo(tmp_path: Path, _indexed_demo_master: Path) -> Path:
    """A writable copy of the demo whose index is already built (copied with the notes, their
    times kept, so opening it loads the index instead of building it): for tests of what the
    browser does with an open workspace, not of the first build."""
    target = tmp_path / "demo"
    shutil.copytree(_indexed_demo_master, target)
    return target


@pytest.fixture(autouse=True)
def _private_user_folders(tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> None:
    """The browser's settings and state (and --demo copies) live in per-test folders, never in
    the user's own (a test changing the theme must not change theirs, nor read it)."""
    base = tmp_path_factory.mktemp("user")
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(name, str(base / name.lower()))


class KeptNotifications(Notifications):
    """Textual's own collection of toasts, which also keeps each one raised in `raised`.

    The collection forgets a toast once its timeout (2-5 s of wall time) has passed; a test
    on a loaded machine can take longer than that between the action and its assertion (a
    rename's "Moved" toast was gone by the time the test looked). `tests.helpers.said(app)`
    reads this list: what the app said, whenever the test asks.
    """

    def __init__(self) -> None:
        super().__init__()
        self.raised: list[Notification] = []

    def add(self, notification: Notification) -> KeptNotifications:
        self.raised.append(notification)
        super().add(notification)
        return self


@pytest.fixture(autouse=True)
def _toasts_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every app a test makes keeps the toasts it raised (see `KeptNotifications`)."""
    monkeypatch.setattr(textual.app, "Notifications", KeptNotifications)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What every test of a worker shares (the imported modules, the collected tests) is moved
    out of the collector's sight: each full pass walked it again, ~100k objects, hundreds of
    times a run. Objects the tests make are collected as ever."""
    gc.collect()
    gc.freeze()
