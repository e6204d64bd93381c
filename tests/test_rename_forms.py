"""Rename and move keep each link's written form in a vault (issue 14, item 2): Obsidian's
"shortest path when possible", relative Markdown links inbound and outbound, real files."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from reme_core import Workspace
from reme_tui.text.reports import move_lines, move_summary
from tests.helpers import parts

Tree = Callable[[dict[str, str | bytes]], Path]

GARDEN = "05 - Concepts/Digital garden.md"
NEW = "05 - Concepts/Digital gardening.md"

LINKS = (
    "a [[Digital garden]] b [[Digital garden|g]] c [[05 - Concepts/Digital garden.md#h]]\n"
    "d ![[Digital garden#^blk]] e [[digital garden]] f [[05 - Concepts/Digital garden]]\n"
    "h [[Digital garden.md]] i [[#Local]]\n"
    "j [x](../05%20-%20Concepts/Digital%20garden.md#h)"
    " k [y](<../05 - Concepts/Digital garden.md>)\n"
    "l [[Other]] `[[Digital garden]]` m [z](https://example.com/Digital%20garden.md)\n"
)

GARDEN_TEXT = (
    "# Garden\n"
    "out [o](../other/Target%20note.md) and [o2](<../other/Target note.md#Top>)\n"
    "rel [[../other/Target note]] name [[Target note]] self [s](Digital%20garden.md)\n"
    "gone [d](../nowhere.md) web [w](https://example.com/a.md)\n"
)


@pytest.fixture
def vault(make_tree: Tree) -> Iterator[Workspace]:
    root = make_tree(
        {
            ".obsidian/app.json": "{}",
            GARDEN: GARDEN_TEXT,
            "other/Target note.md": "# Target\n## Top\n",
            "other/Other.md": "# Other\n",
            "deep/links.md": LINKS,
        }
    )
    ws = Workspace.open(root)
    yield ws
    ws.close()


def test_a_rename_keeps_every_written_form(vault: Workspace) -> None:
    report = vault.move(GARDEN, NEW)
    text = (vault.root / "deep/links.md").read_text()
    assert text == (
        "a [[Digital gardening]] b [[Digital gardening|g]]"
        " c [[05 - Concepts/Digital gardening.md#h]]\n"
        "d ![[Digital gardening#^blk]] e [[Digital gardening]]"
        " f [[05 - Concepts/Digital gardening]]\n"
        "h [[Digital gardening.md]] i [[#Local]]\n"
        "j [x](../05%20-%20Concepts/Digital%20gardening.md#h)"
        " k [y](<../05 - Concepts/Digital gardening.md>)\n"
        "l [[Other]] `[[Digital garden]]` m [z](https://example.com/Digital%20garden.md)\n"
    )
    # The renamed note's own links still find their files (same folder: only the self-link).
    own = (vault.root / NEW).read_text()
    assert "self [s](Digital%20gardening.md)" in own
    assert own.replace("Digital%20gardening.md", "Digital%20garden.md") == GARDEN_TEXT
    assert report.untouched == []
    assert "rewrite 10 links in 2 files" in move_summary(report)
    # The index agrees: nothing dangles that did not before, every link finds the new note.
    assert {x.target_path for x in parts(vault).index.graph.dangling()} == {"nowhere.md"}
    assert len(
        [x for x in parts(vault).index.graph.inlinks(NEW) if x.source_path == "deep/links.md"]
    )


def test_a_move_to_another_folder_rewrites_relative_links_both_ways(vault: Workspace) -> None:
    vault.move(GARDEN, "archive/2024/Digital garden.md")
    text = (vault.root / "deep/links.md").read_text()
    # Names still find the note; paths follow it; relative links are relative from here.
    assert "a [[Digital garden]] b [[Digital garden|g]] c [[archive/2024/Digital garden.md#h]]" in (
        text
    )
    assert "f [[archive/2024/Digital garden]]" in text
    assert "j [x](../archive/2024/Digital%20garden.md#h)" in text
    assert "k [y](<../archive/2024/Digital garden.md>)" in text
    own = (vault.root / "archive/2024/Digital garden.md").read_text()
    assert own == (
        "# Garden\n"
        "out [o](../../other/Target%20note.md) and [o2](<../../other/Target note.md#Top>)\n"
        "rel [[../../other/Target note]] name [[Target note]] self [s](Digital%20garden.md)\n"
        "gone [d](../nowhere.md) web [w](https://example.com/a.md)\n"
    )
    assert {x.target_path for x in parts(vault).index.graph.dangling()} == {"archive/nowhere.md"}


def test_a_name_taken_elsewhere_gets_the_shortest_unambiguous_path(make_tree: Tree) -> None:
    root = make_tree(
        {
            ".obsidian/app.json": "{}",
            "top/a/Old.md": "# Old\n",
            "x/y/New.md": "# another note named New\n",
            "links.md": "[[Old]] [[Old|alias]] ![[Old#Part]] [[Old.md]] [[a/Old]]\n",
        }
    )
    ws = Workspace.open(root)
    try:
        report = ws.move("top/a/Old.md", "b/c/New.md")
        # A partial path stays a partial path, the shortest that finds only this note.
        assert (root / "links.md").read_text() == (
            "[[c/New]] [[c/New|alias]] ![[c/New#Part]] [[c/New.md]] [[c/New]]\n"
        )
        assert all(e.path == "links.md" for e in report.edits)
        assert {x.source_path for x in parts(ws).index.graph.inlinks("b/c/New.md")} == {"links.md"}
        assert parts(ws).index.graph.inlinks("x/y/New.md") == []
    finally:
        ws.close()


def test_a_suffix_leaving_md_warns_and_links_name_the_suffix(vault: Workspace) -> None:
    before = (vault.root / "deep/links.md").read_text()
    preview = vault.move(GARDEN, "05 - Concepts/Digital garden.txt", dry_run=True)
    assert preview.warnings and "no longer be a note" in preview.warnings[0]
    assert any("warning:" in line for line in move_lines(preview))
    assert (vault.root / "deep/links.md").read_text() == before
    assert ("deep/links.md", 1, "[[Digital garden]]", "[[Digital garden.txt]]") in [
        (e.path, e.line, e.old, e.new) for e in preview.edits
    ]


def test_without_rewriting_every_broken_link_is_listed_with_its_reason(vault: Workspace) -> None:
    dst = "archive/2024/Digital garden.md"
    report = vault.move(GARDEN, dst, rewrite_links=False, dry_run=True)
    assert report.edits == []
    reasons = {(u.path, u.raw): u.reason for u in report.untouched}
    # Inbound path links and relative links, and the moved note's own relative links.
    assert ("deep/links.md", "[[05 - Concepts/Digital garden.md#h]]") in reasons
    assert ("deep/links.md", "[y](<../05 - Concepts/Digital garden.md>)") in reasons
    assert (dst, "[o](../other/Target%20note.md)") in reasons
    assert (dst, "[[../other/Target note]]") in reasons
    assert set(reasons.values()) == {"rewriting turned off"}
    # Name links still find the note: not broken, so not listed.
    assert ("deep/links.md", "[[Digital garden]]") not in reasons
    assert f"{len(report.untouched)} links would be left broken" in move_summary(report)
    text = "\n".join(move_lines(report))
    assert "(rewriting turned off)" in text


def test_plain_markdown_destinations_gain_only_the_escapes_they_need(make_tree: Tree) -> None:
    root = make_tree(
        {
            ".obsidian/app.json": "{}",
            "notes/plain.md": "# Plain\n",
            "notes/中文.md": "# 中文\n",
            "index.md": (
                "[p](notes/plain.md) [q](./notes/plain) [c](notes/%E4%B8%AD%E6%96%87.md)"
                " [r](notes/中文.md) [s](< notes/plain.md >)\n"
            ),
        }
    )
    ws = Workspace.open(root)
    try:
        ws.move("notes/plain.md", "new place/plain (1).md")
        ws.move("notes/中文.md", "新/中文.md")
        assert (root / "index.md").read_text() == (
            "[p](new%20place/plain%20%281%29.md) [q](./new%20place/plain%20%281%29)"
            " [c](%E6%96%B0/%E4%B8%AD%E6%96%87.md) [r](新/中文.md) [s](<new place/plain (1).md>)\n"
        )
        assert parts(ws).index.graph.dangling() == []
    finally:
        ws.close()


def test_moving_an_attachment_keeps_embeds_by_name(make_tree: Tree) -> None:
    root = make_tree(
        {
            ".obsidian/app.json": "{}",
            "assets/pic.png": b"PNG",
            "notes/n.md": (
                "![[pic.png]] ![[pic.png|200]] ![](../assets/pic.png) [[assets/pic.png]]\n"
            ),
        }
    )
    ws = Workspace.open(root)
    try:
        ws.move("assets/pic.png", "media/picture.png")
        assert (root / "notes/n.md").read_text() == (
            "![[picture.png]] ![[picture.png|200]] ![](../media/picture.png)"
            " [[media/picture.png]]\n"
        )
        assert (
            parts(ws).index.graph.dangling() == []
        )  # the graph finds it under its new name at once
        assert len(parts(ws).index.graph.inlinks("media/picture.png")) == 4
    finally:
        ws.close()
