"""What the installed `reme-tui` says about itself: --version, --help, and --demo keeping only
its newest copies in the user data folder."""

from __future__ import annotations

import os
import shutil
import subprocess
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
    for shell in ("bash", "zsh", "fish"):
        proc = subprocess.run(
            [*REME_TUI, "--print-completion", shell], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        for word in ("search", "traverse", "mcp", "--start-line", "--print-completion"):
            assert (word if shell != "fish" else word.lstrip("-")) in proc.stdout, (shell, word)
    bad = subprocess.run([*REME_TUI, "--print-completion", "tcsh"], capture_output=True)
    assert bad.returncode == 2


def test_fish_completion_offers_commands_options_choices_and_folders(tmp_path: Path) -> None:
    from reme_tui.cli.fish_completion import fish_script

    script = fish_script(program.completion_parser())
    for name in program.COMMANDS:  # every command, then each one's own options
        assert f"-n __fish_use_subcommand -a {name} -d " in script
        assert f"'__fish_seen_subcommand_from {name}' -s w -l workspace -x" in script
    assert "-l print-completion -x -a 'bash zsh fish'" in script
    assert "'__fish_seen_subcommand_from read' -l start-line -x" in script
    fish = shutil.which("fish")
    if fish is None:
        return  # what fish itself makes of it is checked where fish is installed
    (tmp_path / "notes").mkdir()
    (tmp_path / "reme.fish").write_text(script)

    def complete(line: str) -> list[str]:
        done = subprocess.run(
            [fish, "--no-config", "-c", f"source reme.fish; complete -C '{line}'"],
            cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert complete("reme-tui sea") == ["search"]
    assert complete("reme-tui --print-completion ") == ["bash", "fish", "zsh"]
    assert "--limit" in complete("reme-tui search --li")
    assert complete("reme-tui no") == ["notes/"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["serch", "solar"], "'serch' is not a command; did you mean 'search'?"),
        (["reed", "x.md"], "'reed' is not a command; did you mean 'read'?"),
        (["frobnicate"], "'frobnicate' is neither a command nor a folder (commands: chunks,"),
    ],
)
def test_a_mistyped_command_is_a_usage_error_naming_the_closest(
    argv: list[str], says: str, indexed_demo: Path
) -> None:
    out = reme_tui(*argv, "-w", str(indexed_demo))
    assert out.returncode == 2
    assert out.stderr.strip().startswith(f"reme-tui: {says}")
    assert out.stdout == ""


def test_a_path_that_is_not_a_folder_is_still_named_as_such(tmp_path: Path) -> None:
    out = reme_tui(str(tmp_path / "nowhere" / "notes"))
    assert out.returncode == 1
    assert out.stderr.strip() == f"reme-tui: {tmp_path / 'nowhere' / 'notes'}: not a folder"


def test_short_V_is_the_version() -> None:
    assert reme_tui("-V").stdout == reme_tui("--version").stdout != ""
