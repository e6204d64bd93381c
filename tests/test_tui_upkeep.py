"""Palette maintenance and the editor hand-over, through the real browser (demo copy)."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest
from textual.drivers.headless_driver import HeadlessDriver
from textual.pilot import Pilot

from reme_tui.app.browser import RemeApp
from reme_tui.widgets.reader.note_view import NoteView
from tests.helpers import said, settle

SIZE = (140, 40)
NOTE = "digest/wiki/rrf.md"


async def run_command(pilot: Pilot, title: str) -> None:
    """Pick a command palette entry by typing part of its title, as a person would."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*title)
    await settle(pilot)  # the palette searches its providers in a worker
    await pilot.press("enter")
    await settle(pilot)


async def test_palette_rebuild_shows_progress_and_reports(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown: list[tuple[str, int, int]] = []
        show = app.main._show_progress
        app.main._show_progress = lambda verb, done, total: (
            shown.append((verb, done, total)),
            show(verb, done, total),
        )
        await run_command(pilot, "rebuild")
        assert shown and shown[-1][0] == "rebuilding" and shown[-1][1] == shown[-1][2] > 0
        assert not app.query_one("#progress").display, "the bar goes away when done"
        report = next(n for n in said(app) if n.title == "Rebuild index")
        assert f"{app.ws.stats().files} files" in report.message
        assert app.main.status.state.activity == ""


EDITOR_SCRIPT = """#!/bin/sh
# A stand-in $EDITOR: gets +LINE and the file, appends a line to the file.
for last; do :; done
printf 'appended by the editor\\n' >> "$last"
"""


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "fake-editor"
    script.write_text(EDITOR_SCRIPT, "utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(script))
    return script


async def test_edit_runs_editor_and_rereads_the_note(
    indexed_demo: Path, editor: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # run_test's headless driver has no terminal to lend; a real one suspends, runs the
    # editor, resumes. Give the headless driver that ability (it has no terminal to restore).
    monkeypatch.setattr(HeadlessDriver, "can_suspend", property(lambda self: True))
    monkeypatch.setattr(HeadlessDriver, "suspend_application_mode", lambda self: None)
    monkeypatch.setattr(HeadlessDriver, "resume_application_mode", lambda self: None)
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path(NOTE)
        await settle(pilot)
        app.main.focus_reader()
        await pilot.press("e")
        await settle(pilot)
        assert (indexed_demo / NOTE).read_text("utf-8").endswith("appended by the editor\n")
        view = app.query_one(NoteView)
        assert view.lines[-1] == "appended by the editor"
        assert app.main.reader.path == NOTE


async def test_edit_without_a_terminal_says_why(indexed_demo: Path, editor: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = (indexed_demo / NOTE).read_text("utf-8")
        app.main.navigator.open_path(NOTE)
        await settle(pilot)
        app.main.focus_reader()
        await pilot.press("e")
        await settle(pilot)
        assert any("no terminal" in n.message for n in said(app))
        assert (indexed_demo / NOTE).read_text("utf-8") == before
        assert app.main.reader.path == NOTE


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_toggle_vectors_reports_an_unavailable_provider(indexed_demo: Path) -> None:
    (indexed_demo / "reme.yaml").write_text(
        "vectors:\n  enabled: false\n  provider: openai\n  model: test-embed\n"
        f"  base_url: http://127.0.0.1:{closed_port()}/v1\n  timeout: 1\n",
        "utf-8",
    )
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main.status.state.vectors == "vectors off"
        # The palette's "Toggle vectors" (the palette itself: see rebuild).
        app.main.action_toggle_vectors()
        await settle(pilot)
        assert app.main.status.state.vectors.startswith("vectors unavailable:")
        note = next(n for n in said(app) if n.title == "Vectors")
        assert note.severity == "warning" and "unavailable" in note.message
        app.main.action_focus_search()
        await pilot.press(*"bm25")
        await settle(pilot)
        await settle(pilot)
        assert app.main.search_pane.hits, "keyword search still answers"
        app.main.action_toggle_vectors()
        await settle(pilot)
        assert app.main.status.state.vectors == "vectors off"
