"""The name field travels in the snapshot: a cold search adopts it instead of building it,
and what it adopts ranks exactly as a field built from the files would (after a rebuild,
and after edits, removals and additions saved by a live process)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from reme_core import Workspace
from reme_core.index import snapshot
from reme_core.index.name_field import NameField
from reme_core.parse.note_names import names_of
from reme_core.text.tokenizer import without_cjk
from tests.conftest import write_files
from tests.helpers import parts

WORDS = ["apple", "river", "stone", "cloud", "ember", "frost", "grove", "harbor", "iris"]


def _notes(root: Path, n: int, cjk: bool) -> None:
    files: dict[str, str | bytes] = {}
    for i in range(n):
        a, b = WORDS[i % len(WORDS)], WORDS[(i * 7) % len(WORDS)]
        head = ""
        if i % 3 == 0:
            head = f"---\ntitle: {a.title()} {b} guide\naliases: [{b}-{i}]\n---\n"
        elif i % 5 == 0:
            head = f"---\nname: {b} notebook {i}\n---\n"
        if cjk and i % 11 == 0:
            head = f"---\ntitle: 苹果 {a}\n---\n"
        files[f"notes/{a}-{i:03d}.md"] = f"{head}# {a}\n\nbody text {b} words\n"
    write_files(root, files)
    old = time.time() - 3600  # not racily clean
    for rel in files:
        os.utime(root / rel, (old, old))


def _age(root: Path, *rels: str) -> None:
    """An edit made a while ago: a reopen trusts it (a racily clean file is read again)."""
    then = time.time() - 1800
    for rel in rels:
        os.utime(root / rel, (then, then))


def _fresh_ranking(ws: Workspace, terms: list[str], cjk: bool = False) -> list[tuple[str, float]]:
    index, tok = parts(ws).index, ws.tokenizer
    field = NameField.build(
        index.files.paths,
        index.live_slots(),
        index.nodes.frontmatter,
        tok.tokenize_many
        if cjk
        else (lambda texts: tok.tokenize_many(list(map(without_cjk, texts)))),
        {},
    )
    return _ranked(ws, field, terms)


def _ranked(ws: Workspace, field: NameField, terms: list[str]) -> list[tuple[str, float]]:
    """Every matching note with its score (all of them: equal scores may come in any order)."""
    slots, scores = field.search(terms, len(parts(ws).index.files))
    paths = [parts(ws).index.files.path(s) for s in slots.tolist()]
    return sorted(zip(paths, np.round(scores, 9).tolist(), strict=True))


def _adopted(ws: Workspace, cjk: bool = False) -> NameField:
    """The field a cold search uses, taken before any search could build one."""
    entry = parts(ws).index._cache.get(f"names-{cjk}")  # private: what the test is about
    assert entry is not None and entry[0] == parts(ws).index._version
    return entry[1]


def _stored_names(root: Path, ws: Workspace) -> object:
    live = parts(ws).live
    snap = live.snapshot_path()
    with live.store.reading():
        current = snapshot.stamp(live.store.generation(), live.store.state())
        cols = snapshot.load(snap, current)
    assert cols is not None
    return cols.names


def _check(ws: Workspace, cjk: bool = False) -> None:
    field = _adopted(ws, cjk)
    for word in [*WORDS, "guide", "notebook", "apple river", *(["苹果"] if cjk else [])]:
        terms = ws.tokenizer.query_terms(word)
        assert _ranked(ws, field, terms) == _fresh_ranking(ws, terms, cjk), word


def test_a_rebuild_writes_the_name_field_and_a_cold_open_adopts_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _notes(root, 300, cjk=False)  # above the pool threshold: the real rebuild path
    Workspace.open(root, {"workers": 2}).close()
    ws = Workspace.open(root)
    try:
        assert _stored_names(root, ws) is not None
        _check(ws)
        assert parts(ws).index._cache["names-True"][1] is _adopted(ws)  # no CJK: the same field
        assert ws.search("harbor guide").results[0].name_score is not None
    finally:
        ws.close()


@pytest.mark.parametrize("cjk", [False, True])
def test_a_rebuilds_name_field_is_the_one_built_from_the_files(tmp_path: Path, cjk: bool) -> None:
    """The pool's workers tokenise the names beside each batch; the field the rebuilt index
    holds (before any search) ranks as one built from the files, CJK names included."""
    root = tmp_path / "ws"
    _notes(root, 700, cjk=cjk)  # several batches of the pool
    ws = Workspace.open(root, {"workers": 2})
    try:
        field = _adopted(ws)
        assert field.cjk_free is not cjk
        assert ("names-True" in parts(ws).index._cache) is not cjk  # the CJK field: built on use
        _check(ws)
        assert _adopted(ws) is field  # searched with, not built again
    finally:
        ws.close()


def test_a_rebuild_writes_its_snapshot_once(tmp_path: Path) -> None:
    """The rebuild saves the snapshot with its name field; closing saves nothing more (at 50k
    the second save was 1.3 s of every first open)."""
    root = tmp_path / "ws"
    _notes(root, 300, cjk=False)
    ws = Workspace.open(root, {"workers": 2})
    snap = parts(ws).live.snapshot_path()
    assert snap is not None
    written = snap.stat().st_mtime_ns, snap.stat().st_ino
    ws.close()
    assert (snap.stat().st_mtime_ns, snap.stat().st_ino) == written


def test_edits_saved_by_a_live_process_keep_the_field_exact(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _notes(root, 120, cjk=True)
    Workspace.open(root).close()
    ws = Workspace.open(root)
    try:
        assert "names-True" not in parts(ws).index._cache  # CJK names: that field is built on use
        paths = sorted(parts(ws).index.nodes)
        for i, rel in enumerate(paths[::9]):
            (root / rel).write_text(f"---\ntitle: renamed {WORDS[i % 4]} {i}\n---\n# x\n")
        for rel in set(paths[5::17]) - set(paths[::9]):
            (root / rel).unlink()
        write_files(root, {"notes/zz-new.md": "---\naliases: [stone harbor]\n---\n# n\n"})
        _age(root, *paths[::9], "notes/zz-new.md")
        adopted = _adopted(ws)
        ws.sync()
        ws.search("renamed")  # the field of this version: the adopted one, updated
        _check(ws)
        assert _adopted(ws).vocab is adopted.vocab  # updated, not built again
        ws.search("苹果")  # the CJK field: built (no snapshot field for CJK names) ...
        for rel in paths[2::13]:  # and again, after a second commit
            (root / rel).write_text("---\naliases: [cloud-river]\n---\n# y\n")
        _age(root, *paths[2::13])
        ws.sync()
        ws.search("cloud")
        ws.search("苹果 cloud")  # ... then updated
        _check(ws)
        _check(ws, cjk=True)
    finally:
        ws.close()  # writes the snapshot, with the field
    ws = Workspace.open(root)
    try:
        _check(ws)
        (root / "notes/zz-new.md").write_text("---\ntitle: frost lantern\n---\n# n\n")
        _age(root, "notes/zz-new.md")
        ws.sync()
        ws.search("frost")  # an adopted field is built again (all names) by a search
    finally:
        ws.close()
    ws = Workspace.open(root)
    try:
        _check(ws)
        assert ws.search("lantern").results[0].path == "notes/zz-new.md"
    finally:
        ws.close()


def test_holding_is_every_term_in_a_notes_names(tmp_path: Path) -> None:
    """`holding` (the known-item rule's first cut) keeps exactly the notes whose names,
    tokenised one by one, hold every asked term; a term no name has keeps none."""
    _notes(tmp_path, 40, cjk=False)
    ws = Workspace.open(tmp_path)
    index, tok = parts(ws).index, ws.tokenizer
    field = index.name_field(tok.tokenize_many, False)
    slots = np.arange(len(index.files), dtype=np.int64)
    for terms in (["apple"], ["river", "guide"], ["stone", "notebook"], ["harbor", "apple"], []):
        wanted = tok.tokenize(" ".join(terms))
        got = field.holding(slots, wanted).tolist()
        for slot, kept in zip(slots.tolist(), got, strict=True):
            path = index.files.path(slot)
            held = {
                t for n in names_of(path, index.nodes.frontmatter(path)) for t in tok.tokenize(n)
            }
            assert kept == (set(wanted) <= held), (terms, path)
    assert not field.holding(slots, ["zzzunknown"]).any()
    ws.close()


def _rewrite(snap: Path, drop: tuple[str, ...] = (), **replace: np.ndarray) -> None:
    """The snapshot written again (same stamp) without the members ``drop`` names and with
    those ``replace`` gives."""
    with np.load(snap) as data:
        members = {k: data[k] for k in data.files if k not in drop}
    members.update(replace)
    tmp = snap.with_name("rewritten.npz")
    with open(tmp, "wb") as fh:
        np.savez(fh, **members)
    os.replace(tmp, snap)


def _cold(root: Path) -> Workspace:
    """A reopen that adopts the snapshot as it is (the files are not touched)."""
    return Workspace.open(root)


def _built(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace of 300 notes built by the pool, and its snapshot's path."""
    root = tmp_path / "ws"
    _notes(root, 300, cjk=False)
    ws = Workspace.open(root, {"workers": 2})
    snap = parts(ws).live.snapshot_path()
    ws.close()
    assert snap is not None and snap.is_file()
    return root, snap


def test_the_snapshot_keeps_each_fields_postings_and_an_open_sorts_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both fields' term-major postings travel with them: they are the sort of the stored
    rows, and an open adopts them without sorting a posting (at 50k the two sorts were 23 ms
    of every cold search)."""
    from reme_core.index import posting_lists

    root = tmp_path / "ws"
    _notes(root, 300, cjk=False)
    Workspace.open(root, {"workers": 2}).close()
    sorts: list[int] = []
    real = posting_lists.term_major

    def counted(*args: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        sorts.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(posting_lists, "term_major", counted)
    ws = _cold(root)
    try:
        assert sorts == []  # neither field sorted its postings
        live = parts(ws).live
        with live.store.reading():
            current = snapshot.stamp(live.store.generation(), live.store.state())
            cols = snapshot.load(live.snapshot_path(), current)
        assert cols is not None
        for stored in (cols.names, cols.props):
            assert stored is not None and stored.postings is not None
            want = real(stored.ptr, stored.term_ids, stored.tfs, len(stored.vocab))
            for got, expected in zip(stored.postings, want, strict=True):
                assert np.array_equal(got, expected)
        _check(ws)
    finally:
        ws.close()


def test_a_snapshot_without_the_postings_is_adopted_then_written_with_them(
    tmp_path: Path,
) -> None:
    """A snapshot from before the postings were kept still serves the cold open (the field
    sorts them as it always did), and the close writes them for the next one."""
    root, snap = _built(tmp_path)
    postings = ("tptr", "tdocs", "ttfs")
    _rewrite(snap, drop=tuple(f"{f}_{k}" for f in ("name", "prop") for k in postings))
    with np.load(snap) as data:
        assert "name_tptr" not in data.files and "name_ptr" in data.files
    ws = _cold(root)
    try:
        _check(ws)
        assert parts(ws).index.names_unsaved
    finally:
        ws.close()
    with np.load(snap) as data:
        assert {"name_tptr", "prop_tptr", "name_tdocs", "prop_ttfs"} <= set(data.files)


def test_postings_that_do_not_fit_their_field_are_not_trusted(tmp_path: Path) -> None:
    """Pointers of another length than the field's vocabulary: the field is built again from
    the files, and ranks as one always does."""
    root, snap = _built(tmp_path)
    with np.load(snap) as data:
        short = data["name_tptr"][:-1].copy()
    _rewrite(snap, name_tptr=short)
    ws = _cold(root)
    try:
        assert "names-False" not in parts(ws).index._cache  # not adopted
        terms = ws.tokenizer.query_terms("harbor guide")
        assert ws.search("harbor guide").results[0].name_score is not None
        field = parts(ws).index.name_field(ws.tokenizer.tokenize_many, False)
        assert _ranked(ws, field, terms) == _fresh_ranking(ws, terms)
    finally:
        ws.close()
