"""`Workspace.write` on real files and a real index: create, replace, merge, refuse (issue 16)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from reme_core import FileRefused, PathRefused, RemeError, Workspace, WriteReport
from reme_tui.text.reports import write_text

NOTE = """---
# who wrote it
name: Kestrel
description: the retrieval system
date: 2026-06-20
tags:
- search
- ranking
kind: project   # stays as written
---
# Kestrel

Old body with [[digest/wiki/bm25.md]].

## Sources

Seen in [[daily/2026-06-20.md]].
"""


@pytest.fixture
def ws(make_tree: Callable[[dict[str, str | bytes]], Path]) -> Workspace:
    root = make_tree({"digest/wiki/kestrel.md": NOTE, "digest/wiki/bm25.md": "# BM25\n"})
    opened = Workspace.open(root)
    yield opened
    opened.close()


def _leftovers(root: Path) -> list[str]:
    return [p.name for p in root.rglob("*") if p.name.endswith(".tmp")]


def test_new_note_is_written_and_found_at_once(ws: Workspace) -> None:
    report = ws.write(
        "digest/wiki/zephyrine.md",
        "# Zephyrine\n\nA quokka-shaped index. See [[digest/wiki/bm25.md]].",
        name="Zephyrine",
        description="a test note",
        metadata={"kind": "concept", "tags": ["x"]},
    )
    assert isinstance(report, WriteReport)
    assert report.created and report.indexed and report.body_replaced
    assert report.set_keys == ["name", "description", "kind", "tags"]
    text = (ws.root / "digest/wiki/zephyrine.md").read_text()
    assert text.startswith("---\nname: Zephyrine\ndescription: a test note\nkind: concept\n")
    assert text.endswith("See [[digest/wiki/bm25.md]].\n")
    hits = ws.search("quokka").results
    assert [h.path for h in hits] == ["digest/wiki/zephyrine.md"]
    inlinks = [n.path for n in ws.links("digest/wiki/bm25.md").inlinks]
    assert "digest/wiki/zephyrine.md" in inlinks
    assert _leftovers(ws.root) == []


def test_merge_keeps_unnamed_keys_their_text_and_order(ws: Workspace) -> None:
    report = ws.write(
        "digest/wiki/kestrel.md",
        "# Kestrel\n\nNew body.\n",
        description="hybrid retrieval system",
        metadata={"confidence": "observed", "kind": None},
    )
    assert not report.created and report.removed_keys == ["kind"]
    text = (ws.root / "digest/wiki/kestrel.md").read_text()
    assert text == (
        "---\n# who wrote it\nname: Kestrel\ndescription: hybrid retrieval system\n"
        "date: 2026-06-20\ntags:\n- search\n- ranking\nconfidence: observed\n---\n"
        "# Kestrel\n\nNew body.\n"
    )
    node = ws.node("digest/wiki/kestrel.md")
    assert node.description == "hybrid retrieval system"
    assert all("Old body" not in h.text for h in ws.search("old body").results)


def test_fields_only_keep_the_body(ws: Workspace) -> None:
    before = (ws.root / "digest/wiki/kestrel.md").read_text()
    report = ws.write("digest/wiki/kestrel.md", name="Kestrel (retired)")
    after = (ws.root / "digest/wiki/kestrel.md").read_text()
    assert not report.body_replaced and "body kept" in write_text(report)
    assert after == before.replace("name: Kestrel\n", "name: Kestrel (retired)\n")


def test_body_only_keeps_the_frontmatter_verbatim(ws: Workspace) -> None:
    ws.write("digest/wiki/kestrel.md", "replaced")
    text = (ws.root / "digest/wiki/kestrel.md").read_text()
    assert text == NOTE.split("---\n# Kestrel")[0] + "---\nreplaced\n"


def test_crlf_note_stays_crlf_and_mode_is_kept(ws: Workspace) -> None:
    path = ws.root / "digest/wiki/bm25.md"
    path.write_bytes(b"---\r\nname: BM25\r\n---\r\nold\r\n")
    os.chmod(path, 0o640)
    ws.write("digest/wiki/bm25.md", "new\nlines", description="ranking")
    assert (
        path.read_bytes() == b"---\r\nname: BM25\r\ndescription: ranking\r\n---\r\nnew\r\nlines\r\n"
    )
    assert path.stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize(
    "path",
    [
        "../x.md",
        "/etc/passwd.md",
        "digest/../../x.md",
        ".trash/x.md",
        "metadata/x.md",
        "digest/.hidden.md",
        "digest/wiki/notes.txt",
        "digest/wiki/a#b.md",
        "",
    ],
)
def test_refused_paths_write_nothing(ws: Workspace, path: str) -> None:
    before = sorted(p.as_posix() for p in ws.root.rglob("*"))
    with pytest.raises(PathRefused):
        ws.write(path, "x", name="x")
    assert sorted(p.as_posix() for p in ws.root.rglob("*")) == before


def test_symlink_escape_is_refused(ws: Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws.root / "digest/out").symlink_to(outside)
    with pytest.raises(PathRefused):
        ws.write("digest/out/x.md", "x")
    assert list(outside.iterdir()) == []


def test_broken_frontmatter_is_not_merged_but_body_can_change(ws: Workspace) -> None:
    path = ws.root / "digest/wiki/bm25.md"
    path.write_text("---\nname: [unclosed\n---\nbody\n")
    with pytest.raises(RemeError, match="frontmatter"):
        ws.write("digest/wiki/bm25.md", name="fixed")
    assert path.read_text() == "---\nname: [unclosed\n---\nbody\n"
    ws.write("digest/wiki/bm25.md", "new body\n")
    assert path.read_text() == "---\nname: [unclosed\n---\nnew body\n"


def test_flow_mapping_frontmatter_is_refused_not_mangled(ws: Workspace) -> None:
    path = ws.root / "digest/wiki/bm25.md"
    path.write_text("---\n{name: a,\n description: b}\n---\nbody\n")
    with pytest.raises(RemeError, match="cannot merge"):
        ws.write("digest/wiki/bm25.md", name="c")
    assert path.read_text() == "---\n{name: a,\n description: b}\n---\nbody\n"


def test_invalid_utf8_note_is_refused(ws: Workspace) -> None:
    path = ws.root / "digest/wiki/bm25.md"
    path.write_bytes(b"# BM25 \xff\n")
    with pytest.raises(FileRefused):
        ws.write("digest/wiki/bm25.md", name="x")
    assert path.read_bytes() == b"# BM25 \xff\n"


def test_note_without_frontmatter_gets_one(ws: Workspace) -> None:
    ws.write("digest/wiki/bm25.md", name="BM25", description="ranking")
    text = (ws.root / "digest/wiki/bm25.md").read_text()
    assert text == "---\nname: BM25\ndescription: ranking\n---\n# BM25\n"
    assert ws.node("digest/wiki/bm25.md").name == "BM25"


def test_outside_indexed_folders_is_written_not_indexed(ws: Workspace) -> None:
    report = ws.write("notes/loose.md", "loose words", name="Loose")
    assert report.created and not report.indexed
    assert "not searchable" in write_text(report)
    assert (ws.root / "notes/loose.md").is_file()
