"""A quit during the browser's first build leaves at once, and the next open waits for no one.

Textual waits for its worker threads when the app exits, so a quit pressed while the first
open built the index kept the process alive until the build ended (and its lock held): a
browser opened again at once waited for it. Real processes on a pseudo-terminal.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from reme_core.index.snapshot import SNAPSHOT_NAME
from tests.terminal import browser

pytestmark = pytest.mark.slow

NOTES = 3000
WORDS = [f"word{i}" for i in range(2000)]


def make_vault(root: Path) -> None:
    (root / ".obsidian").mkdir(parents=True)
    rng = random.Random(32)
    for i in range(NOTES):
        body = "\n\n".join(" ".join(rng.choices(WORDS, k=60)) for _ in range(8))
        folder = root / f"f{i % 20}"
        folder.mkdir(exist_ok=True)
        (folder / f"Note {i}.md").write_text(f"# Note {i}\n\n{body}\n[[Note {i + 1}]]\n", "utf-8")


def test_quit_during_the_first_build_leaves_and_the_next_open_does_not_wait(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "vault", tmp_path / "home"
    make_vault(root)
    first = browser(root, home, columns=140, lines=30)
    try:
        first.wait_for("notes found", timeout=120)  # building: "indexing: N notes found, …"
        first.press("ctrl+q")
        first.wait_exit(60)
    finally:
        first.close()
    # Left without finishing the build (which ends by writing the snapshot).
    assert not (root / ".reme-tui" / SNAPSHOT_NAME).exists()
    second = browser(root, home, columns=140, lines=30)
    try:
        second.wait_for(f"{NOTES} files", timeout=300)
        assert "waited for it" not in second.output()  # no other process held the lock
        second.press("ctrl+q")
        assert second.wait_exit(60) == 0
    finally:
        second.close()
    assert (root / ".reme-tui" / SNAPSHOT_NAME).exists()
