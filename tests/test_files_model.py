"""The files tree's model without Textual: counts, open folders, sorting, the filter, batches
applied in place, and 50k notes (issue 29)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from reme_tui.widgets.files.model import FilesModel, Row, natural_key

NOTES = {
    "inbox.md": 5.0,
    "daily/2026-06-10.md": 1.0,
    "daily/2026-06-11.md": 7.0,
    "digest/wiki/bm25.md": 3.0,
    "digest/wiki/Note 10.md": 2.0,
    "digest/wiki/Note 2.md": 4.0,
    "digest/Solar power.md": 6.0,
}


def model(notes: dict[str, float] = NOTES) -> FilesModel:
    return FilesModel(notes.items())


def shown(m: FilesModel) -> list[tuple[int, str, int]]:
    """(depth, path, notes) of each row."""
    return [(r.depth, r.path, r.notes) for r in m.rows()]


def test_folders_come_closed_with_their_note_counts_and_before_notes() -> None:
    assert shown(model()) == [(0, "daily", 2), (0, "digest", 4), (0, "inbox.md", 0)]
    assert len(model()) == 7


def test_opening_folders_shows_their_rows_in_natural_name_order() -> None:
    m = model()
    m.toggle("digest")
    m.toggle("digest/wiki")
    assert shown(m) == [
        (0, "daily", 2),
        (0, "digest", 4),
        (1, "digest/wiki", 3),
        (2, "digest/wiki/bm25.md", 0),
        (2, "digest/wiki/Note 2.md", 0),  # numbers by value, case-blind
        (2, "digest/wiki/Note 10.md", 0),
        (1, "digest/Solar power.md", 0),
        (0, "inbox.md", 0),
    ]
    assert m.rows()[1] == Row(0, "digest", "digest", True, 4, True)
    m.toggle("digest")
    assert [r.path for r in m.rows()] == ["daily", "digest", "inbox.md"]
    m.toggle("digest")  # reopened as it was: wiki still open
    assert "digest/wiki/bm25.md" in [r.path for r in m.rows()]


def test_natural_key_compares_any_two_names() -> None:
    names = ["a10", "a2", "A1b", "10", "2", "b", "", "a2x3", "a2x10"]
    assert sorted(names, key=natural_key) == [
        "",
        "2",
        "10",
        "A1b",
        "a2",
        "a2x3",
        "a2x10",
        "a10",
        "b",
    ]


def test_modified_order_puts_the_newest_first_folders_by_their_newest_note() -> None:
    m = model()
    m.set_sort("modified")
    m.expanded.update({"daily", "digest", "digest/wiki"})
    m.set_expanded("daily", True)
    assert [r.path for r in m.rows()] == [
        "daily",  # 7.0 inside
        "daily/2026-06-11.md",
        "daily/2026-06-10.md",
        "digest",  # 6.0
        "digest/wiki",  # 4.0
        "digest/wiki/Note 2.md",
        "digest/wiki/bm25.md",
        "digest/wiki/Note 10.md",
        "digest/Solar power.md",
        "inbox.md",
    ]
    m.add("digest/wiki/bm25.md", 9.0)  # changed: now the newest, its folders move up
    assert [r.path for r in m.rows()][:3] == ["digest", "digest/wiki", "digest/wiki/bm25.md"]


def test_filter_shows_matching_notes_under_open_folders_with_match_counts() -> None:
    m = model()
    m.set_filter("NOTE")
    assert shown(m) == [
        (0, "digest", 2),
        (1, "digest/wiki", 2),
        (2, "digest/wiki/Note 2.md", 0),
        (2, "digest/wiki/Note 10.md", 0),
    ]
    assert m.expanded == set(), "a filter opens folders without changing which are open"
    m.set_filter("note 1")  # every word, anywhere in the file name
    assert [r.path for r in m.rows() if not r.folder] == ["digest/wiki/Note 10.md"]
    m.set_filter("wiki")  # a folder's name is not the note's name
    assert m.rows() == []
    m.set_filter("wiki/ bm")  # a word with a slash is looked for in the whole path
    assert [r.path for r in m.rows() if not r.folder] == ["digest/wiki/bm25.md"]
    m.set_filter("")
    assert shown(m) == shown(model())


def test_reveal_opens_the_folders_above_a_note_and_finds_its_row() -> None:
    m = model()
    index = m.reveal("digest/wiki/Note 2.md")
    assert index is not None
    assert m.rows()[index].path == "digest/wiki/Note 2.md"
    assert m.expanded == {"digest", "digest/wiki"}
    assert m.reveal("missing/note.md") is None


def test_a_batch_changes_the_tree_in_place() -> None:
    m = model()
    m.expanded.update({"digest", "digest/wiki"})
    wiki = m.root.folders["digest"].folders["wiki"]
    daily = m.root.folders["daily"]
    m.apply(["digest/wiki/bm25.md"], [("digest/wiki/ranking.md", 8.0), ("new/deep/a.md", 1.0)])
    assert m.root.folders["digest"].folders["wiki"] is wiki, "folders are kept, not rebuilt"
    assert m.root.folders["daily"] is daily
    assert (wiki.count, m.root.folders["digest"].count, len(m)) == (3, 4, 8)
    assert "digest/wiki/ranking.md" in m and "digest/wiki/bm25.md" not in m
    assert m.expanded == {"digest", "digest/wiki"}
    assert shown(m)[:3] == [(0, "daily", 2), (0, "digest", 4), (1, "digest/wiki", 3)]
    # the last note of a folder takes its empty folders with it
    m.apply(["new/deep/a.md"], [])
    assert not m.is_folder("new") and not m.is_folder("new/deep")
    assert m.remove("never/there.md") is False


def test_notes_only_modified_in_name_order_change_no_row_and_sort_nothing_again() -> None:
    m = model()
    m.expanded.update({"digest", "digest/wiki"})
    rows, wiki = m.rows(), m.root.folders["digest"].folders["wiki"]
    order = wiki.ordered("name")
    assert m.apply([], [("digest/wiki/bm25.md", 9.0), ("inbox.md", 9.5)]) is False
    assert m.rows() is rows and wiki.ordered("name") is order
    assert m.mtime("digest/wiki/bm25.md") == 9.0
    m.set_sort("modified")  # newest first: bm25 (9.0) leads its folder now
    assert m.rows()[2].path == "digest/wiki/bm25.md"
    assert m.apply([], [("digest/wiki/Note 2.md", 10.0)]) is True
    assert m.rows()[2].path == "digest/wiki/Note 2.md"
    m.set_sort("name")
    assert m.apply([], [("digest/wiki/new.md", 1.0)]) is True, "a new name is a new row"


def test_a_folder_made_from_the_tree_shows_empty_until_a_note_lands_in_it() -> None:
    m = model()
    m.add_folder("projects/2026/")
    assert (0, "projects", 0) in shown(m)
    m.add("projects/2026/plan.md", 1.0)
    assert m.root.folders["projects"].count == 1
    assert m.folder_of("projects/2026") == "projects/2026"
    assert m.folder_of("projects/2026/plan.md") == "projects/2026"
    assert m.folder_of("inbox.md") == ""


PATHS = st.lists(
    st.tuples(
        st.lists(st.sampled_from(["a", "b", "a b", "ü", "x1"]), max_size=3),
        st.sampled_from(["n.md", "N 2.md", "n 10.md", "é.md", "a.md"]),
        st.floats(0, 100, allow_nan=False),
    ),
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(PATHS, PATHS, st.sampled_from(["", "n", "a/ n", "2"]), st.sampled_from(["name", "modified"]))
def test_changes_in_place_draw_what_a_fresh_tree_of_the_same_notes_draws(
    first: list, second: list, text: str, sort: str
) -> None:
    def notes(items: list) -> dict[str, float]:
        return {"/".join([*folders, name]): t for folders, name, t in items}

    before, after = notes(first), notes(second)
    m = FilesModel(before.items())
    m.expanded.update(p for p in ("a", "b", "a/b", "a b", "b/a") if m.is_folder(p))
    m.set_sort(sort)  # type: ignore[arg-type]
    m.set_filter(text)
    m.rows()  # orders and folded names cached before the changes
    m.apply([p for p in before if p not in after], after.items())
    fresh = FilesModel(after.items())
    fresh.expanded = {p for p in m.expanded if fresh.is_folder(p)}
    for tree in (m, fresh):
        tree.set_sort(sort)  # type: ignore[arg-type]
        tree.set_filter(text)
    assert m.rows() == fresh.rows()
    assert len(m) == len(after)


def fifty_k() -> dict[str, float]:
    rng = random.Random(29)
    out = {}
    for i in range(50_000):
        depth = rng.randint(1, 3)
        folder = "/".join(f"area {rng.randint(0, 30)}" for _ in range(depth))
        out[f"{folder}/note {i}.md"] = float(rng.randint(0, 10**9))
    return out


def test_fifty_thousand_notes_counted_filtered_and_changed() -> None:
    notes = fifty_k()
    m = FilesModel(notes.items())
    assert len(m) == 50_000
    rows = m.rows()
    assert len(rows) == 31, "only the top folders show until one is opened"
    assert sum(r.notes for r in rows) == 50_000

    m.set_filter("note 4242")
    names = {p: p.rpartition("/")[2] for p in notes}
    expected = sorted(p for p in notes if "note" in names[p] and "4242" in names[p])
    assert sorted(r.path for r in m.rows() if not r.folder) == expected
    top = [r for r in m.rows() if r.folder and r.depth == 0]
    assert sum(r.notes for r in top) == len(expected)

    victim = expected[0]
    m.apply([victim], [("area 1/note 4242 bis.md", 1.0)])
    assert victim not in {r.path for r in m.rows()}
    assert "area 1/note 4242 bis.md" in {r.path for r in m.rows()}
    assert len(m) == 50_000

    m.set_filter("")
    index = m.reveal(expected[-1])
    assert index is not None and m.rows()[index].path == expected[-1]
