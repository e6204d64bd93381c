"""What the installed `reme-tui` says about itself: --version, --help, and --demo keeping only
its newest copies in the user data folder."""

from __future__ import annotations

import os
from importlib.metadata import version
from pathlib import Path

import pytest

from reme_tui.cli import program
from tests.helpers import REME_TUI
from tests.test_config_errors import reme_tui


def test_version_names_the_program_and_textual() -> None:
    out = reme_tui("--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"reme-tui {version('reme-tui')} (Textual {version('textual')})"


def test_help_has_examples_query_syntax_exit_codes_and_environment() -> None:
    out = reme_tui("--help")
    assert out.returncode == 0, out.stderr
    for needle in ("examples:", '"a phrase"', "-word", "path:", "tag:", "after:", "before:"):
        assert needle in out.stdout
    for needle in ("exit codes:", "2  usage error", "REME_WORKSPACE", "REME_DEBUG", "EDITOR"):
        assert needle in out.stdout


def test_demo_keeps_the_newest_copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    data = tmp_path / "reme-tui"
    data.mkdir()
    for name in ("demo-20200101-000000", "demo-20200101-000001", "demo-20200101-000002"):
        (data / name).mkdir()
    (data / "demo-elsewhere").symlink_to(tmp_path)  # never followed, never removed
    made = program.demo_workspace()
    assert made.parent == data and (made / "digest").is_dir()
    kept = sorted(p.name for p in data.iterdir() if not p.is_symlink())
    assert len(kept) == program.DEMO_COPIES_KEPT and made.name in kept
    assert "demo-20200101-000000" not in kept
    assert os.path.islink(data / "demo-elsewhere")


def test_shell_completion_covers_every_command() -> None:
    import subprocess

    for shell in ("bash", "zsh"):
        proc = subprocess.run(
            [*REME_TUI, "--print-completion", shell], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        for word in ("search", "traverse", "mcp", "--start-line", "--print-completion"):
            assert word in proc.stdout, (shell, word)
    bad = subprocess.run([*REME_TUI, "--print-completion", "fish"], capture_output=True)
    assert bad.returncode == 2
