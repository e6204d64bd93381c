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
    assert rows.rows_containing(b'"alias') == [2]
    again = JsonRows(pack_rows(rows), 3, is_mapping, dict)  # undecoded rows copied as stored
    assert list(again) == values
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
