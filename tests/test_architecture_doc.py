"""docs/ARCHITECTURE.md's module map names every module of both packages, and names no module
that does not exist: a module added, moved or removed without the map fails here by name."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import reme_core
import reme_tui

ROOT = Path(reme_core.__file__).parent.parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"
_NAME = re.compile(r"\b(\w+)\.py\b")


def _module_map() -> str:
    """The first fenced block of the page: the module map."""
    return DOC.read_text(encoding="utf-8").split("```")[1]


def _modules() -> list[Path]:
    return [
        p
        for pkg in (Path(reme_core.__file__).parent, Path(reme_tui.__file__).parent)
        for p in sorted(pkg.rglob("*.py"))
        if p.name != "__init__.py"
    ]


def _missing(modules: list[Path], text: str) -> list[str]:
    """Modules the map does not name: a file name shared by several modules (`anchors.py`,
    `commands.py`) must be named as often as there are modules with it."""
    named = Counter(_NAME.findall(text))
    have = Counter(p.stem for p in modules)
    return sorted(p.relative_to(ROOT).as_posix() for p in modules if named[p.stem] < have[p.stem])


def test_the_check_names_a_module_the_map_leaves_out() -> None:
    modules = [ROOT / "reme_tui" / "app" / "commands.py", ROOT / "reme_tui" / "cli" / "commands.py"]
    assert _missing(modules, "app/\n  commands.py  the palette") == [
        "reme_tui/app/commands.py",
        "reme_tui/cli/commands.py",
    ]
    assert _missing(modules, "commands.py\ncommands.py") == []


def test_every_module_is_in_the_module_map() -> None:
    assert _missing(_modules(), _module_map()) == []


def test_the_module_map_names_no_module_that_does_not_exist() -> None:
    have = {p.stem for p in _modules()} | {"__init__"}
    assert sorted(set(_NAME.findall(_module_map())) - have) == []
