"""`python -m benchmarks.quality [--only NAME ...] [--sweep] [--model M]`: ranking quality.

Rows: the classic collections `collections.py` reads (topical queries, binary judgements)
and known-item sets made from the public vaults (`vault_sets.py`). Every row is measured
through `Workspace.search` (one hit per note, no link expansion) with BM25 alone and with
vectors on under each fusion `reme.yaml` can name (`search.fusion`); nDCG@10, MAP@100 and
MRR@10 (trec_eval's definitions, binary gains).

Everything lives under `benchmarks/.collections/` (git-ignored, `$REME_COLLECTIONS`): the
collections' files, and `work/`, one workspace per row whose state folder keeps the chunks'
vectors, so that only the first run embeds (the bundled embedder does ~9-30 chunks/s on this
2-core machine). A collection or vault that is absent is skipped with a line saying so.
`--sweep` adds rows for the fusion weights, the agreement gate, BM25's k1 and b, the name
field's weight and query stop words (measured, not defaults).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import collections as colls
from benchmarks import vault_sets

BASE = Path(os.environ.get("REME_COLLECTIONS", Path(__file__).with_name(".collections")))
FUSION_ROWS = ("rrf", "convex", "guarded")


@dataclass(slots=True)
class QuerySet:
    """Queries with their judged targets over one folder of notes (paths relative to it)."""

    name: str
    root: Path
    queries: list[tuple[str, dict[str, int], str | None]]  # (query, {path: gain}, path filter)


def metrics(ranked: list[str], gains: dict[str, int]) -> tuple[float, float, float]:
    """(nDCG@10, AP@100, RR@10) of one ranking of paths."""
    dcg = sum(gains.get(p, 0) / math.log2(i + 2) for i, p in enumerate(ranked[:10]))
    ideal = sorted(gains.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    found, precision_sum = 0, 0.0
    for i, p in enumerate(ranked[:100]):
        if gains.get(p, 0) > 0:
            found += 1
            precision_sum += found / (i + 1)
    relevant = sum(g > 0 for g in gains.values())
    rr = next((1 / (i + 1) for i, p in enumerate(ranked[:10]) if gains.get(p, 0) > 0), 0.0)
    return (dcg / idcg if idcg else 0.0), (precision_sum / relevant if relevant else 0.0), rr


def collection_set(coll: colls.Collection) -> QuerySet:
    """Write the collection's documents as notes (once) under work/; its judged queries."""
    root = BASE / "work" / coll.name.lower()
    notes = root / "docs"
    if not notes.is_dir():
        notes.mkdir(parents=True)
        for doc, text in coll.docs.items():
            (notes / f"{doc:05d}.md").write_text(f"{text}\n", encoding="utf-8")
    queries = [
        (" ".join(text.split()), {f"docs/{d:05d}.md": g for d, g in coll.qrels[q].items()}, None)
        for q, text in sorted(coll.queries.items())
        if coll.qrels.get(q)
    ]
    return QuerySet(coll.name, root, queries)


def query_sets(only: list[str]) -> Iterator[QuerySet]:
    """Every available row, in table order; a line on stderr for each one skipped."""
    for name in colls.READERS:
        if only and name not in only:
            continue
        coll = colls.load(BASE, name)
        if coll is None:
            print(f"skipped {name}: its files are not in {BASE / name}", file=sys.stderr)
            continue
        yield collection_set(coll)
    yield from vault_sets.query_sets(BASE / "work", only)


def ranking(ws: Any, query: str, path: str | None, limit: int) -> list[str]:
    """The notes `Workspace.search` ranks for `query`, best first."""
    from reme_core import SearchFilters, SearchRequest

    # The text as it is (not parsed as a query line: `-`, quotes and colons are just words).
    request = SearchRequest(text=query, filters=SearchFilters(paths=(path,) if path else ()))
    hits = ws.search(request, limit, group=True, expand_links=False).results
    return list(dict.fromkeys(h.path for h in hits))


def evaluate(ws: Any, qs: QuerySet) -> tuple[float, float, float]:
    """Mean (nDCG@10, MAP@100, MRR@10) of the set's queries."""
    rows = [metrics(ranking(ws, q, path, 100), gains) for q, gains, path in qs.queries]
    return tuple(statistics.fmean(col) for col in zip(*rows, strict=True))  # type: ignore[return-value]


@contextmanager
def patched(obj: Any, **values: Any) -> Iterator[None]:
    """Set attributes for a measurement, then put the old values back."""
    old = {k: getattr(obj, k) for k in values}
    for k, v in values.items():
        setattr(obj, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(obj, k, v)


@contextmanager
def bm25_params(ws: Any, k1: float, b: float) -> Iterator[None]:
    """The chunk index's k1 and b for one measurement (its cached length norms dropped)."""
    from reme_core.ports import search_index

    bm25 = search_index(ws).index.bm25
    with patched(bm25, k1=k1, b=b, _norm=None):
        yield
    bm25._norm = None


Variant = tuple[str, bool, Callable[[Any], Any]]  # label, vectors on, context factory


def variants(sweep: bool) -> list[Variant]:
    """What each row is measured under: BM25 first (vectors off), then the fusions."""
    from reme_core.vectors import fusion

    def fused(name: str, **weights: float) -> Callable[[Any], Any]:
        def setup(ws: Any) -> Any:
            return _both(patched(ws.config.search, fusion=name), patched(fusion, **weights))

        return setup

    out: list[Variant] = [("BM25", False, lambda ws: patched(ws))]
    if sweep:
        for k1, b in ((1.2, 0.75), (2.0, 0.75), (0.9, 0.4), (1.5, 0.5), (1.5, 0.9)):
            out.append((f"BM25 k1={k1:g} b={b:g}", False, _bm25(k1, b)))
        for w in (1.0, 3.0):
            out.append((f"BM25 name_weight={w:g}", False, _name_weight(w)))
        out.append(("BM25 query stop words dropped", False, _stop_words))
    out += [(f"+vectors {name}", True, fused(name)) for name in FUSION_ROWS]
    alone = fused("convex", CONVEX_WEIGHT=1.0, CONVEX_WEIGHT_CJK=1.0)
    out.append(("vectors alone", True, lambda ws: _both(alone(ws), _no_name_rule())))
    if sweep:
        for w in (0.1, 0.2, 0.4, 0.5):
            out.append((f"+vectors guarded w={w:g}", True, fused("guarded", CONVEX_WEIGHT=w)))
        for w in (0.3, 0.7):
            out.append(
                (f"+vectors guarded cjk w={w:g}", True, fused("guarded", CONVEX_WEIGHT_CJK=w))
            )
        for depth, least in ((10, 0.3), (20, 0.3), (30, 0.25), (50, 0.15), (50, 0.25)):
            gate = fused("guarded", AGREEMENT_DEPTH=depth, AGREEMENT_MIN=least)
            out.append((f"+vectors guarded agree {least:g} of {depth}", True, gate))
        for w in (0.3, 0.5):
            out.append((f"+vectors rrf w={w:g}", True, _rrf_weight(w)))
    return out


# Common English function words (written for this measurement): dropped from the query only.
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "being",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "using",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)


def _stop_words(ws: Any) -> Any:
    search = ws.search

    def without(request: Any, *args: Any, **kwargs: Any) -> Any:
        words = request.text.split()
        kept = [w for w in words if w.lower().strip(".,;:?!()") not in STOP_WORDS]
        text = " ".join(kept) or request.text
        return search(dataclasses.replace(request, text=text), *args, **kwargs)

    return patched(ws, search=without)


def _no_name_rule() -> Any:
    """The known-item rule off (it compares no name), so that "vectors alone" is the
    embedder's own ranking."""
    from reme_core.query import known_item

    return patched(known_item, MAX_COMPARED=0)


def _bm25(k1: float, b: float) -> Callable[[Any], Any]:
    return lambda ws: bm25_params(ws, k1, b)


def _name_weight(w: float) -> Callable[[Any], Any]:
    return lambda ws: patched(ws.config.search, name_weight=w)


def _rrf_weight(w: float) -> Callable[[Any], Any]:
    return lambda ws: patched(ws.config.search, fusion="rrf", vector_weight=w)


@contextmanager
def _both(a: Any, b: Any) -> Iterator[None]:
    with a, b:
        yield


def measure(qs: QuerySet, todo: list[Variant], vectors: dict[str, Any]) -> dict[str, tuple]:
    """Each variant's means on one row; vectors embedded (or read back) first."""
    from reme_core import Workspace

    ws = Workspace.open(qs.root, {"vectors": {**vectors, "enabled": True}})
    try:
        t = time.perf_counter()
        if not ws.wait_for_vectors(6 * 3600):
            raise SystemExit(f"{qs.name}: vectors did not come up: {ws.vector_status()}")
        print(f"{qs.name}: vectors ready in {time.perf_counter() - t:.0f} s", file=sys.stderr)
        out: dict[str, tuple] = {}
        for on in (False, True):
            if (ws.vectors is not None) != on:
                ws.toggle_vectors(on)
                if on and not ws.wait_for_vectors(3600):
                    raise SystemExit(f"{qs.name}: vectors did not come back: {ws.vector_status()}")
            for label, needs, setup in todo:
                if needs == on:
                    with setup(ws):
                        out[label] = evaluate(ws, qs)
        return out
    finally:
        ws.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.quality", description=__doc__)
    p.add_argument("--only", nargs="*", default=[], help="rows by name (med, npl, cacm, ...)")
    p.add_argument("--sweep", action="store_true", help="also the weight and k1/b variants")
    p.add_argument("--provider", default="local")
    p.add_argument("--model", default="", help="the embedder's model (vectors.model)")
    args = p.parse_args(argv)
    todo = variants(args.sweep)
    vectors = {"provider": args.provider, "model": args.model}
    print(f"embedder: {args.provider}:{args.model or 'default'}")
    print("| row | queries | ranking | nDCG@10 | MAP@100 | MRR@10 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for qs in query_sets(args.only):
        if not qs.queries:
            print(f"skipped {qs.name}: no queries", file=sys.stderr)
            continue
        got = measure(qs, todo, vectors)
        for label, _, _ in todo:
            cells = " | ".join(f"{x:.3f}" for x in got[label])
            print(f"| {qs.name} | {len(qs.queries)} | {label} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
