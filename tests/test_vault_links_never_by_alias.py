"""Obsidian resolves a link by path and file name only, never by a frontmatter alias
(issue 27, item 4; SPEC §4 as corrected in §14), and one rule (`LinkFinder`) serves the
graph, the reader, rename and delete."""

from __future__ import annotations

import json
import subprocess
import sys

from reme_core import Workspace

VAULT = {
    ".obsidian/app.json": "{}",
    "Target.md": "---\naliases: [Ghost]\n---\n# Target\n",
    "en/Aliases.md": "# Aliases\n\nHow aliases work.\n",
    "de/Aliasse.md": "---\naliases: [Aliases]\n---\n# Aliasse\n",
    "en/Home.md": "# Home\n\n[[Ghost]] and [[Aliases]] and [[Target]]\n",
}


def test_a_link_to_an_alias_only_dangles(make_tree) -> None:
    ws = Workspace.open(make_tree(VAULT))
    try:
        out = {n.path: n.dangling for n in ws.links("en/Home.md").outlinks}
        assert out == {"Ghost": True, "en/Aliases.md": False, "Target.md": False}
        assert [n.path for n in ws.links("Target.md").inlinks] == ["en/Home.md"]
    finally:
        ws.close()


def test_deleting_a_note_leaves_its_links_dangling_not_pointed_at_an_alias(make_tree) -> None:
    """Deleting `Aliases.md` used to re-point its inbound links at another language's note
    whose alias is "Aliases"."""
    ws = Workspace.open(make_tree(VAULT))
    try:
        report = ws.delete("en/Aliases.md")
        assert [(link.path, link.raw) for link in report.inbound] == [("en/Home.md", "[[Aliases]]")]
        out = {n.path: n.dangling for n in ws.links("en/Home.md").outlinks}
        assert out == {"Ghost": True, "Aliases": True, "Target.md": False}
        assert ws.links("de/Aliasse.md").inlinks == []
    finally:
        ws.close()


def test_rename_rewrites_only_what_the_graph_calls_a_link(make_tree) -> None:
    """Renaming Target.md rewrites `[[Target]]`; `[[Ghost]]` (its alias) is no link to it
    and stays as written, in the file and in the move's report."""
    root = make_tree(VAULT)
    ws = Workspace.open(root)
    try:
        report = ws.move("Target.md", "Renamed.md")
        assert [(e.old, e.new) for e in report.edits] == [("[[Target]]", "[[Renamed]]")]
    finally:
        ws.close()
    text = (root / "en/Home.md").read_text()
    assert text == "# Home\n\n[[Ghost]] and [[Aliases]] and [[Renamed]]\n"


def test_stats_count_an_alias_link_as_dangling(make_tree) -> None:
    root = make_tree(VAULT)
    run = subprocess.run(
        [sys.executable, "-m", "reme_tui", "-w", str(root), "stats", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    stats = json.loads(run.stdout)
    assert stats["dangling_links"] == 1
