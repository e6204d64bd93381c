"""normalize_target and ObsidianResolver: SPEC §4 Obsidian-style resolution."""

from __future__ import annotations

import pytest

from reme_core.index.link_resolution import ObsidianResolver, normalize_target
from reme_core.parse.wikilinks import find_markdown_links


@pytest.mark.parametrize(
    ("source", "raw", "relative", "expected"),
    [
        ("a/b.md", "x.md", False, "x.md"),
        ("a/b.md", "./x.md", False, "x.md"),
        ("a/b.md", "c/../d/x.md", False, "d/x.md"),
        ("a/b.md", "x.md", True, "a/x.md"),
        ("a/b/c.md", "../wiki/x.md", True, "a/wiki/x.md"),
        ("a/b.md", "../x.md", True, "x.md"),
        ("a/b.md", "../../x.md", True, None),
        ("b.md", "../x.md", False, None),
        ("b.md", "/etc/passwd", False, None),
        ("b.md", "C:/x.md", False, None),
        ("b.md", "", False, None),
        ("b.md", "  ", True, None),
        ("a/b.md", "./", True, "a"),
        ("b.md", ".", True, None),
        ("a/b.md", "x//y/./z.md", True, "a/x/y/z.md"),
    ],
)
def test_normalize_target(source: str, raw: str, relative: bool, expected: str | None) -> None:
    assert normalize_target(source, raw, relative) == expected


def test_relative_markdown_link_with_dotdot_and_percent20() -> None:
    (m,) = find_markdown_links("see [wiki](../wiki/my%20note.md#Setup)")
    assert normalize_target("daily/2026-06-20.md", m.target, relative=True) == "wiki/my note.md"
    assert m.anchor == "Setup"


VAULT = [
    "index.md",
    "en/Getting Started.md",
    "zh/Getting Started.md",
    "en/guide/install.md",
    "zh/guide/install.md",
    "projects/alpha/Plan.md",
    "projects/beta/Plan.md",
    "archive/old/deep/Plan.md",
    "Plan.md",
    "people/Ada Lovelace.md",
    "assets/diagram.png",
    "notes/readme",
]


@pytest.fixture
def resolver() -> ObsidianResolver:
    return ObsidianResolver(VAULT)


def test_existing_path_wins(resolver: ObsidianResolver) -> None:
    assert resolver.resolve("en/guide/install.md", "Plan.md") == "Plan.md"
    assert resolver.resolve("x.md", "notes/readme") == "notes/readme"


def test_md_appended(resolver: ObsidianResolver) -> None:
    assert resolver.resolve("index.md", "en/guide/install") == "en/guide/install.md"


def test_multilingual_vault_stays_in_its_language(resolver: ObsidianResolver) -> None:
    assert resolver.resolve("en/guide/install.md", "Getting Started") == "en/Getting Started.md"
    assert resolver.resolve("zh/guide/install.md", "Getting Started") == "zh/Getting Started.md"
    assert resolver.resolve("zh/index.md", "install") == "zh/guide/install.md"
    assert resolver.resolve("en/index.md", "install") == "en/guide/install.md"


def test_name_match_is_case_insensitive(resolver: ObsidianResolver) -> None:
    assert resolver.resolve("index.md", "ada lovelace") == "people/Ada Lovelace.md"
    assert resolver.resolve("index.md", "DIAGRAM.PNG") == "assets/diagram.png"
    assert resolver.resolve("index.md", "EN/GUIDE/INSTALL") == "en/guide/install.md"


def test_longest_folder_prefix_then_shortest_path(resolver: ObsidianResolver) -> None:
    # Root Plan.md exists, so the literal path wins from everywhere, in any letter case.
    assert resolver.resolve("projects/alpha/x.md", "Plan.md") == "Plan.md"
    assert resolver.resolve("projects/alpha/x.md", "plan") == "Plan.md"
    # Without it: the most shared folders first, then the shortest path.
    resolver.remove("Plan.md")
    assert resolver.resolve("projects/alpha/x.md", "plan") == "projects/alpha/Plan.md"
    assert resolver.resolve("projects/beta/sub/x.md", "Plan") == "projects/beta/Plan.md"
    assert resolver.resolve("archive/old/deep/x.md", "Plan") == "archive/old/deep/Plan.md"
    assert resolver.resolve("archive/x.md", "Plan") == "archive/old/deep/Plan.md"
    assert resolver.resolve("other/x.md", "Plan") == "projects/beta/Plan.md"


def test_tie_breaks_are_deterministic() -> None:
    r = ObsidianResolver(["b/Same.md", "a/Same.md", "ccc/Same.md"])
    assert r.resolve("x.md", "Same") == "a/Same.md"
    assert r.resolve("ccc/x.md", "Same") == "ccc/Same.md"


def test_partial_path(resolver: ObsidianResolver) -> None:
    assert resolver.resolve("index.md", "alpha/Plan") == "projects/alpha/Plan.md"
    assert resolver.resolve("index.md", "beta/Plan.md") == "projects/beta/Plan.md"
    assert resolver.resolve("en/x.md", "guide/install") == "en/guide/install.md"
    assert resolver.resolve("index.md", "gamma/Plan") is None
    # A suffix must match whole folder names.
    assert resolver.resolve("index.md", "lpha/Plan") is None


def test_an_alias_never_resolves() -> None:
    """Obsidian leaves `[[Alias]]` unresolved (SPEC §4, corrected in §14): the resolver
    knows paths and file names only."""
    r = ObsidianResolver(["a/Ada.md", "people/Lovelace.md"])
    assert r.resolve("people/x.md", "Ada") == "a/Ada.md"
    assert r.resolve("people/x.md", "Countess") is None


def test_relative_wikilink(resolver: ObsidianResolver) -> None:
    assert resolver.resolve("zh/guide/x.md", "./install") == "zh/guide/install.md"
    assert resolver.resolve("zh/guide/x.md", "../Getting Started") == "zh/Getting Started.md"
    assert resolver.resolve("index.md", "../outside") is None


def test_unresolved_gives_none(resolver: ObsidianResolver) -> None:
    assert resolver.resolve("index.md", "Nowhere") is None
    assert resolver.resolve("index.md", "") is None
    assert resolver.resolve("index.md", "/abs/Plan") is None


def test_incremental_add_and_remove(resolver: ObsidianResolver) -> None:
    assert resolver.resolve("index.md", "Brand New") is None
    resolver.add("inbox/Brand New.md")
    assert resolver.resolve("index.md", "brand new") == "inbox/Brand New.md"
    assert "inbox/Brand New.md" in resolver
    resolver.add("inbox/Brand New.md")  # a known path stays as it is
    resolver.remove("inbox/Brand New.md")
    resolver.remove("inbox/Brand New.md")  # unknown paths are ignored
    assert resolver.resolve("index.md", "Brand New") is None
    assert len(resolver) == len(VAULT)

    # Removing the language-local copy falls back to the other one.
    resolver.remove("zh/Getting Started.md")
    assert resolver.resolve("zh/index.md", "Getting Started") == "en/Getting Started.md"


def test_attachment_by_name(resolver: ObsidianResolver) -> None:
    assert resolver.resolve("en/x.md", "diagram.png") == "assets/diagram.png"
    assert resolver.resolve("en/x.md", "diagram") is None  # only notes answer to their stem


AGREE_VAULT = {
    ".obsidian/app.json": "{}",
    "a/Note.md": "# A note\n",
    "b/Note.md": "# B note\n",
    "b/sub/Other.md": "# Other\n",
    "Case/Mixed Name.md": "# Mixed\n",
    "Note.png": b"\x89PNG\r\n\x1a\n",
    "b/sub/x.md": (
        "[[Note]] [[note]] [[a/Note]] [[./Other]] [[mixed name]]\n"
        "[[Note.png]] [[Missing]] [[../Note]] [[A/NOTE|shout]] [[Other#Part]]\n"
    ),
    "root.md": "[[Note]] [[sub/Other]] [[b/Note.md]]\n",
}


def test_graph_reader_and_rename_find_the_same_file(make_tree) -> None:
    """Rename safety rests on three readers of a vault's links agreeing: the graph's
    columns (inlinks), one note's links (the reader, `outlinks`) and the rename's own pass
    over the files (`inbound_links`), each through `LinkFinder`. On ties, case, partial
    paths, `./` and `../`, anchors, attachments and a dangling link, they find the same."""
    from reme_core import Workspace, inbound_links

    ws = Workspace.open(make_tree(AGREE_VAULT))
    try:
        assert ws.link_resolution == "obsidian"
        by_reader: dict[str, set[tuple[str, str]]] = {}
        for source in ("b/sub/x.md", "root.md"):
            for link in ws.outlinks(source):
                by_reader.setdefault(link.target_path, set()).add((source, link.raw_target))
        # The tie-breaks, as Obsidian makes them: the nearest folder, then the shortest path.
        assert ("b/sub/x.md", "Note") in by_reader["b/Note.md"]
        assert ("root.md", "Note") in by_reader["a/Note.md"]
        assert ("b/sub/x.md", "A/NOTE") in by_reader["a/Note.md"]
        assert ("b/sub/x.md", "Note.png") in by_reader["Note.png"]
        for target in ("a/Note.md", "b/Note.md", "b/sub/Other.md", "Case/Mixed Name.md"):
            reader = by_reader.get(target, set())
            graph = {n.path for n in ws.links(target).inlinks}
            rename = {(i.path, i.raw) for i in inbound_links(ws, target)}
            assert graph == {source for source, _ in reader}, target
            written = {(s, raw.split("|")[0].split("#")[0]) for s, raw in rename}
            assert {(s, r.strip("[]")) for s, r in written} == reader, target
    finally:
        ws.close()
