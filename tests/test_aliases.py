"""One alias rule everywhere (issue 14, item 4): `aliases` or `alias`, list or string, empty,
null and non-string entries ignored; the resolver, the name field and unlinked mentions agree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from reme_core import Workspace, aliases_of
from reme_tui.services import note_names, unlinked_mentions
from tests.helpers import parts


@pytest.mark.parametrize(
    ("frontmatter", "expected"),
    [
        ({"aliases": ["Ada", "Countess"]}, ["Ada", "Countess"]),
        ({"aliases": "Ada"}, ["Ada"]),
        ({"aliases": "Ada, Countess ,"}, ["Ada", "Countess"]),
        ({"alias": "Ada"}, ["Ada"]),
        ({"Aliases": ["Ada"]}, ["Ada"]),
        ({"aliases": None, "alias": ["Ada"]}, ["Ada"]),
        ({"aliases": [None, "", "  ", 3, True, ["x"], {"a": 1}, "Ada"]}, ["Ada"]),
        ({"aliases": [None]}, []),
        ({"aliases": None}, []),
        ({"aliases": 2024}, []),
        ({"aliases": {"a": "b"}}, []),
        ({"aliases": ["Ada", "Ada"]}, ["Ada"]),
    ],
)
def test_one_alias_rule(frontmatter: dict, expected: list[str]) -> None:
    assert aliases_of(frontmatter) == expected


EMPTY_ALIAS = "---\naliases:\n  -\n---\n# Empty alias\nbody\n"


def test_an_empty_alias_entry_is_never_a_mention(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    # `aliases:` with an empty `-` entry is YAML [null]: the vault of the report listed
    # 767 notes mentioning "None" because every note saying "None" matched it.
    files: dict[str, str | bytes] = {
        "Empty alias.md": EMPTY_ALIAS,
        "Number.md": "---\naliases: [42]\n---\nnumbered\n",
        "Ada Lovelace.md": "---\naliases: [Ada, null, '']\n---\n# Ada\n",
    }
    for i in range(30):
        files[f"other {i}.md"] = f"None of this is linked. None at all, {i}. Ada wrote 42.\n"
    ws = Workspace.open(make_tree(files))
    try:
        assert note_names(ws, "Empty alias.md") == ["Empty alias"]
        assert note_names(ws, "Number.md") == ["Number"]
        assert note_names(ws, "Ada Lovelace.md") == ["Ada Lovelace", "Ada"]
        assert unlinked_mentions(ws, "Empty alias.md", set()) == []
        assert unlinked_mentions(ws, "Number.md", set()) == []
        assert {m.name for m in unlinked_mentions(ws, "Ada Lovelace.md", set())} == {"Ada"}
        # Links never resolve by alias (SPEC §4): no note answers to "none", "42" or "ada".
        resolver = parts(ws).index.resolver
        assert resolver is not None
        assert resolver.resolve("x.md", "None") is None
        assert resolver.resolve("x.md", "42") is None
        assert resolver.resolve("x.md", "ada") is None
        assert resolver.resolve("x.md", "ada lovelace") == "Ada Lovelace.md"
    finally:
        ws.close()


def test_unlinked_mentions_find_a_note_by_its_title(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    # The name field found a note by its `title`; unlinked mentions ignored it (issue 33).
    files: dict[str, str | bytes] = {
        "kestrel-notes.md": "---\ntitle: Kestrel Project\n---\nbody\n",
        "other.md": "We spoke of the Kestrel Project today.\n",
    }
    ws = Workspace.open(make_tree(files))
    try:
        assert note_names(ws, "kestrel-notes.md") == ["kestrel-notes", "Kestrel Project"]
        found = unlinked_mentions(ws, "kestrel-notes.md", set())
        assert [(m.path, m.name) for m in found] == [("other.md", "Kestrel Project")]
        # The phrase check reads the same names: the note is found by its title too.
        found_by_phrase = {h.path for h in ws.search('"Kestrel Project"').results}
        assert found_by_phrase == {"kestrel-notes.md", "other.md"}
    finally:
        ws.close()
