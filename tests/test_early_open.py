"""The browser's open, started before its modules import (`reme_tui.opening.Opening`).

`reme-tui` starts `Workspace.open` at once and the app takes it over when its screen is up,
so what the open reported before anything listened must reach the screen, and its error must
reach the app's error hub as before. A real first build through the parse pool (600 notes),
and the installed browser in a pty for the error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reme_core import RemeError
from reme_tui.opening import Opening
from tests.real_vault import N_NOTES, write_vault
from tests.terminal import browser


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = write_vault(tmp_path / "vault")
    (root / "reme.yaml").write_text("workers: 2\n")  # the pool, whatever the core count
    return root


class Heard:
    """A progress listener that keeps every report (`Opening` calls it under its lock)."""

    def __init__(self) -> None:
        self.reports: list[tuple[int, int]] = []

    def __call__(self, done: int, total: int) -> None:
        self.reports.append((done, total))


def test_a_listener_after_the_build_hears_where_it_ended(vault: Path) -> None:
    opening = Opening(vault).start()
    assert opening.wait(300)
    heard = Heard()
    opening.listen(heard)
    assert heard.reports == [(N_NOTES, N_NOTES)]  # the newest report, replayed once
    ws = opening.result()
    try:
        assert ws.counts().files == N_NOTES
        assert [h.path for h in ws.search("uniq17", expand_links=False).results] == [
            "Area 7/Note 17.md"
        ]
    finally:
        ws.close()


def test_a_listener_from_the_start_hears_the_build_to_its_end(vault: Path) -> None:
    heard = Heard()
    opening = Opening(vault)
    opening.listen(heard)  # before the open reports anything: nothing to replay
    assert heard.reports == []
    opening.start()
    assert opening.wait(300)
    opening.result().close()
    assert heard.reports[-1] == (N_NOTES, N_NOTES)
    done = [d for d, _ in heard.reports]
    assert done == sorted(done)
    assert {t for _, t in heard.reports} == {N_NOTES}


def test_the_opens_error_is_raised_to_whoever_takes_the_result(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("# a\n")
    (root / "reme.yaml").write_text("nonsense_key: 1\n")
    opening = Opening(root).start()
    assert opening.wait(60)
    with pytest.raises(RemeError, match="nonsense_key"):
        opening.result()


def test_the_browser_says_why_it_could_not_open(tmp_path: Path) -> None:
    """The installed browser, whose open started before its screen: the reason is drawn in
    the reader and the header, no traceback, and Ctrl+Q leaves with 0."""
    root, home = tmp_path / "vault", tmp_path / "home"
    root.mkdir()
    (root / "a.md").write_text("# a\n")
    (root / "reme.yaml").write_text("nonsense_key: 1\n")
    term = browser(root, home, columns=100, lines=30)
    try:
        term.wait_for("Could not open", timeout=60)
        term.wait_for("unknown key", timeout=10)
        assert "could not open the workspace" in term.text()
        term.press("ctrl+q")
        assert term.wait_exit(30) == 0
        assert "Traceback" not in term.output()
    finally:
        term.close()
