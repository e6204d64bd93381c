"""Config and flag errors a person can act on, through the installed `reme-tui` script: the
file, line (and column for YAML syntax), the dotted key and what it accepts; exit codes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from reme_core import load_config
from reme_core.errors import ConfigError
from tests.helpers import REME_TUI


def reme_tui(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The console script beside this interpreter (the one `pip install` made)."""
    env = {k: v for k, v in os.environ.items() if k != "REME_DEBUG"}
    return subprocess.run(
        [*REME_TUI, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "note.md").write_text("# Note\n\nsolar panels\n", encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("yaml_text", "needle"),
    [
        ("chunk_max_bytes: -5\n", "reme.yaml:1: chunk_max_bytes: must be greater than 0, got -5"),
        ("workers: 1\nmax_file_bytes: 0\n", "reme.yaml:2: max_file_bytes: must be greater than 0"),
        ("search:\n  limit: 1\n  vector_weight: 1.5\n", "reme.yaml:3: search.vector_weight:"),
        ("optimize_tombstone_ratio: -0.1\n", "optimize_tombstone_ratio: must be between 0 and 1"),
        ("search:\n  max_links_per_direction: 0\n", "reme.yaml:2: search.max_links_per_direction"),
        ("read_max_lines: 0\n", "reme.yaml:1: read_max_lines: must be at least 1"),
        ("workers: -1\n", "reme.yaml:1: workers: must be at least 0, got -1"),
        ("search:\n  candidate_multiplier: 0\n", "search.candidate_multiplier: must be greater"),
        ("watch:\n  quiet_ms: -3\n", "reme.yaml:2: watch.quiet_ms: must be at least 0"),
        ("search:\n  limit: [1\n", "(while parsing a flow sequence from line 2, column 10)"),
        ("a: 1\n b: 2\n", "reme.yaml:2:3: not valid YAML: mapping values are not allowed"),
        ("search:\n  nope: 1\n", "reme.yaml:2: unknown key 'search.nope'"),
        ("workers: 1\nworkers: 2\n", "reme.yaml:2: workers is given twice (first on line 1)"),
        ("search: 3\n", "reme.yaml:1: search must be a mapping of settings"),
        ("- a\n", "reme.yaml: must be a mapping of settings"),
        ("encoding: klingon\n", "reme.yaml:1: encoding: unknown encoding 'klingon'"),
        (
            "search:\n  fusion: borda\n",
            "reme.yaml:2: search.fusion: must be one of guarded, convex, rrf, got 'borda'",
        ),
    ],
)
def test_reme_yaml_errors_name_file_line_and_key(vault: Path, yaml_text: str, needle: str) -> None:
    (vault / "reme.yaml").write_text(yaml_text, encoding="utf-8")
    out = reme_tui("search", "solar", "-w", str(vault))
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert needle in out.stderr
    assert str(vault / "reme.yaml") in out.stderr
    assert "unexpected error" not in out.stderr and "Traceback" not in out.stderr


def test_ranges_hold_for_the_library_too(tmp_path: Path) -> None:
    (tmp_path / "reme.yaml").write_text("search:\n  limit: 3\n", encoding="utf-8")
    assert load_config(tmp_path).search.limit == 3
    with pytest.raises(ConfigError, match=r"option: search\.vector_weight: must be between"):
        load_config(tmp_path, {"search": {"vector_weight": float("nan")}})


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("search", "x", "--start-date", "2026-13-45"), "argument --start-date: expected a date"),
        (("search", "x", "--end-date", "tomorrow"), "argument --end-date: expected a date"),
        (("search", "x", "--limit", "-1"), "argument --limit: must be at least 1"),
        (("search", "x", "--min-score", "nan"), "argument --min-score: expected a finite"),
        (("read", "note.md", "--start-line", "0"), "argument --start-line: must be at least 1"),
        (("traverse", "note.md", "--depth", "-1"), "argument --depth: must be at least 0"),
    ],
)
def test_bad_flag_values_are_usage_errors(vault: Path, args: tuple[str, ...], needle: str) -> None:
    out = reme_tui(*args, "-w", str(vault))
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert needle in out.stderr and "Traceback" not in out.stderr
