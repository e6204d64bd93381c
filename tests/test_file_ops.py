"""Link-safe move, delete and create on real files, a real SQLite index, no mocks (issue 7)."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from reme_core import (
    FileRefused,
    InboundLink,
    LinkEdit,
    PathRefused,
    RemeError,
    UndoRefused,
    Workspace,
    inbound_links,
)
from reme_tui.text.opening import recovery_line
from reme_tui.text.reports import delete_lines, move_lines, undo_lines
from tests.helpers import parts, tree_bytes

SRC = "digest/wiki/bm25.md"
DST = "digest/ranking/okapi-bm25.md"

TARGET = """---
name: BM25
description: lexical ranking function
---
# BM25
Okapi weighting with saturation. See also [[digest/wiki/bm25.md#L5]].
"""

# Every inbound form that must change, and every look-alike that must not.
INBOUND = """---
name: Baseline
description: first run
source: "[[digest/wiki/bm25.md]]"
---
# Baseline
plain [[digest/wiki/bm25.md]] and anchored [[digest/wiki/bm25.md#L5-L6,L9]]
aliased [[digest/wiki/bm25.md|the ranker]] and both [[digest/wiki/bm25.md#L5|the ranker]]
embedded ![[digest/wiki/bm25.md#L1-L2]] spaced [[ digest/wiki/bm25.md | spaced ]]
related:: [[digest/wiki/bm25.md]]
- related:: [[digest/wiki/bm25.md#L6]]
[related:: [[digest/wiki/bm25.md]]]

| term | link |
|------|------|
| bm25 | [[digest/wiki/bm25.md#L6\\|cell]] |

untouched: [[digest/wiki/bm25.md.bak]] [[xdigest/wiki/bm25.md]] [[digest/wiki/bm25]]
untouched: `[[digest/wiki/bm25.md]]` \\[[digest/wiki/bm25.md]] [md](../digest/wiki/bm25.md)

```
[[digest/wiki/bm25.md]]
```

    [[digest/wiki/bm25.md]] indented code
"""

EXPECTED = (
    INBOUND.replace('source: "[[digest/wiki/bm25.md]]"', f'source: "[[{DST}]]"')
    .replace("plain [[digest/wiki/bm25.md]]", f"plain [[{DST}]]")
    .replace("anchored [[digest/wiki/bm25.md#", f"anchored [[{DST}#")
    .replace("aliased [[digest/wiki/bm25.md|", f"aliased [[{DST}|")
    .replace("both [[digest/wiki/bm25.md#", f"both [[{DST}#")
    .replace("embedded ![[digest/wiki/bm25.md#", f"embedded ![[{DST}#")
    .replace("[[ digest/wiki/bm25.md | spaced ]]", f"[[ {DST} | spaced ]]")
    .replace("related:: [[digest/wiki/bm25.md", f"related:: [[{DST}")
    .replace("| [[digest/wiki/bm25.md#L6\\|cell]]", f"| [[{DST}#L6\\|cell]]")
)

OTHER = """---
name: Other
description: links twice
---
First [[digest/wiki/bm25.md]].

Second ![[digest/wiki/bm25.md]] and unrelated [[digest/wiki/rrf.md]].
"""

FILES: dict[str, str | bytes] = {
    SRC: TARGET,
    "digest/wiki/rrf.md": "---\nname: RRF\ndescription: fusion\n---\n# RRF\nrank fusion\n",
    "digest/wiki/bm25.md.bak": "old copy\n",
    "daily/2026-06-05/baseline.md": INBOUND,
    "daily/2026-06-06/other.md": OTHER,
    # CRLF line endings and a BOM survive a rewrite byte for byte.
    "daily/2026-06-07/crlf.md": "\ufeff# CRLF\r\nsee [[digest/wiki/bm25.md]]\r\nend\r\n".encode(),
}


def link_key(link: object, rename: dict[str, str]) -> tuple:
    src = link.source_path  # type: ignore[attr-defined]
    return (
        rename.get(src, src),
        link.target_anchor,  # type: ignore[attr-defined]
        link.line,  # type: ignore[attr-defined]
        link.alias,  # type: ignore[attr-defined]
        link.embed,  # type: ignore[attr-defined]
    )


@pytest.fixture
def ws(make_tree: Callable[[dict[str, str | bytes]], Path]) -> Iterator[Workspace]:
    workspace = Workspace.open(make_tree(FILES))
    yield workspace
    workspace.close()


def test_move_rewrites_every_inbound_form_and_nothing_else(ws: Workspace) -> None:
    report = ws.move(SRC, DST)

    root = ws.root
    assert not (root / SRC).exists()
    assert (root / "daily/2026-06-05/baseline.md").read_text() == EXPECTED
    assert (root / "daily/2026-06-06/other.md").read_text() == OTHER.replace(SRC, DST)
    assert (root / "daily/2026-06-07/crlf.md").read_bytes() == (
        f"\ufeff# CRLF\r\nsee [[{DST}]]\r\nend\r\n".encode()
    )
    # The self-link moved with the file and now names its new path.
    assert (root / DST).read_text() == TARGET.replace(SRC, DST)
    assert (root / "digest/wiki/bm25.md.bak").read_text() == "old copy\n"

    assert report.files == [
        "daily/2026-06-05/baseline.md",
        "daily/2026-06-06/other.md",
        "daily/2026-06-07/crlf.md",
        DST,
    ]
    baseline = [e for e in report.edits if e.path == "daily/2026-06-05/baseline.md"]
    assert [(e.line, e.old) for e in baseline] == [
        (4, "[[digest/wiki/bm25.md]]"),
        (7, "[[digest/wiki/bm25.md]]"),
        (7, "[[digest/wiki/bm25.md#L5-L6,L9]]"),
        (8, "[[digest/wiki/bm25.md|the ranker]]"),
        (8, "[[digest/wiki/bm25.md#L5|the ranker]]"),
        (9, "![[digest/wiki/bm25.md#L1-L2]]"),
        (9, "[[ digest/wiki/bm25.md | spaced ]]"),
        (10, "[[digest/wiki/bm25.md]]"),
        (11, "[[digest/wiki/bm25.md#L6]]"),
        (12, "[[digest/wiki/bm25.md]]"),
        (16, "[[digest/wiki/bm25.md#L6\\|cell]]"),
    ]
    assert (
        LinkEdit(
            "daily/2026-06-05/baseline.md",
            9,
            "![[digest/wiki/bm25.md#L1-L2]]",
            f"![[{DST}#L1-L2]]",
        )
        in report.edits
    )
    assert LinkEdit(DST, 6, "[[digest/wiki/bm25.md#L5]]", f"[[{DST}#L5]]") in report.edits
    assert len(report.edits) == 11 + 2 + 1 + 1
    assert report.untouched == []  # literal workspace: Markdown links are not edges
    assert any(f"{DST}#L1-L2" in line for line in move_lines(report))


def test_index_after_move_answers_like_a_fresh_reindex(ws: Workspace, tmp_path: Path) -> None:
    before = parts(ws).index.graph.inlinks(SRC)
    ws.move(SRC, DST)

    after = parts(ws).index.graph.inlinks(DST)
    assert [link_key(x, {SRC: DST}) for x in before] == [link_key(x, {}) for x in after]
    assert parts(ws).index.graph.inlinks(SRC) == []
    assert ws.node(SRC) is None and ws.node(DST).name == "BM25"
    assert [h.path for h in ws.search("saturation", limit=3).results] == [DST]

    fresh_root = tmp_path / "fresh"
    shutil.copytree(ws.root, fresh_root, ignore=shutil.ignore_patterns("metadata"))
    fresh = Workspace.open(fresh_root)
    try:
        assert fresh.files() == ws.files()
        for path in fresh.files():
            assert parts(fresh).index.graph.inlinks(path) == parts(ws).index.graph.inlinks(path), (
                path
            )
            assert parts(fresh).index.graph.outlinks(path) == parts(ws).index.graph.outlinks(
                path
            ), path
        assert parts(fresh).index.graph.dangling() == parts(ws).index.graph.dangling()
    finally:
        fresh.close()

    reopened = Workspace.open(ws.root, sync=False)
    try:
        # The store of record took the move in the same batch as the memory index.
        assert reopened.files() == ws.files()
        assert parts(reopened).index.graph.inlinks(DST) == after
    finally:
        reopened.close()


def test_dry_run_changes_nothing_and_predicts_the_move(ws: Workspace) -> None:
    before = tree_bytes(ws.root)
    preview = ws.move(SRC, DST, dry_run=True)
    assert tree_bytes(ws.root) == before
    assert ws.node(SRC) is not None and ws.node(DST) is None
    assert preview.dry_run and move_lines(preview)[0].startswith("would move")
    real = ws.move(SRC, DST)
    assert real.edits == preview.edits


@pytest.mark.parametrize(
    ("dst", "message"),
    [
        ("/tmp/elsewhere.md", "absolute"),
        ("../outside.md", "escapes the workspace"),
        ("digest/a[b].md", "'['"),
        ("digest/a]b.md", "']'"),
        ("digest/a#b.md", "'#'"),
        ("digest/a|b.md", "'|'"),
        ("digest/a\nb.md", "line break"),
        ("digest/wiki/rrf.md", "already exists"),
        ("digest/wiki", "already exists"),
        ("metadata/bm25.md", "ignores this path"),
        (".hidden/bm25.md", "ignores this path"),
        ("digest/wiki/rrf.md/bm25.md", "digest/wiki/rrf.md is a file, not a folder"),
        (SRC, "already exists"),
    ],
)
def test_refused_destination_changes_nothing(ws: Workspace, dst: str, message: str) -> None:
    before = tree_bytes(ws.root)
    with pytest.raises(PathRefused, match=re.escape(message)):
        ws.move(SRC, dst)
    with pytest.raises(PathRefused, match=re.escape(message)):
        ws.move(SRC, dst, dry_run=True)
    assert tree_bytes(ws.root) == before
    assert ws.node(SRC) is not None


@pytest.mark.parametrize("src", ["digest/wiki", "digest/wiki/missing.md", "metadata/index.sqlite"])
def test_source_that_is_not_a_note_file_is_refused(ws: Workspace, src: str) -> None:
    before = tree_bytes(ws.root)
    with pytest.raises(PathRefused):
        ws.move(src, "digest/elsewhere.md")
    assert tree_bytes(ws.root) == before


def test_read_only_inbound_file_refuses_the_move(ws: Workspace) -> None:
    """Replacing a file bypasses its mode bits, so a read-only file is checked explicitly."""
    before = tree_bytes(ws.root)
    locked = ws.root / "daily/2026-06-06/other.md"
    locked.chmod(0o444)
    with pytest.raises(FileRefused, match=r"other\.md: is read-only"):
        ws.move(SRC, DST)
    assert tree_bytes(ws.root) == before
    assert not (ws.root / "digest/ranking").exists()
    assert len(parts(ws).index.graph.inlinks(SRC)) == 15


def _chattr(flag: str, path: Path) -> None:
    """Set or clear the immutable attribute: the one write barrier that also binds root."""
    done = subprocess.run(["chattr", flag, str(path)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"chattr {flag} unsupported here: {done.stderr.decode().strip()}")


@contextlib.contextmanager
def _immutable(path: Path) -> Iterator[None]:
    """`path` is immutable for the block; skips the test where chattr is missing or refused."""
    if shutil.which("chattr") is None:
        pytest.skip("chattr not available")
    _chattr("+i", path)
    try:
        yield
    finally:
        _chattr("-i", path)


def _no_temp_files(root: Path) -> bool:
    return not [p for p in root.rglob("*.reme-tmp")]


def _move_fails_and_restores(ws: Workspace, frozen: Path) -> None:
    """With `frozen` immutable the move fails, and every file is as it was before it."""
    before = tree_bytes(ws.root)
    with _immutable(frozen), pytest.raises(RemeError, match="every file is as it was"):
        ws.move(SRC, DST)
    assert tree_bytes(ws.root) == before
    assert _no_temp_files(ws.root)
    assert not (ws.root / "digest/ranking").exists()


def test_failure_while_replacing_restores_every_file(ws: Workspace) -> None:
    """An inbound file is immutable (`chattr +i`, which binds root too): replacing it fails
    after the files before it were already rewritten, and those must be put back."""
    _move_fails_and_restores(ws, ws.root / "daily/2026-06-07/crlf.md")
    assert len(parts(ws).index.graph.inlinks(SRC)) == 15 and ws.node(DST) is None


def test_failure_at_the_final_rename_restores_every_file(ws: Workspace) -> None:
    """The source's folder is immutable: every link is rewritten, then the move itself fails."""
    # The self-link inside the moved file would need a temp file in that folder: drop it so
    # the failure really comes at the rename.
    (ws.root / SRC).write_text(TARGET.replace("[[digest/wiki/bm25.md#L5]]", "itself"))
    ws.sync()
    _move_fails_and_restores(ws, ws.root / "digest/wiki")


def test_move_without_rewriting_leaves_links_dangling(ws: Workspace) -> None:
    before = tree_bytes(ws.root)
    report = ws.move(SRC, DST, rewrite_links=False)
    after = tree_bytes(ws.root)
    assert after.pop(DST) == before.pop(SRC)
    assert after == before
    assert report.edits == [] and len(report.untouched) == 15
    assert parts(ws).index.graph.is_dangling(SRC)
    assert len([x for x in parts(ws).index.graph.dangling() if x.target_path == SRC]) == 15


def test_obsidian_vault_keeps_name_links_that_still_resolve(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(
        {
            "notes/BM25.md": "# BM25\nranking\n",
            "notes/index.md": (
                "by name [[BM25]], by path [[notes/BM25.md|x]], no ext [[notes/BM25#Top]]\n"
                "markdown [m](BM25.md) follows\n"
            ),
        }
    )
    ws = Workspace.open(root)
    try:
        assert ws.link_resolution == "obsidian"
        report = ws.move("notes/BM25.md", "archive/BM25.md")
        text = (root / "notes/index.md").read_text()
        # Same file name elsewhere: the name link still finds it and is left alone; each
        # path keeps its form (`.md` only where it was written); the relative Markdown link
        # is a relative path again.
        assert text == (
            "by name [[BM25]], by path [[archive/BM25.md|x]], no ext [[archive/BM25#Top]]\n"
            "markdown [m](../archive/BM25.md) follows\n"
        )
        assert report.untouched == []
        assert [(x.line, x.alias) for x in parts(ws).index.graph.inlinks("archive/BM25.md")][
            :3
        ] == [
            (1, ""),
            (1, "x"),
            (1, ""),
        ]

        ws.move("archive/BM25.md", "archive/okapi.md")
        text = (root / "notes/index.md").read_text()
        assert text.startswith("by name [[okapi]], by path [[archive/okapi.md|x]]")
    finally:
        ws.close()


def test_delete_reports_the_exact_remaining_inbound_links(ws: Workspace) -> None:
    preview = inbound_links(ws, SRC)
    report = ws.delete(SRC)
    assert not (ws.root / SRC).exists()
    assert report.path == SRC and report.trash == f".trash/{SRC}"
    assert report.inbound == [link for link in preview if link.path != SRC]
    assert report.inbound == [
        InboundLink("daily/2026-06-05/baseline.md", 4, "[[digest/wiki/bm25.md]]"),
        InboundLink("daily/2026-06-05/baseline.md", 7, "[[digest/wiki/bm25.md]]"),
        InboundLink("daily/2026-06-05/baseline.md", 7, "[[digest/wiki/bm25.md#L5-L6,L9]]"),
        InboundLink("daily/2026-06-05/baseline.md", 8, "[[digest/wiki/bm25.md|the ranker]]"),
        InboundLink("daily/2026-06-05/baseline.md", 8, "[[digest/wiki/bm25.md#L5|the ranker]]"),
        InboundLink("daily/2026-06-05/baseline.md", 9, "![[digest/wiki/bm25.md#L1-L2]]"),
        InboundLink("daily/2026-06-05/baseline.md", 9, "[[ digest/wiki/bm25.md | spaced ]]"),
        InboundLink("daily/2026-06-05/baseline.md", 10, "[[digest/wiki/bm25.md]]"),
        InboundLink("daily/2026-06-05/baseline.md", 11, "[[digest/wiki/bm25.md#L6]]"),
        InboundLink("daily/2026-06-05/baseline.md", 12, "[[digest/wiki/bm25.md]]"),
        InboundLink("daily/2026-06-05/baseline.md", 16, "[[digest/wiki/bm25.md#L6\\|cell]]"),
        InboundLink("daily/2026-06-06/other.md", 5, "[[digest/wiki/bm25.md]]"),
        InboundLink("daily/2026-06-06/other.md", 7, "![[digest/wiki/bm25.md]]"),
        InboundLink("daily/2026-06-07/crlf.md", 2, "[[digest/wiki/bm25.md]]"),
    ]
    assert ws.node(SRC) is None
    assert parts(ws).index.graph.is_dangling(SRC)
    assert all(h.path != SRC for h in ws.search("saturation").results)
    assert delete_lines(report)[1] == "14 inbound links now dangling:"


def test_delete_refuses_folders_and_missing_files(ws: Workspace) -> None:
    before = tree_bytes(ws.root)
    for path in ("digest/wiki", "digest/nope.md", "../x.md"):
        with pytest.raises(PathRefused):
            ws.delete(path)
    assert tree_bytes(ws.root) == before


def test_create_writes_parseable_frontmatter_and_is_searchable(ws: Workspace) -> None:
    path = ws.create(
        "digest/wiki/new/hnsw.md",
        "HNSW — 分层图",
        "graph index: fast approximate search",
        {"tags": ["ann", "index"], "name": "ignored", "source": "[[digest/wiki/bm25.md]]"},
        "# HNSW\nNavigable small world graphs for zanzibar retrieval",
    )
    assert path == ws.root / "digest/wiki/new/hnsw.md"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\nname: HNSW — 分层图\n")  # allow_unicode, key order kept
    header, body = text[4:].split("---\n", 1)
    assert yaml.safe_load(header) == {
        "name": "HNSW — 分层图",
        "description": "graph index: fast approximate search",
        "tags": ["ann", "index"],
        "source": "[[digest/wiki/bm25.md]]",
    }
    assert body == "# HNSW\nNavigable small world graphs for zanzibar retrieval\n"
    node = ws.node("digest/wiki/new/hnsw.md")
    assert node.name == "HNSW — 分层图" and node.tags == ["ann", "index"]
    assert [h.path for h in ws.search("zanzibar").results] == ["digest/wiki/new/hnsw.md"]
    assert "digest/wiki/new/hnsw.md" in {x.source_path for x in parts(ws).index.graph.inlinks(SRC)}


def test_create_refuses_existing_and_bad_paths(ws: Workspace) -> None:
    before = tree_bytes(ws.root)
    for path, message in (
        (SRC, "already exists"),
        ("digest/notes.txt", "end the path with .md"),
        ("digest/a#b.md", "'#'"),
        ("/abs.md", "absolute"),
    ):
        with pytest.raises(PathRefused, match=message):
            ws.create(path, "n", "d")
    assert tree_bytes(ws.root) == before


# -- the trash and undo (issue 12) -------------------------------------------------------------
def notes(root: Path) -> dict[str, bytes]:
    """The workspace's files outside the trash and the derived-state folder."""
    return {k: v for k, v in tree_bytes(root).items() if not k.startswith(".trash/")}


def test_delete_moves_the_file_to_the_trash_and_undo_brings_it_back(ws: Workspace) -> None:
    before = notes(ws.root)
    inlinks = parts(ws).index.graph.inlinks(SRC)
    ws.delete(SRC)
    assert (ws.root / ".trash" / SRC).read_bytes() == before[SRC]
    assert ws.node(SRC) is None and parts(ws).index.graph.is_dangling(SRC)

    report = ws.undo()
    assert (report.op, report.path, report.source) == ("delete", SRC, f".trash/{SRC}")
    assert undo_lines(report) == [f"restored {SRC} from .trash/{SRC}"]
    assert notes(ws.root) == before
    assert not (ws.root / ".trash/digest").exists(), "emptied trash folders are removed"
    assert ws.node(SRC).name == "BM25" and parts(ws).index.graph.inlinks(SRC) == inlinks
    with pytest.raises(UndoRefused, match="nothing to undo"):
        ws.undo()


def test_a_name_taken_in_the_trash_gets_a_number_and_is_never_overwritten(
    ws: Workspace,
) -> None:
    older = ws.root / ".trash" / SRC
    older.parent.mkdir(parents=True)
    older.write_bytes(b"deleted last week\n")
    (ws.root / ".trash/digest/wiki/bm25 1.md").write_bytes(b"and the week before\n")
    report = ws.delete(SRC)
    assert report.trash == ".trash/digest/wiki/bm25 2.md"
    assert older.read_bytes() == b"deleted last week\n"
    assert (ws.root / ".trash/digest/wiki/bm25 1.md").read_bytes() == b"and the week before\n"
    ws.undo()
    assert (ws.root / SRC).read_text() == TARGET
    assert older.read_bytes() == b"deleted last week\n"


def test_permanent_delete_skips_the_trash_and_cannot_be_undone(ws: Workspace) -> None:
    report = ws.delete(SRC, permanent=True)
    assert report.trash is None and delete_lines(report)[0] == f"deleted {SRC} (permanently)"
    assert not (ws.root / SRC).exists() and not (ws.root / ".trash").exists()
    with pytest.raises(UndoRefused, match="was permanent"):
        ws.undo()


def test_undo_refuses_when_the_deleted_path_exists_again(ws: Workspace) -> None:
    ws.delete(SRC)
    (ws.root / SRC).write_text("a new note in its place\n")
    before = tree_bytes(ws.root)
    with pytest.raises(UndoRefused, match=re.escape(f"{SRC} exists again")):
        ws.undo()
    assert tree_bytes(ws.root) == before


def test_undo_of_a_move_puts_back_the_file_and_every_rewritten_link(ws: Workspace) -> None:
    before = notes(ws.root)
    inlinks = parts(ws).index.graph.inlinks(SRC)
    ws.move(SRC, DST)
    report = ws.undo()
    assert (report.op, report.path, report.source) == ("move", SRC, DST)
    assert report.files == [
        "daily/2026-06-05/baseline.md",
        "daily/2026-06-06/other.md",
        "daily/2026-06-07/crlf.md",
    ]
    assert notes(ws.root) == before  # byte for byte: BOM, CRLF, the self-link
    assert not (ws.root / "digest/ranking").exists() or not any(
        (ws.root / "digest/ranking").iterdir()
    )
    assert ws.node(DST) is None and parts(ws).index.graph.inlinks(SRC) == inlinks


def test_undo_of_a_move_keeps_lines_appended_since(ws: Workspace) -> None:
    ws.move(SRC, DST)
    other = ws.root / "daily/2026-06-06/other.md"
    with open(other, "a", encoding="utf-8") as fh:
        fh.write("appended after the move\n")
    ws.undo()
    assert other.read_text() == OTHER + "appended after the move\n"
    assert (ws.root / SRC).read_text() == TARGET


def test_undo_of_a_move_refuses_when_a_linking_file_was_edited(ws: Workspace) -> None:
    ws.move(SRC, DST)
    other = ws.root / "daily/2026-06-06/other.md"
    other.write_text(other.read_text().replace("First", "Edited"))
    before = tree_bytes(ws.root)
    with pytest.raises(UndoRefused, match=r"other\.md changed since"):
        ws.undo()
    assert tree_bytes(ws.root) == before
    assert not list((ws.state_dir / "journal").iterdir())


def test_the_undo_record_outlives_the_process(ws: Workspace) -> None:
    ws.move(SRC, DST)
    ws.close()
    again = Workspace.open(ws.root)
    try:
        assert again.undo().source == DST
        assert (again.root / SRC).read_text() == TARGET
    finally:
        again.close()


def test_no_temp_file_or_journal_is_left_after_a_move(ws: Workspace) -> None:
    ws.move(SRC, DST)
    assert _no_temp_files(ws.root)
    assert not list((ws.state_dir / "journal").iterdir())


def test_a_journal_naming_a_path_outside_the_workspace_is_dropped(
    ws: Workspace, tmp_path: Path
) -> None:
    """Derived state is never trusted: recovery does not follow a hostile journal."""
    outside = tmp_path / "outside.md"
    outside.write_text("not the workspace's\n")
    journal = ws.state_dir / "journal"
    journal.mkdir(exist_ok=True)
    op = "0123456789ab"
    record = {
        "version": 1,
        "id": op,
        "kind": "move",
        "label": "move x -> y",
        "info": {},
        "files": [{"path": "../outside.md", "temp": f"../.outside.md.{op}.0.reme-tmp"}],
        "renames": [["../outside.md", "gone.md"]],
    }
    (journal / f"{op}.json").write_text(json.dumps(record))
    (journal / f"{op}.commit").write_bytes(b"")
    ws.close()
    again = Workspace.open(ws.root)
    try:
        assert [(n.kind, n.journal) for n in again.recovery] == [("invalid", f"journal/{op}.json")]
        assert "not a valid journal; removed" in recovery_line(again.recovery[0])
        assert outside.read_text() == "not the workspace's\n"
        assert not (again.root / "gone.md").exists() and not list(journal.iterdir())
    finally:
        again.close()


def test_an_undo_record_naming_a_path_outside_the_workspace_is_refused(
    ws: Workspace, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    ws.delete(SRC)
    record_file = ws.state_dir / "undo" / "last.json"
    history = json.loads(record_file.read_text())
    history["steps"][-1]["path"] = "../outside.md"
    record_file.write_text(json.dumps(history))
    with pytest.raises(UndoRefused, match="the undo record is damaged"):
        ws.undo()
    assert not outside.exists() and (ws.root / ".trash" / SRC).exists()


def test_a_trash_symlink_leading_out_of_the_workspace_is_refused(
    ws: Workspace, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ws.root / ".trash").symlink_to(elsewhere)
    with pytest.raises(RemeError, match=r"\.trash is a symbolic link, not followed"):
        ws.delete(SRC)
    assert (ws.root / SRC).exists() and not list(elsewhere.iterdir())
