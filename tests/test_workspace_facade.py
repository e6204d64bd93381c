"""`Workspace`'s public names are its API: its parts (live index, store, locks, indexer) sit
behind one private attribute that only reme_core's ports and tests.helpers.parts reach."""

from __future__ import annotations

import re
from pathlib import Path

from reme_core import Workspace
from tests.helpers import parts

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("index", "store", "lock", "write_lock", "live", "indexer")
# A workspace by any of the names the UI and benchmarks give it, then a private name or a part.
PRIVATE = [n for n in vars(Workspace) if n.startswith("_") and not n.startswith("__")]
REACH = re.compile(
    r"\b(?:ws|_ws|workspace)\.(?:" + "|".join(PARTS) + r")\b"
    r"|\._parts\b"
    r"|\.(?:" + "|".join(re.escape(n) for n in PRIVATE) + r")\b"
)


def _offending_lines() -> list[str]:
    found: list[str] = []
    for package in ("reme_tui", "benchmarks"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
                if REACH.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_the_ui_and_benchmarks_use_only_public_workspace_names() -> None:
    assert _offending_lines() == []


def test_the_scan_catches_a_reach_behind_the_facade() -> None:
    """The pattern the scan uses finds each way code could reach a part."""
    for line in ("ws.index.nodes", "self.ws.store", "self.app.ws.lock", "ws._parts.live"):
        assert REACH.search(line), line
    assert not REACH.search("ws.search('x')") and not REACH.search("rows.index(3)")


def test_the_parts_are_not_public_names(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha [[b]]\n", "utf-8")
    ws = Workspace.open(tmp_path)
    try:
        public = {n for n in dir(ws) if not n.startswith("_")}
        assert public.isdisjoint(PARTS)
        assert "a.md" in parts(ws).index.nodes  # the parts are still there, behind _parts
    finally:
        ws.close()
