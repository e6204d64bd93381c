"""The quick local run leaves the slow tests out; CI must not: it runs the README's command."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_slow_marker_is_registered_and_deselects_nothing_by_default() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["pytest"]
    ini = options["ini_options"]
    assert any(m.startswith("slow:") for m in ini["markers"])
    assert "slow" not in str(ini.get("addopts", ""))


def test_ci_runs_every_test_with_the_readme_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "pip install -e '.[test]' && pytest  " in readme
    suite = [line.strip() for line in ci.splitlines() if line.strip().startswith("pytest ")]
    assert suite == ["pytest -q -p no:cacheprovider"], suite
    assert not re.search(r"-m\s", suite[0])


def test_the_readme_command_runs_in_parallel() -> None:
    """Plain `pytest` (README, CI) spreads the tests over a worker per core, with xdist groups."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    addopts = project["tool"]["pytest"]["ini_options"]["addopts"].split()
    assert addopts[addopts.index("-n") + 1] == "auto"
    assert "--dist" in addopts and addopts[addopts.index("--dist") + 1] == "loadgroup"
    assert any(
        r.startswith("pytest-xdist") for r in project["project"]["optional-dependencies"]["test"]
    )
