"""A rename in a copy of a public Obsidian vault keeps every link's written form, on disk
(issue 14, item 2). Skipped where the vault is not on the machine (it is never committed)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from reme_core import Workspace
from tests.helpers import parts

VAULT = Path("/work/vaults/Pokerole-Obsidian-SRD.orig")
ABILITIES = "Pokerole SRD/SRD v3.0/SRD-Abilities"

pytestmark = pytest.mark.skipif(not VAULT.is_dir(), reason="public vault not on this machine")


def grep(root: Path, pattern: str) -> list[str]:
    """`grep -rn PATTERN --include=*.md` as lines `path:line:text`, sorted."""
    rx = re.compile(pattern)
    out = []
    for path in sorted(root.rglob("*.md")):
        if ".reme-tui" in path.parts:
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if rx.search(line):
                out.append(f"{path.relative_to(root).as_posix()}:{n}:{line}")
    return out


def test_renaming_a_much_linked_note_keeps_the_links_short(tmp_path: Path) -> None:
    root = tmp_path / "pokerole"
    shutil.copytree(VAULT, root, ignore=shutil.ignore_patterns(".git"))
    before = grep(root, r"\[\[SRD-Swift Swim\|")
    v2_before = grep(root, r"\[\[SRD-Swift Swim-v2\.0")
    assert len(before) >= 40  # a note with many inlinks, all name-only with an alias
    ws = Workspace.open(root)
    try:
        renamed = f"{ABILITIES}/SRD-Swift Swim (Ability).md"
        report = ws.move(f"{ABILITIES}/SRD-Swift Swim.md", renamed)
        assert report.untouched == [] and len(report.edits) == len(before)
        assert len(parts(ws).index.graph.inlinks(renamed)) == len(before)
        after = grep(root, r"\[\[SRD-Swift Swim")
        new = "[[SRD-Swift Swim (Ability)|"
        expected = [line.replace("[[SRD-Swift Swim|", new) for line in before]
        assert sorted(after) == sorted(expected + v2_before)  # nothing else changed form
        # A name taken by another note: the shortest path that finds only this one.
        taken = ws.move(f"{ABILITIES}/SRD-Sturdy.md", f"{ABILITIES}/SRD-Sturdy-v2.0.md")
        assert {e.new.split("|")[0] for e in taken.edits} == {
            "[[SRD v3.0/SRD-Abilities/SRD-Sturdy-v2.0"
        }
        v2 = "Pokerole SRD/SRD v2.0/SRD-Abilities/SRD-Sturdy-v2.0.md"
        assert len(parts(ws).index.graph.inlinks(v2)) == len(grep(root, r"\[\[SRD-Sturdy-v2\.0\|"))
    finally:
        ws.close()
