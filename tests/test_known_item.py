"""Typing a note's whole name ranks that note first (issue 28, `reme_core.query.known_item`).

Real notes in a temp vault, the real index; the cases are the misses measured on
Learning-Record-Write-By-Obsidian, where a longer note that shares the query's words (its
name a prefix of the query, its body full of them) outranked the note the person named."""

from __future__ import annotations

import itertools
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from reme_core import Workspace
from reme_core.query.known_item import names_first

REFLECT = "Java reflection: get a field, set a field, read every field of a class. " * 12
NOTES = {
    "java/java-reflect.md": f"# Java reflect\n\n{REFLECT}\n\nFields: public fields and fields "
    "of a superclass, declared fields, fields by name.\n",
    "java/java-reflect-field.md": "# Field\n\n`getDeclaredField` and `setAccessible`.\n",
    "tools/netstat.md": "# netstat\n\nShows the sockets.\n",
    "mirror/tools/netstat.md": "# netstat\n\nThe same tool, a copy of the note.\n",
    "tools/netstat-options.md": "# Options\n\n" + "netstat lists sockets; netstat -an. " * 8,
    "cpp/object-oriented.md": "# OO\n\nClasses.\n",
    "cpp/cpp-object-oriented.md": "# C++ object-oriented\n\n" + "object-oriented C++. " * 10,
}


def vault(tmp_path: Path, stemmer: str | None = None) -> Path:
    root = tmp_path / "vault"
    (root / ".obsidian").mkdir(parents=True)
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    if stemmer:
        (root / "reme.yaml").write_text(f"stemmer: {stemmer}\n", encoding="utf-8")
    return root


def first_paths(root: Path, queries: list[str], n: int = 1) -> list[list[str]]:
    ws = Workspace.open(root)
    try:
        out = []
        for query in queries:
            hits = ws.search(query, limit=10, group=True, expand_links=False).results
            out.append([h.path for h in hits][:n])
        return out
    finally:
        ws.close()


def test_a_note_whose_name_is_the_query_ranks_first(tmp_path: Path) -> None:
    root = vault(tmp_path)
    got = first_paths(root, ["java-reflect-field", "object-oriented", "java-reflect"])
    assert got == [
        ["java/java-reflect-field.md"],  # BM25 alone put java-reflect.md (its body) first
        ["cpp/object-oriented.md"],
        ["java/java-reflect.md"],
    ]


def test_case_and_punctuation_do_not_count(tmp_path: Path) -> None:
    root = vault(tmp_path)
    got = first_paths(root, ["Java Reflect FIELD", "java_reflect.field!", "(Object) Oriented"])
    assert got == [["java/java-reflect-field.md"]] * 2 + [["cpp/object-oriented.md"]]


def test_a_name_of_two_notes_puts_both_first(tmp_path: Path) -> None:
    """Ambiguous: the same file name in two folders; both above the note that says it most."""
    root = vault(tmp_path)
    [top] = first_paths(root, ["netstat"], n=3)
    assert set(top[:2]) == {"tools/netstat.md", "mirror/tools/netstat.md"}
    assert top[2] == "tools/netstat-options.md"


def test_stemmer_none_stays_exact(tmp_path: Path) -> None:
    """`java-reflect-fields` is the name `java-reflect-field` only when words are stemmed."""
    stemmed = first_paths(vault(tmp_path / "stemmed"), ["java-reflect-fields"])
    assert stemmed == [["java/java-reflect-field.md"]]
    exact = first_paths(vault(tmp_path / "exact", "none"), ["java-reflect-fields", "Java Reflect"])
    assert exact == [["java/java-reflect.md"], ["java/java-reflect.md"]]


@st.composite
def rankings(draw: st.DrawFn) -> tuple[list[tuple[int, float]], set[int]]:
    docs = draw(st.lists(st.integers(0, 40), min_size=1, max_size=25, unique=True))
    scores = sorted(draw(st.lists(st.floats(0, 10), min_size=len(docs), max_size=len(docs))))
    ranked = list(zip(docs, reversed(scores), strict=True))
    exact = set(draw(st.lists(st.sampled_from([*docs, 99]), unique=True)))
    return ranked, exact


@given(rankings())
def test_names_first_moves_only_the_named_and_keeps_both_orders(case) -> None:
    ranked, exact = case
    out = names_first(list(ranked), exact)
    docs = [d for d, _ in out]
    named = [d for d, _ in ranked if d in exact]
    assert docs == named + [d for d, _ in ranked if d not in exact]
    if docs != [d for d, _ in ranked]:  # moved: strictly ordered (hits sort by score, path)
        assert all(a[1] > b[1] for a, b in itertools.pairwise(out))
    else:
        assert out == ranked


def test_a_name_changed_in_place_is_read_again(tmp_path: Path) -> None:
    """The rule keeps each note's name terms with the index's version (`MemoryIndex.memo`):
    after a note's `title` changes (same path, same slot; its new title still holds every
    word of the old one), the old title no longer names it."""
    root = vault(tmp_path)
    named = root / "java/jrf.md"
    named.write_text("---\ntitle: java-reflect-field\n---\n# Field\n\nsetAccessible.\n", "utf-8")
    (root / "java/java-reflect-field.md").unlink()
    ws = Workspace.open(root)
    try:

        def first(query: str) -> str:
            return ws.search(query, limit=10, group=True, expand_links=False).results[0].path

        assert first("java-reflect-field") == "java/jrf.md"
        title = "title: java-reflect-field notes"
        named.write_text(f"---\n{title}\n---\n# Field\n\nsetAccessible.\n", "utf-8")
        ws.sync()
        assert first("java-reflect-field") == "java/java-reflect.md"  # BM25's first again
        assert first("java-reflect-field notes") == "java/jrf.md"
    finally:
        ws.close()
