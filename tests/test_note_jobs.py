"""ReMe's small file jobs in reme_core (issue 31): write given what read returned, edit,
save with expected_mtime, frontmatter keys, the daily layer. Real files, real index."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from reme_core import (
    PathRefused,
    RemeError,
    Workspace,
    daily_notes,
    daily_write,
    edit_note,
    list_folder,
    read_frontmatter,
    save_note,
    stat_path,
    update_frontmatter,
)
from tests.test_write import NOTE

KESTREL = "digest/wiki/kestrel.md"


@pytest.fixture
def ws(make_tree: Callable[[dict[str, str | bytes]], Path]) -> Iterator[Workspace]:
    root = make_tree({KESTREL: NOTE, "digest/wiki/bm25.md": "# BM25\n"})
    opened = Workspace.open(root)
    yield opened
    opened.close()


def test_write_back_what_read_gave_is_one_note_not_two_blocks(ws: Workspace) -> None:
    read = ws.read(KESTREL).text
    ws.write(KESTREL, read + "\nA new line.\n")
    assert (ws.root / KESTREL).read_text() == NOTE + "A new line.\n"  # byte for byte
    changed = read.replace("kind: project   # stays as written", "kind: tool")
    report = ws.write(KESTREL, changed, description="the search system")
    text = (ws.root / KESTREL).read_text()
    assert set(report.set_keys) == {"kind", "description"}
    assert text.count("---\n") == 2 and "kind: tool" in text and "# who wrote it" in text
    assert "description: the search system" in text  # the named field wins over the block


def test_a_block_that_is_not_yaml_is_refused_and_nothing_written(ws: Workspace) -> None:
    with pytest.raises(RemeError, match="send the body alone"):
        ws.write(KESTREL, "---\nname: [unclosed\n---\nbody\n")
    assert (ws.root / KESTREL).read_text() == NOTE


def test_edit_replaces_in_the_body_only_and_refuses_absent_text(ws: Workspace) -> None:
    with pytest.raises(RemeError, match="not found in the body"):
        edit_note(ws, KESTREL, "the retrieval system", "x")  # only in the frontmatter
    with pytest.raises(RemeError, match="non-empty"):
        edit_note(ws, KESTREL, "", "x")
    report = edit_note(ws, KESTREL, "[[", "[[")  # two links
    assert report.count == 2
    edit_note(ws, KESTREL, "Old body", "Fresh quokka body")
    assert (ws.root / KESTREL).read_text() == NOTE.replace("Old body", "Fresh quokka body")
    assert ws.search("quokka").results[0].path == KESTREL


def test_save_refuses_a_stale_mtime_and_keeps_the_file(ws: Workspace) -> None:
    seen = stat_path(ws, KESTREL)
    assert seen.exists and seen.frontmatter and seen.frontmatter["name"] == "Kestrel"
    path = ws.root / KESTREL
    path.write_text(NOTE + "someone else's line\n")
    os.utime(path, (1, 1))
    with pytest.raises(RemeError, match="changed since"):
        save_note(ws, KESTREL, "mine\n", seen.mtime)
    assert "someone else's line" in path.read_text()
    now = stat_path(ws, KESTREL).mtime
    saved = save_note(ws, KESTREL, "---\nname: K\n---\nmine wombat\n", now)
    assert path.read_text() == "---\nname: K\n---\nmine wombat\n" and saved.mtime != now
    assert ws.search("wombat").results[0].path == KESTREL
    with pytest.raises(PathRefused):
        save_note(ws, "../outside.md", "x")


def test_frontmatter_keys_change_and_the_rest_stays(ws: Workspace) -> None:
    update_frontmatter(ws, KESTREL, {"status": "done"})
    update_frontmatter(ws, KESTREL, remove=["date", "absent"])
    meta = read_frontmatter(ws, KESTREL)
    assert meta["status"] == "done" and "date" not in meta and meta["kind"] == "project"
    assert "Old body" in (ws.root / KESTREL).read_text()
    with pytest.raises(RemeError, match="not found"):
        update_frontmatter(ws, "digest/wiki/none.md", {"a": 1})
    assert not (ws.root / "digest/wiki/none.md").exists()


def test_daily_write_then_list(ws: Workspace) -> None:
    daily_write(ws, "standup", "agreed", "s-1", "We agreed.", "2026-06-20", {"name": "x", "k": 1})
    notes = daily_notes(ws, "2026-06-20")
    assert notes == [
        {
            "name": "standup",
            "description": "agreed",
            "k": 1,
            "session_id": "s-1",
            "source_conversation": "[[session/dialog/s-1.jsonl]]",
            "path": "daily/2026-06-20/standup.md",
        }
    ]
    assert daily_notes(ws, "2026-06-21") == []
    for name in ("../up", "a/b", ".hidden"):
        with pytest.raises(PathRefused):
            daily_write(ws, name, "d", "s-1", "x", "2026-06-20")
    with pytest.raises(RemeError, match="YYYY-MM-DD"):
        daily_notes(ws, "2026-6-1")


def test_writing_back_a_cut_read_is_refused(ws: Workspace) -> None:
    long_note = "---\nname: Long\n---\n" + "".join(f"line {i}\n" for i in range(2100))
    (ws.root / "digest/wiki/long.md").write_text(long_note)
    ws.sync()
    got = ws.read("digest/wiki/long.md")
    assert got.truncated
    with pytest.raises(RemeError, match="truncation notice"):
        ws.write("digest/wiki/long.md", f"{got.text}\n{got.notice}\nmore\n")  # as MCP read gives
    assert (ws.root / "digest/wiki/long.md").read_text() == long_note


def test_list_folder_is_every_file_but_state_hidden_and_temp(ws: Workspace) -> None:
    (ws.root / "digest/wiki/.draft.md").write_text("x")
    (ws.root / "digest/wiki/data.csv").write_text("a,b\n")
    (ws.root / "digest/wiki/kestrel.md~").write_text("x")
    assert list_folder(ws, "digest") == []
    assert list_folder(ws, "digest/wiki") == [
        "digest/wiki/bm25.md",
        "digest/wiki/data.csv",
        "digest/wiki/kestrel.md",
    ]
    assert list_folder(ws, "", recursive=True, extensions=["csv"]) == ["digest/wiki/data.csv"]
    assert not any(p.startswith(ws.state_dir.name) for p in list_folder(ws, ".", recursive=True))
    os.utime(ws.root / "digest/wiki/bm25.md", (4_000_000_000, 4_000_000_000))
    assert list_folder(ws, "digest/wiki", newest_first=True)[0] == "digest/wiki/bm25.md"
    with pytest.raises(PathRefused):
        list_folder(ws, "../")
    with pytest.raises(RemeError, match="not a folder"):
        list_folder(ws, "digest/wiki/bm25.md")


def test_daily_write_keeps_the_day_index_page_as_reme_does(ws: Workspace) -> None:
    page = ws.root / "daily/2026-06-20.md"
    daily_write(ws, "first", "one", "s-1", "x", "2026-06-20")
    assert page.read_text() == (
        "---\nname: '2026-06-20'\ndescription: 1 note(s) today.\n---\n"
        "<!-- notes:auto -->\n- [[daily/2026-06-20/first.md]] name: first description: one\n"
        "<!-- /notes:auto -->\n"
    )
    mine = "---\nname: Saturday\ndescription: a calm day\n---\n# Saturday\n\nMy words.\n"
    page.write_text(mine)
    daily_write(ws, "second", "two", "s-2", "y", "2026-06-20")
    daily_write(ws, "third", "three", "s-3", "z", "2026-06-20")
    text = page.read_text()
    assert text.startswith(mine)  # the person's page and description kept
    assert text.count("<!-- notes:auto -->") == 1 and "[[daily/2026-06-20/third.md]]" in text
    assert [link.target_path for link in ws.outlinks("daily/2026-06-20.md")] == [
        "daily/2026-06-20/first.md",
        "daily/2026-06-20/second.md",
        "daily/2026-06-20/third.md",
    ]
