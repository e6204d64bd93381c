"""`select_in`: an IN list longer than one statement's share of bound variables."""

from __future__ import annotations

import sqlite3

from reme_core.store.rows import select_in


def test_select_in_spans_several_statements_and_keeps_leading_parameters() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (k INTEGER, tag TEXT)")
    rows = [(i, "a" if i % 2 else "b") for i in range(1300)]
    conn.executemany("INSERT INTO t VALUES (?, ?)", rows)
    wanted = list(range(1300))  # 1,300 values: three statements
    rows = list(select_in(conn, "SELECT k FROM t WHERE tag=? AND k IN ({marks})", wanted, ["a"]))
    assert sorted(k for (k,) in rows) == list(range(1, 1300, 2))
    assert list(select_in(conn, "SELECT k FROM t WHERE k IN ({marks})", [])) == []
