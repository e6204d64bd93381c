"""Tags as Obsidian has them (issue 14, item 3): frontmatter `tags`/`tag` in every shape,
inline `#tags` of the body (not in code, headings, URLs, or pure numbers), nested `#a/b`
matched by `tag:a`; stored with the index, so a reopen, a snapshot and the parse pool agree."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from reme_core import SearchOptions, Workspace, parse_query
from reme_core.models import frontmatter_tags
from reme_core.parse.parse_pool import POOL_THRESHOLD
from reme_core.parse.settings import ParseSettings
from reme_core.parse.tags import inline_tags
from reme_tui.text.opening import warning_line

Tree = Callable[[dict[str, str | bytes]], Path]

BODY = """---
tags: [from-yaml]
note: "#not-in-frontmatter"
---
# Heading #not-a-heading-tag
## Other heading
Body #Project and #project again, nested #area/sub/leaf, #y1984 but not #1984 or #12/34.
Not: x#glued, \\#escaped, https://example.org/page#frag, [l](a.md#frag), [[Note#Heading]].
Inline `#in-code` and ``#in #double``, then #last-one.
#line-start #中文标签 #with_under #trailing/

```
#fenced
```

    #indented code
"""


def test_inline_tags_follow_obsidian() -> None:
    assert inline_tags(BODY, body_line=5) == [
        "Project",
        "area/sub/leaf",
        "y1984",
        "last-one",
        "line-start",
        "中文标签",
        "with_under",
        "trailing",
    ]


@pytest.mark.parametrize(
    ("frontmatter", "expected"),
    [
        ({"tags": ["a", "#b", None, "c/d"]}, ["a", "b", "c/d"]),
        ({"tags": "a, b c,#d"}, ["a", "b", "c", "d"]),
        ({"tag": "solo"}, ["solo"]),
        ({"Tags": ["cased"]}, ["cased"]),
        ({"tags": None, "tag": ["fallback"]}, ["fallback"]),
        ({"tags": {"a": 1}}, []),
        ({"tags": [["nested"], {"x": 1}, "ok"]}, ["ok"]),
    ],
)
def test_frontmatter_tags_in_every_shape(frontmatter: dict, expected: list[str]) -> None:
    assert frontmatter_tags(frontmatter) == expected


def notes(ws: Workspace, line: str, limit: int = 50) -> list[str]:
    """The notes a query line finds, as the browser and the CLI parse it."""
    q = parse_query(line)
    found = ws.search(q.request(SearchOptions(limit, expand_links=False)))
    return sorted(h.path for h in found.results)


VAULT: dict[str, str | bytes] = {
    ".obsidian/app.json": "{}",
    "a.md": "# A\nworking on #project/alpha today\n",
    "b.md": "---\ntags: project\n---\n# B\nno inline tag\n",
    "c.md": "---\ntag: [Other]\n---\n# C\n#PROJECT is shouted here\n",
    "d.md": "# D\nonly `#project` in code and #123\n",
    "e.md": "# E #project\nnothing but a heading\n",
}


def test_inline_and_nested_tags_are_searchable(make_tree: Tree) -> None:
    ws = Workspace.open(make_tree(VAULT))
    try:
        assert notes(ws, "tag:project") == ["a.md", "b.md", "c.md"]
        assert notes(ws, "tag:project/alpha") == ["a.md"]
        assert notes(ws, "tag:project -tag:other") == ["a.md", "b.md"]
        assert notes(ws, "tag:123") == []
        assert ws.node("c.md") is not None and ws.node("c.md").tags == ["Other", "PROJECT"]
        # A live edit: the tag arrives with the file, and leaves with it.
        (ws.root / "d.md").write_text("# D\nnow #project/beta\n")
        (ws.root / "a.md").write_text("# A\nno tags left\n")
        ws.sync()
        assert notes(ws, "tag:project") == ["b.md", "c.md", "d.md"]
    finally:
        ws.close()
    # Reopened from the snapshot, then from the stored rows alone: the same answer.
    for drop_snapshot in (False, True):
        if drop_snapshot:
            (ws.root / ".reme-tui/bm25-postings.npz").unlink()
        again = Workspace.open(ws.root)
        try:
            assert notes(again, "tag:project") == ["b.md", "c.md", "d.md"]
            assert again.warnings == []
        finally:
            again.close()


def test_memory_mode_keeps_frontmatter_tags_only(make_tree: Tree) -> None:
    root = make_tree(
        {
            "digest/wiki/a.md": "---\nname: A\ntags: [kept]\n---\nbody #inline\n",
            "daily/2026-06-01/b.md": "---\nname: B\n---\nbody #inline\n",
        }
    )
    ws = Workspace.open(root)
    try:
        assert ws.mode == "memory"
        assert notes(ws, "tag:kept") == ["digest/wiki/a.md"]
        assert notes(ws, "tag:inline") == []
    finally:
        ws.close()


def test_an_index_from_before_inline_tags_is_rebuilt(make_tree: Tree) -> None:
    root = make_tree(VAULT)
    Workspace.open(root).close()
    db = root / ".reme-tui/index.sqlite"
    # The files table as schema 1 had it: no tags column.
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE files DROP COLUMN tags")
    conn.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    ws = Workspace.open(root)
    try:
        assert any(
            "older version" in w and "rebuilt" in w for w in map(warning_line, ws.warnings)
        ), ws.warnings
        assert notes(ws, "tag:project") == ["a.md", "b.md", "c.md"]
    finally:
        ws.close()


def test_an_index_built_with_other_parse_settings_is_rebuilt(make_tree: Tree) -> None:
    root = make_tree(VAULT)
    Workspace.open(root).close()
    conn = sqlite3.connect(root / ".reme-tui/index.sqlite")
    fingerprint = conn.execute("SELECT value FROM meta WHERE key='fingerprint'").fetchone()[0]
    current = f"parse_version={ParseSettings().parse_version}"
    assert current in fingerprint
    old = fingerprint.replace(f", {current}", ", parse_version=1")  # an older version's
    conn.execute("UPDATE meta SET value=? WHERE key='fingerprint'", (old,))
    conn.commit()
    conn.close()
    ws = Workspace.open(root)
    try:
        assert any("settings changed" in w for w in map(warning_line, ws.warnings)), ws.warnings
    finally:
        ws.close()


def test_tags_from_the_parse_pool_and_the_cli(make_tree: Tree) -> None:
    n = POOL_THRESHOLD + 44  # the pool parses these
    files: dict[str, str | bytes] = {".obsidian/app.json": "{}", "reme.yaml": "workers: 2\n"}
    for i in range(n):
        tag = "#even/deep" if i % 2 == 0 else "#odd"
        files[f"Area {i % 5}/Note {i}.md"] = f"# Note {i}\nsome text {tag} here\n"
    root = make_tree(files)
    ws = Workspace.open(root)
    try:
        assert ws.last_reindex is not None
        assert len(notes(ws, "tag:even")) == 50  # the result limit
        assert len(notes(ws, "tag:odd", limit=1000)) == n // 2
    finally:
        ws.close()
    out = subprocess.run(
        [sys.executable, "-m", "reme_tui", "search", "tag:even/deep", "-w", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ},
    )
    assert out.returncode == 0, out.stderr
    assert "Note 0.md" in out.stdout and "Note 1.md" not in out.stdout
