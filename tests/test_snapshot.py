"""The BM25 postings snapshot: written at load, used when it matches, ignored otherwise."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from reme_core import Workspace
from reme_core.index.snapshot import SNAPSHOT_NAME
from reme_core.index.stored_text import (
    JsonRows,
    is_mapping,
    pack_rows,
    pack_strings,
    unpack_strings,
)
from tests.helpers import parts

FILES = {
    "daily/2026-01-02/a.md": "# Alpha\n\nbeta gamma alpha\n",
    "digest/wiki/b.md": "# Beta\n\nbeta delta [[daily/2026-01-02/a.md]]\n",
}


def hits(ws: Workspace, query: str) -> list[tuple[str, float]]:
    return [(h.path, h.score) for h in ws.search(query, expand_links=False).results]


def test_snapshot_is_used_and_follows_changes(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(FILES)
    Workspace.open(root).close()  # built by a rebuild: the first load writes the snapshot
    ws = Workspace.open(root)
    snap = root / "metadata" / SNAPSHOT_NAME
    assert snap.exists()
    before = hits(ws, "beta")
    ws.close()
    ws = Workspace.open(root)
    assert hits(ws, "beta") == before
    ws.close()
    (root / "digest/wiki/b.md").write_text("# Other\n\nepsilon only\n", encoding="utf-8")
    ws = Workspace.open(root)  # stale snapshot: rebuilt from the rows, then caught up
    assert [p for p, _ in hits(ws, "beta")] == ["daily/2026-01-02/a.md"]
    ws.close()
    ws = Workspace.open(root)
    assert [p for p, _ in hits(ws, "epsilon")] == ["digest/wiki/b.md"]
    ws.close()


def test_damaged_or_foreign_snapshot_is_ignored(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(FILES)
    Workspace.open(root).close()
    ws = Workspace.open(root)
    expected = hits(ws, "beta")
    ws.close()
    snap = root / "metadata" / SNAPSHOT_NAME
    stamp = np.load(snap, allow_pickle=False)["stamp"]
    with open(snap, "wb") as fh:  # right stamp, postings of another shape
        np.savez(
            fh,
            stamp=stamp,
            ptr=np.zeros(2, np.int64),
            docs=np.zeros(0, np.int32),
            tfs=np.zeros(0, np.int32),
        )
    ws = Workspace.open(root)
    assert hits(ws, "beta") == expected
    ws.close()
    snap.write_bytes(b"not a zip file")
    ws = Workspace.open(root)
    assert hits(ws, "beta") == expected
    ws.close()


def test_stale_temporary_snapshot_is_removed(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(FILES)
    Workspace.open(root).close()
    meta = root / "metadata"
    dead = meta / f"{SNAPSHOT_NAME}.999999999.tmp"  # no such process
    live = meta / f"{SNAPSHOT_NAME}.{os.getppid()}.tmp"  # another writer at work
    dead.write_bytes(b"half a snapshot")
    live.write_bytes(b"in progress")
    Workspace.open(root).close()
    assert not dead.exists() and live.exists()


def test_json_rows_decode_on_demand_and_never_trust_a_row() -> None:
    values = [{"name": "Ünïcode"}, {}, {"aliases": ["x"]}]
    rows = JsonRows(pack_rows(values), 3, is_mapping, dict)
    assert len(rows) == 3 and not rows.decoded(0)
    assert rows[0] == {"name": "Ünïcode"} and rows.decoded(0) and not rows.decoded(2)
    assert list(rows) == values and rows[-1] == values[-1]
    again = JsonRows(pack_rows(rows), 3, is_mapping, dict)  # undecoded rows copied as stored
    assert list(again) == values
    fresh = JsonRows(pack_rows(values), 3, is_mapping, dict)
    assert fresh.stored() is not None and np.array_equal(fresh.stored(), pack_rows(values))
    fresh[1]["changed"] = True  # a decoded row may have been changed: written again
    assert fresh.stored() is None and list(JsonRows(pack_rows(fresh), 3, is_mapping, dict))[1]
    assert JsonRows(pack_rows(values), 4, is_mapping, dict).stored() is None  # another count
    hostile = np.frombuffer(b'[1]\0{"a": "\\ud800"}\0{not json', dtype=np.uint8)
    assert list(JsonRows(hostile, 3, is_mapping, dict)) == [{}, {}, {}]
    assert list(JsonRows(hostile, 2, is_mapping, dict)) == [{}, {}]  # rows of another count


@pytest.mark.parametrize(
    "values", [[], [""], ["a", "", "b"], ["中文", "x\0y"], ["only\0nul"]], ids=repr
)
def test_string_lists_round_trip(values: list[str]) -> None:
    """NUL-joined when no string holds a NUL of its own, JSON otherwise: same list back
    (the count tells no strings from one empty string)."""
    assert unpack_strings(pack_strings(values), len(values)) == values
    with pytest.raises(ValueError):
        unpack_strings(pack_strings(values), len(values) + 2)


def test_a_rebuild_keeps_per_file_json_as_its_rows_hold_it(tmp_path: Path) -> None:
    """A rebuild encodes each file's frontmatter, warnings and tags once: the store's rows
    and the snapshot hold the same texts, and the rebuilt index reads them as the rows do."""
    root = tmp_path / "vault"
    (root / ".obsidian").mkdir(parents=True)
    for i in range(300):  # above the pool's threshold
        head = [
            f"---\nname: Nöte {i}\ndate: 2026-01-{i % 28 + 1:02d}\naliases: [a{i}, 中{i}]\n---\n",
            "---\nbroken: [yaml\n---\n",
            "",
        ][i % 3]
        (root / f"n{i:03d}.md").write_bytes(
            f"{head}# N {i}\n\n#tag{i % 5} text #nested/t{i % 3}\n".encode()
            + (b"bad \xff byte\n" if i % 7 == 0 else b"")
        )
    ws = Workspace.open(root, {"workers": 2})
    try:
        rows = {r.path: r for r in parts(ws).live.store.load_files()}
        index = parts(ws).index
        paths = list(index.files.paths)
        assert sorted(paths) == sorted(rows)
        snap = parts(ws).live.snapshot_path()
        assert snap is not None
        with np.load(snap) as data:
            for name, attr in [("file_frontmatter", "frontmatter"), ("file_warnings", "warnings")]:
                stored = pack_rows([getattr(rows[p], attr) for p in paths])
                assert np.array_equal(data[name], stored), name
            assert np.array_equal(data["file_tags"], pack_rows([rows[p].tags for p in paths]))
        assert any(rows[p].warnings for p in paths) and any(rows[p].tags for p in paths)
        for p in paths:
            assert index.nodes.frontmatter(p) == rows[p].frontmatter, p
        assert ws.search("中7").results  # an alias with CJK, through the rebuilt rows
    finally:
        ws.close()
