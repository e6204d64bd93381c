"""`python -m benchmarks.cranfield DIR`: Cranfield nDCG@10, MRR@10 and P@10, unstemmed vs stemmed.

DIR holds the Cranfield collection's three files, ``cran.all.1400``, ``cran.qry`` and
``cranqrel`` (1,400 aerodynamics abstracts, 225 queries, graded judgements). It is not in the
repository and is never fetched (one public copy: the GitHub repository
noramtboraas/information-retrieval): without DIR (or ``$CRANFIELD``) the benchmark says so
and exits 0. Each abstract's ``.W`` text (which repeats its title) becomes one note, ``NNNN.md``,
of a temporary workspace, indexed once with ``stemmer: none`` and once with ``stemmer: english``;
every query is searched one hit per note (``group=True``), with the defaults otherwise.

Judgements: the queries are numbered 1-225 in ``cranqrel`` in the order of ``cran.qry`` (whose
own ``.I`` numbers skip). Cleverdon's codes run 1 (complete answer) to 4 (minimum interest);
the gain is 5 - code, so 4 is best, and code -1 (or absent) is 0, not relevant. nDCG@10 uses
linear gains and a log2(rank + 1) discount against the ideal ordering of that query's
judgements (trec_eval's ``ndcg_cut.10``); MRR@10 and P@10 count any gain > 0 as relevant.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

FILES = ("cran.all.1400", "cran.qry", "cranqrel")
STEMMERS = ("none", "english")
_FIELD = re.compile(r"^\.([ITABW])\b ?(.*)$")


def records(path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """``(id, {field letter: text})`` for each ``.I`` record of a Cranfield file."""
    rid, fields, field = "", {}, ""
    for line in path.read_text("ascii", errors="replace").splitlines():
        m = _FIELD.match(line)
        if m and m.group(1) == "I":
            if rid:
                yield rid, fields
            rid, fields, field = m.group(2).strip(), {}, ""
        elif m:
            field = m.group(1)
            fields[field] = m.group(2)
        elif field:
            fields[field] = f"{fields[field]}\n{line}"
    if rid:
        yield rid, fields


def judgements(path: Path) -> dict[int, dict[int, int]]:
    """Query number (1-225) -> {document id: gain}, gains 1-4 (5 - Cleverdon's code)."""
    out: dict[int, dict[int, int]] = {}
    for line in path.read_text("ascii").split("\n"):
        parts = line.split()
        if len(parts) >= 3:
            code = int(parts[2])
            gain = 5 - code if 1 <= code <= 4 else 0
            if gain:
                out.setdefault(int(parts[0]), {})[int(parts[1])] = gain
    return out


def write_notes(src: Path, root: Path) -> int:
    """One note per abstract, its ``.W`` text as it is. Returns the count.

    No title heading: the text starts with the title already, and a heading would add it to
    every chunk's prefix and the name field, changing the unstemmed baseline (0.331 -> 0.346).
    """
    n = 0
    for rid, fields in records(src / "cran.all.1400"):
        body = fields.get("W", "").strip()
        (root / f"{int(rid):04d}.md").write_text(f"{body}\n", encoding="utf-8")
        n += 1
    return n


def scores(ranked: list[int], gains: dict[int, int]) -> tuple[float, float, float]:
    """(nDCG@10, reciprocal rank within 10, P@10) of one ranking."""
    top = ranked[:10]
    dcg = sum(gains.get(d, 0) / math.log2(i + 2) for i, d in enumerate(top))
    ideal = sorted(gains.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    rr = next((1 / (i + 1) for i, d in enumerate(top) if gains.get(d, 0) > 0), 0.0)
    return dcg / idcg if idcg else 0.0, rr, sum(gains.get(d, 0) > 0 for d in top) / 10


def evaluate(root: Path, stemmer: str, queries: list[str], qrels: dict[int, dict[int, int]]):
    """Index ``root`` with ``stemmer``; mean (nDCG@10, MRR@10, P@10), build s, ms per query."""
    from reme_core import Workspace

    t = time.perf_counter()
    ws = Workspace.open(root, {"stemmer": stemmer})
    built = time.perf_counter() - t
    rows, took = [], []
    for number, query in enumerate(queries, start=1):
        t = time.perf_counter()
        hits = ws.search(query, limit=10, group=True, expand_links=False).results
        took.append(time.perf_counter() - t)
        ranked = [int(Path(h.path).stem) for h in hits]
        rows.append(scores(ranked, qrels.get(number, {})))
    ws.close()
    means = tuple(statistics.fmean(col) for col in zip(*rows, strict=True))
    return means, built, statistics.median(took) * 1000


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.cranfield", description=__doc__)
    p.add_argument("collection", nargs="?", default=os.environ.get("CRANFIELD"))
    args = p.parse_args(argv)
    src = Path(args.collection) if args.collection else None
    if src is None or not all((src / f).is_file() for f in FILES):
        print(f"skipped: the Cranfield collection ({', '.join(FILES)}) is not at {src}")
        return 0
    queries = [" ".join(f.get("W", "").split()) for _, f in records(src / "cran.qry")]
    qrels = judgements(src / "cranqrel")
    print(f"{len(queries)} queries, {sum(map(len, qrels.values()))} judgements")
    print("| stemmer | nDCG@10 | MRR@10 | P@10 | index built | median query |")
    print("| --- | --- | --- | --- | --- | --- |")
    for stemmer in STEMMERS:
        with tempfile.TemporaryDirectory(prefix="reme-cranfield-") as tmp:
            root = Path(tmp)
            write_notes(src, root)
            (ndcg, mrr, p10), built, ms = evaluate(root, stemmer, queries, qrels)
        print(
            f"| {stemmer} | {ndcg:.3f} | {mrr:.3f} | {p10:.3f} | {built:.1f} s | {ms:.1f} ms |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
