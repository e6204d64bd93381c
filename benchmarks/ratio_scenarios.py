"""Issue 18's user-felt ratios: the whole search job against the ranking alone, and a cold
CLI search against a bare Python process, each alternated with its floor in one run."""

from __future__ import annotations

import dataclasses
import math
import os
import sys

from benchmarks.context import Context, Result, cli, lat, timed
from benchmarks.corpus import DENSE_LINKS, mixed_queries, query_sets
from benchmarks.measure import median, percentile, run_measured

BARE = "import numpy, sqlite3"


def cold(ctx: Context) -> Result:
    """A cold `reme-tui search` process beside a bare `python -c "import numpy, sqlite3"`,
    alternated run by run so both see the same machine."""
    from reme_core import Workspace

    root = ctx.indexed_root()
    Workspace.open(root).close()  # settle the start-up diff (and the snapshot) first
    argv = [*cli(), "search", "memory", "-w", str(root)]
    run_measured(argv)  # the first run after a rebuild may still write the snapshot
    n = 5 if ctx.quick else max(9, ctx.runs * 3)
    searches, bares = [], []
    for _ in range(n):
        proc = run_measured(argv)
        if proc.returncode != 0:
            raise RuntimeError(f"search failed: {proc.stderr[-2000:]}")
        searches.append(proc.seconds)
        bares.append(run_measured([sys.executable, "-c", BARE]).seconds)
    res = Result("cold")
    res.metrics.update(
        cli_p50_s=median(searches),
        cli_p95_s=percentile(searches, 95),
        bare_p50_s=median(bares),
        bare_p95_s=percentile(bares, 95),
        cold_over_bare_p50=median(searches) / median(bares),
        cold_over_bare_p95=percentile(searches, 95) / percentile(bares, 95),
        runs=n,
    )
    res.notes.append(
        f'`reme-tui search memory -w ROOT` against `python -c "{BARE}"`, alternated; '
        "the index and its snapshot settled before the timed runs"
    )
    return res


def job(ctx: Context) -> Result:
    """The whole search job (`ws.search(q, limit=10)`, link expansion on, as the CLI, the
    browser and agents call it) beside the ranking alone (`expand_links=False`), alternated
    query by query in a freshly opened workspace."""
    general, _ = query_sets(ctx.seed, 60 if ctx.quick else 200)
    return _job(ctx, "job", general)


def job_dense(ctx: Context) -> Result:
    """The search job on the dense corpus (4–20 links per note) with issue 32's queries (a
    common word and 1–2 rarer ones): expansion's cost depends on the link shape."""
    dense = dataclasses.replace(ctx, links=DENSE_LINKS, results={}, _root=None)
    return _job(dense, "job_dense", mixed_queries(ctx.seed, 40 if ctx.quick else 100))


def _job(ctx: Context, name: str, queries: list[str]) -> Result:
    from benchmarks.required_ranking import RequiredRanking
    from benchmarks.scenarios import _query_ids, _stored
    from reme_core import Workspace
    from reme_core.index.bm25 import BM25Index

    ws = Workspace.open(ctx.indexed_root())
    ws.tokenizer.warm_up()
    # The scorer alone, as `ws.search(q, limit=10)` calls it: the same candidates, no filter.
    vocab, arrays = _stored(ws)
    bm25 = BM25Index.from_arrays(arrays.doc_ptr, arrays.term_ids, arrays.tfs, len(vocab))
    ids = _query_ids(ws, vocab, queries)
    settings = ws.config.search
    k = min(settings.max_candidates, math.ceil(10 * settings.candidate_multiplier))
    required = RequiredRanking(ws, k)
    for q in queries[:20]:
        ws.search(q, limit=10, expand_links=False)
        required(q)
    required = RequiredRanking(ws, k)  # the warm-up's parts not counted
    ranking, whole, scorer, least = [], [], [], []
    for _ in range(1 if ctx.quick else 3):
        for q, i in zip(queries, ids, strict=True):
            ranking.append(timed(lambda q=q: ws.search(q, limit=10, expand_links=False)))
            whole.append(timed(lambda q=q: ws.search(q, limit=10)))
            scorer.append(timed(lambda i=i: bm25.search(i, k)))
            least.append(timed(lambda q=q: required(q)))
    ws.close()
    res = Result(name)
    lat("job", whole, res.metrics)
    lat("ranking", ranking, res.metrics)
    lat("scorer", scorer, res.metrics)
    lat("required", least, res.metrics)
    m = res.metrics
    m.update(required.medians_ms())
    m["job_over_ranking_p50"] = m["job_p50_ms"] / m["ranking_p50_ms"]
    m["job_over_ranking_p95"] = m["job_p95_ms"] / m["ranking_p95_ms"]
    m["ranking_over_scorer_p50"] = m["ranking_p50_ms"] / m["scorer_p50_ms"]
    m["required_over_scorer_p50"] = m["required_p50_ms"] / m["scorer_p50_ms"]
    m["searches"] = len(whole)
    m["load_avg_1m"] = os.getloadavg()[0]
    res.notes.append(
        "job: ws.search(q, limit=10) with link expansion; ranking: the same call with "
        f"expand_links=False; scorer: BM25Index.search(ids, {k}) over the stored chunks (the "
        "candidates ws.search asks for); required: the least SPEC §8/§10/§13 ask of a "
        "ranking, with the index's own parts (benchmarks/required_ranking.py); alternated, "
        f"the first expansions not warmed up; {ctx.root.name}"
    )
    return res
