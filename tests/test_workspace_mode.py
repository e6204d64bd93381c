"""Which mode a folder is opened in, and why (SPEC §14): no rule hides a vault's notes, a ReMe
workspace opened in Obsidian is still one when it says so, and the CLI and the browser's
header say which mode was chosen and why."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from textual.widgets import Input, Static

from reme_core import ModeReason, Workspace, choose_mode, discover, load_config
from reme_tui.app.browser import RemeApp
from tests.conftest import write_files
from tests.test_tui_app import settle

VAULT = {
    ".obsidian/app.json": "{}",
    "daily/2024-01-02.md": "# Jan 2\n\nwalked the dog\n",
    "Projects/Garden.md": "# Garden\n\nplant the tomatoes, walk the rows\n",
    "Inbox.md": "# Inbox\n\nwalk notes\n",
}
REME_STATE = "metadata/file_catalog/default.jsonl.zst"


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reme_tui", *args, "-w", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "REME_WORKSPACE": ""},
    )


def opened(root: Path) -> Workspace:
    ws = Workspace.open(root)
    ws.close()
    return ws


def test_an_obsidian_vault_with_a_daily_folder_indexes_every_note(tmp_path: Path) -> None:
    root = write_files(tmp_path / "v", VAULT)
    ws = Workspace.open(root)
    assert ws.stats().to_dict()["mode_reason"] == "obsidian"
    ws.close()
    assert ws.mode == "vault"
    assert ws.mode_choice.reason is ModeReason.OBSIDIAN
    assert ws.mode_choice.layers == ("daily",)
    assert set(ws.files()) == {"daily/2024-01-02.md", "Projects/Garden.md", "Inbox.md"}
    assert not (root / "metadata").exists(), "a vault's state is hidden, not ReMe's metadata/"


def test_reme_yaml_mode_memory_wins_over_obsidian(tmp_path: Path) -> None:
    root = write_files(tmp_path / "v", {**VAULT, "reme.yaml": "mode: memory\n"})
    ws = opened(root)
    assert (ws.mode, ws.mode_choice.reason) == ("memory", ModeReason.SETTING)
    assert set(ws.files()) == {"daily/2024-01-02.md"}
    assert ws.mode_choice.outside == ("Inbox.md", "Projects/")


def test_reme_state_marks_a_memory_workspace_only_without_obsidian(tmp_path: Path) -> None:
    files = {REME_STATE: "", "session/dialog/s1.jsonl": "{}\n", "Notes.md": "# n\n"}
    root = write_files(tmp_path / "m", files)
    choice = choose_mode(root, load_config(root))
    assert (choice.mode, choice.reason, choice.reme_state) == (
        "memory",
        ModeReason.REME_STATE,
        True,
    )
    assert choice.outside == ("Notes.md",)
    assert discover(root).how == "here", "ReMe's own state marks a workspace"
    # Opened in Obsidian, it is a vault (every note indexed) until reme.yaml says otherwise.
    (root / ".obsidian").mkdir()
    choice = choose_mode(root, load_config(root))
    assert (choice.mode, choice.reason, choice.reme_state) == ("vault", ModeReason.OBSIDIAN, True)


def test_layers_without_obsidian_are_memory_and_name_what_is_left_out(tmp_path: Path) -> None:
    files = {f"n{i}/x.md": "# x\n" for i in range(5)}
    root = write_files(tmp_path / "m", {**files, "digest/a.md": "# a\n", "metadata/own.md": ""})
    choice = choose_mode(root, load_config(root))
    assert (choice.mode, choice.reason, choice.layers) == (
        "memory",
        ModeReason.MEMORY_LAYERS,
        ("digest",),
    )
    assert choice.outside == ("n0/", "n1/", "n2/") and choice.more_outside == 2


def test_a_users_metadata_notes_folder_is_a_plain_vault(tmp_path: Path) -> None:
    root = write_files(tmp_path / "v", {"metadata/people.md": "# People\n", "a.md": "# A\n"})
    ws = opened(root)
    assert (ws.mode, ws.mode_choice.reason) == ("vault", ModeReason.PLAIN)
    assert set(ws.files()) == {"metadata/people.md", "a.md"}


def test_cli_says_the_mode_when_it_matters(tmp_path: Path) -> None:
    mixed = write_files(tmp_path / "v", VAULT)
    out = cli(mixed, "search", "walk")
    assert out.returncode == 0, out.stderr
    assert "Projects/Garden.md" in out.stdout and "Inbox.md" in out.stdout
    line = "reme-tui: vault mode (.obsidian/ found): every note is indexed, daily/ included; "
    assert line + "`mode: memory` in reme.yaml makes it a ReMe workspace" in out.stderr
    plain = write_files(tmp_path / "p", {"a.md": "# A\n\nwalk\n"})
    out = cli(plain, "search", "walk")
    assert out.returncode == 0 and "mode" not in out.stderr, "an ordinary vault: nothing to say"
    out = cli(plain, "--reindex")
    assert "reme-tui: vault mode (no .obsidian/ and no ReMe layer folder)" in out.stderr
    memory = write_files(tmp_path / "m", {"daily/a.md": "# a\n\nwalk\n", "Notes.md": "# N\n"})
    out = cli(memory, "search", "walk")
    assert "memory mode (daily/ found): only daily/, digest/ and resource/ are indexed; " in (
        out.stderr
    )
    assert "not indexed: Notes.md (`mode: vault` in reme.yaml indexes every note)" in out.stderr


async def test_header_says_the_mode_and_why(tmp_path: Path) -> None:
    root = write_files(tmp_path / "v", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        assert app.main.status.state.mode == "vault, .obsidian/ found"
        assert "│  vault, .obsidian/ found" in str(app.main.status.render())


async def test_search_box_examples_come_from_the_open_workspace(tmp_path: Path) -> None:
    files = {
        **VAULT,
        "Projects/Roof.md": "---\ncreated: 2023-04-05\n---\n# Roof\n",
        "Projects/[x]/Odd.md": "# Odd\n",
    }
    root = write_files(tmp_path / "v", files)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        box = app.query_one("#query", Input)
        assert box.placeholder == 'Search  (e.g. words "a phrase" -word path:Projects/)'
        help_shown = str(app.query_one("#search-status", Static).render())
        assert "path:Projects/" in help_shown and "daily/" not in help_shown
        assert "after:2023-04-05  before:2024-01-02" in help_shown
        assert "2026" not in help_shown
    plain = write_files(tmp_path / "p", {"Inbox.md": "# Inbox\n"})
    app = RemeApp(plain, watch=False)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        help_shown = str(app.query_one("#search-status", Static).render())
        assert "path:folder/" in help_shown and "after:" not in help_shown
        assert app.query_one("#query", Input).placeholder.endswith("-word)")


def test_browser_start_says_the_mode_first(tmp_path: Path, capsys) -> None:
    from reme_tui.cli.program import say_mode

    root = write_files(tmp_path / "p", {"Inbox.md": "# Inbox\n"})
    say_mode(root)
    expected = "vault mode (no .obsidian/ and no ReMe layer folder): every note is indexed"
    assert capsys.readouterr().err == f"reme-tui: {root.resolve()}: {expected}\n"
    (root / "reme.yaml").write_text("mode: [bad\n")
    say_mode(root)  # a bad reme.yaml is the browser's to explain, on its screen
    assert capsys.readouterr().err == ""


def test_cli_is_quiet_when_the_owner_chose_the_mode(tmp_path: Path) -> None:
    root = write_files(tmp_path / "v", {**VAULT, "reme.yaml": "mode: memory\n"})
    out = cli(root, "search", "walk")
    assert out.returncode == 0 and "daily/2024-01-02.md" in out.stdout
    assert "mode" not in out.stderr, out.stderr
    out = cli(root, "--reindex")
    assert "reme-tui: memory mode (mode: memory in reme.yaml): only daily/, digest/ and " in (
        out.stderr
    )
    assert "not indexed: Inbox.md, Projects/\n" in out.stderr
