"""Issue 32's waits: what a person's search waits for while a writer works.

`under_batch`: searches on one thread while the indexer applies a 500-file batch on another
(the watcher's path), beside the same searches with no writer, in one run: the latency a
person feels while a folder sync lands, and the longest of those searches.
"""

from __future__ import annotations

import os
import shutil
import threading
import time

from benchmarks.context import Context, Result, lat, timed
from benchmarks.corpus import corpus_paths, mixed_queries

BATCH = 500


def under_batch(ctx: Context) -> Result:
    """Search latency while a 500-file batch parses and commits, beside the same searches
    with no writer; the longest search during the batch (what waited for a lock shows there)."""
    from reme_core import Workspace
    from reme_core.indexing.indexer import Changes

    root = ctx.copy("under-batch")
    ws = Workspace.open(root)
    ws.tokenizer.warm_up()
    queries = mixed_queries(ctx.seed, 40)
    for q in queries[:10]:
        ws.search(q, limit=10)
    paths = corpus_paths(root)[: min(BATCH, ctx.n_files // 2)]
    res = Result("under_batch")
    idle, busy, batches = [], [], []
    for rnd in range(1 if ctx.quick else ctx.runs):
        idle += [timed(lambda q=q: ws.search(q, limit=10)) for q in queries]
        for rel in paths:
            with open(root / rel, "a", encoding="utf-8") as fh:
                fh.write(f"\nBatch line benchbatch{rnd} in it.\n")
        done = threading.Event()

        def batch(paths: list[str] = paths, done: threading.Event = done) -> None:
            t0 = time.perf_counter()
            ws.apply(Changes(modified=paths))
            batches.append(time.perf_counter() - t0)
            done.set()

        writer = threading.Thread(target=batch)
        writer.start()
        while not done.is_set():
            for q in queries:
                busy.append(timed(lambda q=q: ws.search(q, limit=10)))
                if done.is_set():
                    break
        writer.join()
    ws.close()
    shutil.rmtree(root, ignore_errors=True)
    lat("search_idle", idle, res.metrics)
    lat("search_during_batch", busy, res.metrics)
    res.metrics["search_during_batch_max_ms"] = max(busy) * 1000
    res.metrics["search_idle_max_ms"] = max(idle) * 1000
    res.metrics["batch_s"] = sorted(batches)[len(batches) // 2]
    res.metrics["during_over_idle_p50"] = (
        res.metrics["search_during_batch_p50_ms"] / res.metrics["search_idle_p50_ms"]
    )
    res.metrics["searches_during_batch"] = len(busy)
    res.metrics["load_avg_1m"] = os.getloadavg()[0]
    res.notes.append(
        f"ws.search(q, limit=10) on one thread while Workspace.apply commits {len(paths)} "
        "modified files on another (the watcher's path), beside the same searches idle"
    )
    return res
