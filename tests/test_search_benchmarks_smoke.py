"""The Cranfield, switcher and scanner benchmarks run end to end on tiny inputs (no timing
asserts), and the Cranfield metrics are the textbook ones."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from benchmarks import cranfield, scanner_vs_mistletoe, switcher_ranking

DOCS = """.I 1
.T
wing in a slipstream .
.A
someone
.B
j. ae. scs. 25, 1958, 324.
.W
wing in a slipstream .
  the lift increase of a wing in a propeller slipstream .
.I 2
.T
heat conduction in slabs .
.W
heat conduction in composite slabs was measured .
.I 3
.T
boundary layers .
.W
boundary layer transition on a flat plate .
"""
QUERIES = """.I 001
.W
lift of a wing in a slipstream .
.I 004
.W
heat conduction in composite slabs .
"""
QRELS = "1 1 1\n1 3 4\n2 2 2\n2 3 -1\n"


def test_metrics_are_the_textbook_ones() -> None:
    ndcg, rr, p10 = cranfield.scores([2, 1], {1: 4, 2: 1})
    assert ndcg == pytest.approx((1 + 4 / math.log2(3)) / (4 + 1 / math.log2(3)))
    assert (rr, p10) == (1.0, 0.2)
    assert cranfield.scores([3], {1: 4}) == (0.0, 0.0, 0.0)


def test_judgements_use_query_order_and_drop_no_interest(tmp_path: Path) -> None:
    (tmp_path / "cranqrel").write_text(QRELS.replace("\n", "\r\n"), encoding="ascii")
    assert cranfield.judgements(tmp_path / "cranqrel") == {1: {1: 4, 3: 1}, 2: {2: 3}}


def test_cranfield_runs_on_a_tiny_collection(tmp_path: Path, capsys) -> None:
    for name, text in (("cran.all.1400", DOCS), ("cran.qry", QUERIES), ("cranqrel", QRELS)):
        (tmp_path / name).write_text(text.replace("\n", "\r\n"), encoding="ascii")
    assert cranfield.main([str(tmp_path)]) == 0
    rows = {
        cells[1]: [float(c) for c in cells[2:5]]
        for line in capsys.readouterr().out.splitlines()
        if len(cells := [c.strip() for c in line.split("|")]) > 5 and cells[1] in cranfield.STEMMERS
    }
    # query 1: doc 1 (gain 4) first, doc 3 (gain 1, it holds "a") second or third, so nDCG
    # 1 or 0.972; query 2: doc 2 first, nDCG 1. P@10: 2 of 10, then 1 of 10.
    for ndcg, mrr, p10 in rows.values():
        assert 0.98 <= ndcg <= 1.0
        assert (mrr, p10) == (1.0, 0.15)
    assert set(rows) == {"none", "english"}


def test_cranfield_without_the_collection_skips(tmp_path: Path, capsys) -> None:
    assert cranfield.main([str(tmp_path)]) == 0
    assert "skipped" in capsys.readouterr().out


def test_switcher_and_scanner_benchmarks_run(capsys) -> None:
    assert switcher_ranking.main(["--notes", "300", "/nonexistent"]) == 0
    assert scanner_vs_mistletoe.main([str(scanner_vs_mistletoe.DEMO), "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert "all keystrokes: median" in out and "| demo: 65 |" in out
