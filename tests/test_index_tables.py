"""The chunk and file tables of the in-memory index, against plain Python models of them.

Sizes cross the tables' first capacity (1024 rows) so growth is exercised; the masks are
checked against a scan of every slot.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from reme_core.dates import NO_DATE, date_ordinal
from reme_core.index.chunk_table import ChunkTable
from reme_core.index.file_table import FileTable
from reme_core.index.index_columns import FileColumns


def _files(paths: list[str], ids: list[int], dates: list[int]) -> FileColumns:
    n = len(paths)
    return FileColumns(
        ids=np.asarray(ids, dtype=np.int64),
        paths=paths,
        mtimes=np.zeros(n),
        sizes=np.full(n, 10, dtype=np.int64),
        hashes=[""] * n,
        frontmatter=[{}] * n,
        warnings=[[] for _ in range(n)],
        origins=["user"] * n,
        dates=np.asarray(dates, dtype=np.int32),
    )


def _random_paths(rng: random.Random, n: int) -> list[str]:
    folders = ["daily/", "daily/2026-01-02/", "digest/", "digest/wiki/", "ünï/", ""]
    return sorted({f"{rng.choice(folders)}n{rng.randrange(10**6)}.md" for _ in range(n)})


def test_file_table_slots_survive_removal_and_return() -> None:
    table = FileTable()
    assert table.put("a.md", 7, "user", NO_DATE) == 0
    assert table.put("b.md", 9, "agent", date_ordinal("2026-03-04")) == 1
    table.remove("a.md")
    assert (table.slot("a.md"), table.id("a.md"), table.origin("a.md")) == (0, None, None)
    assert table.live_by_id() == ["b.md"] and table.slot_ids().tolist() == [-1, 9]
    assert table.put("a.md", 11, "user", NO_DATE) == 0  # its old slot again
    assert len(table) == 2 and table.live_by_id() == ["b.md", "a.md"]
    assert table.origins() == {"a.md": "user", "b.md": "agent"}
    assert table.slot("never.md") is None


def test_file_table_masks_match_a_scan_as_files_are_added() -> None:
    rng = random.Random(5)
    paths = _random_paths(rng, 1500)
    table = FileTable()
    dates: dict[str, int] = {}
    prefixes = ["daily/", "daily/2026", "digest/wiki/", "ünï/", "n", "zzz", ""]
    for batch in (paths[:700], paths[700:]):  # the sorted paths must follow the new slots
        for path in batch:
            dates[path] = rng.choice(
                [NO_DATE, date_ordinal("2026-01-05"), 739000 + rng.randrange(400)]
            )
            table.put(path, len(dates), "user", dates[path])
        slots = table.paths
        assert list(slots) == list(dates)
        for prefix in prefixes:
            want = [p.startswith(prefix) for p in slots]
            assert table.prefix_mask([prefix]).tolist() == want
        for lo, hi in (("2026-01-01", "2026-01-31"), (None, "2025-06-01"), ("2025-06-01", None)):
            for strict in (False, True):
                got = table.date_mask(lo, hi, strict).tolist()
                a = date_ordinal(lo) if lo else -(10**9)
                z = date_ordinal(hi) if hi else 10**9
                want = [(a <= dates[p] <= z) if dates[p] != NO_DATE else not strict for p in slots]
                assert got == want


def test_file_table_from_columns() -> None:
    cols = _files(["a.md", "b/c.md", "d.md"], [2, 5, 9], [NO_DATE, 1, 2])
    table = FileTable.from_columns(cols)
    assert [table.slot(p) for p in cols.paths] == [0, 1, 2]
    assert table.ids(["d.md", "a.md"]).tolist() == [9, 2]
    assert table.dates_of(["b/c.md"]).tolist() == [1]
    assert table.slots_of_ids(np.asarray([9, 9, 2, 5])).tolist() == [2, 2, 0, 1]
    with pytest.raises(ValueError, match="unknown files"):
        table.slots_of_ids(np.asarray([3]))
    with pytest.raises(ValueError, match="duplicate"):
        FileTable.from_columns(_files(["a.md", "a.md"], [1, 2], [0, 0]))


def test_chunk_table_places_after_batches_and_removals() -> None:
    rng = random.Random(11)
    table = ChunkTable()
    model: dict[int, tuple[int, int, int, int]] = {}  # doc -> (rowid, slot, start, end)
    of_path: dict[str, list[int]] = {}
    next_doc, next_row = 0, 1
    for batch in range(6):
        paths = [f"f{batch}-{i}.md" for i in range(rng.randrange(20, 120))]
        counts = [rng.randrange(0, 12) for _ in paths]
        slots = np.arange(len(paths), dtype=np.int32) + 1000 * batch
        total = sum(counts)
        docs = np.arange(next_doc, next_doc + total, dtype=np.int64)
        rowids = np.arange(next_row, next_row + total, dtype=np.int64) * 3
        starts = np.asarray([rng.randrange(1, 50) for _ in range(total)], dtype=np.int32)
        ends = starts + 4
        table.add(paths, counts, docs, slots, rowids, starts, ends)
        doc = next_doc
        for path, slot, count in zip(paths, slots.tolist(), counts, strict=True):
            if count:
                of_path[path] = list(range(doc, doc + count))
            for _ in range(count):
                start = int(starts[doc - next_doc])
                model[doc] = (int(rowids[doc - next_doc]), slot, start, start + 4)
                doc += 1
        next_doc, next_row = next_doc + total, next_row + total
        gone = rng.sample(sorted(of_path), 5)
        for path in gone:
            assert table.remove_file(path).tolist() == of_path.pop(path)
            assert table.docs_of(path) is None
    assert next_doc > 1024  # past the first capacity
    docs = np.asarray(sorted(model), dtype=np.int64)
    rng.shuffle(shuffled := docs.tolist())
    places = table.places(np.asarray(shuffled, dtype=np.int64))
    assert list(zip(*places, strict=True)) == [model[d] for d in shuffled]  # removed ones too
    live = sorted(d for ds in of_path.values() for d in ds)
    assert table.live_docs().tolist() == live
    assert all(table.docs_of(p).tolist() == ds for p, ds in of_path.items())
    slot_mask = np.zeros(6000, dtype=bool)
    slot_mask[rng.sample(range(6000), 300)] = True
    mask = table.doc_mask(slot_mask)
    assert len(mask) >= next_doc and not mask[next_doc:].any()  # capacity rows match nothing
    assert mask[:next_doc].tolist() == [bool(slot_mask[model[d][1]]) for d in range(next_doc)]


def test_chunk_table_from_columns_groups_docs_by_file() -> None:
    slots = np.asarray([0, 0, 2, 2, 2], dtype=np.int32)
    table = ChunkTable.from_columns(
        ["a.md", "b.md", "c.md"],
        slots,
        np.asarray([10, 11, 20, 21, 22]),
        np.asarray([1, 5, 1, 3, 8]),
        np.asarray([4, 9, 2, 7, 9]),
        {"a.md": 0, "b.md": 1, "c.md": 2}.get,
    )
    assert table.docs_of("a.md").tolist() == [0, 1]
    assert table.docs_of("b.md") is None
    assert table.places(np.asarray([3, 0])) == ([21, 10], [2, 0], [3, 1], [7, 4])
    assert table.ends_within(np.asarray([8, 0, 8])) and not table.ends_within(np.asarray([7, 0, 7]))
    table.add(
        ["b.md"], [2], np.asarray([5, 6]), np.asarray([1], np.int32), *[np.asarray([30, 31])] * 3
    )
    assert table.live_docs().tolist() == [0, 1, 2, 3, 4, 5, 6]
    assert table.slots(np.asarray([6, 4])).tolist() == [1, 2]


def test_loaded_docs_are_found_by_slot_in_any_order_of_the_columns() -> None:
    """Docs grouped by file whether the column is in file order (a binary search) or not
    (scans, then one grouping); a removed or replaced file is not answered from the load."""
    paths = [f"n{i}.md" for i in range(6)]
    slot_of = {p: i for i, p in enumerate(paths)}.get
    for slots in ([0, 0, 1, 3, 3, 3, 5], [3, 0, 5, 3, 0, 1, 3]):
        doc_slot = np.asarray(slots, dtype=np.int32)
        n = len(slots)
        table = ChunkTable.from_columns(
            paths, doc_slot, np.arange(n) + 10, np.ones(n), np.ones(n), slot_of
        )
        want = {p: [d for d, s in enumerate(slots) if s == i] for i, p in enumerate(paths)}
        for _ in range(3):  # past the scans before a grouping is made
            for path in paths:
                got = table.docs_of(path)
                assert (got.tolist() if got is not None else []) == want[path]
        assert table.docs_of("other.md") is None
        assert table.remove_file("n3.md").tolist() == want["n3.md"]
        assert table.docs_of("n3.md") is None
        assert table.live_docs().tolist() == sorted(
            d for p, ds in want.items() if p != "n3.md" for d in ds
        )
