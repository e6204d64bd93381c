"""The rebuild's scenarios: a cold `--reindex` (wall, memory, the parent's and the pool's CPU)
and the one-core floor it is measured against."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from benchmarks.context import Context, Result, cli
from benchmarks.corpus import corpus_paths
from benchmarks.measure import dir_size, median, percentile, run_measured, time_calls


def reindex(ctx: Context) -> Result:
    """Cold `reme-tui --reindex PATH` (no metadata/): wall, files/s, peak RSS, database size;
    each timed run beside a pass of the floor's work made just before it (`_FloorWork`)."""
    root = ctx.root
    res = Result("reindex")
    walls, rss, tree, pss, floors = [], [], [], [], []
    work = _FloorWork(root, ctx.quick)
    work.per_file()  # warm: imports, the tokenizer, the sample's pages
    # Timed runs, then one run whose process tree is sampled for memory (sampling costs CPU).
    for sample_every in [None] * ctx.runs + [0.02]:
        if sample_every is None:
            floors.append(work.per_file() * work.n_files)
        _fresh_state(root)
        proc = run_measured([*cli(), "--reindex", str(root)], sample_every=sample_every)
        if proc.returncode != 0:
            raise RuntimeError(f"reindex failed: {proc.stderr[-2000:]}")
        rss.append(proc.maxrss_mb)
        if sample_every is None:
            walls.append(proc.seconds)
        else:
            tree.append(proc.tree_peak_mb)
            pss.append(proc.tree_pss_peak_mb)
        summary = proc.stdout.strip().splitlines()[-1].split()
    stats = dict(zip(summary[::2], summary[1::2]))
    wall = median(walls)
    paired = [w / f for w, f in zip(walls, floors, strict=True)]
    res.metrics.update(
        wall_s=wall,
        wall_p95_s=percentile(walls, 95),
        files_per_s=ctx.n_files / wall,
        projected_50k_s=wall * 50_000 / ctx.n_files,
        peak_rss_mb=max(rss),
        tree_peak_rss_mb=max(tree),
        tree_peak_pss_mb=max(pss),
        db_mb=dir_size(root / "metadata") / 2**20,
        chunks=float(stats.get("chunks", 0)),
        links=float(stats.get("links", 0)),
        paired_floor_s=median(floors),
        wall_over_paired_floor=median(paired),
        wall_over_paired_floor_p95=percentile(paired, 95),
    )
    res.metrics.update(_parent_cpu(root))
    res.notes.append(
        "peak_rss_mb: kernel high-water mark of the largest process (wait4); "
        "tree_peak_rss_mb: sampled sum over the parent, the forkserver and its pool workers "
        "(pages the workers share copy-on-write with the forkserver count once per process); "
        "tree_peak_pss_mb: the same tree's proportional set size (shared pages counted once)"
    )
    return res


def _fresh_state(root: Path) -> None:
    """No index, and nothing of the last run's still to be written: a rebuild writes ~1.4 GB
    at 50k (database, its copy, snapshot), which the kernel writes back later, so without
    the sync a timed run could pay for the one before it (two runs: 0.64x and 0.82x).
    """
    shutil.rmtree(root / "metadata", ignore_errors=True)
    os.sync()


# The rebuild in a process of its own, reporting its own CPU time (all its threads, the
# copy-in's too); the pool's (forkserver, workers, resource tracker) is sampled from /proc.
_PARENT_CPU = """
import json, resource, sys, time
from reme_core import Workspace
t0 = time.perf_counter()
Workspace.open(sys.argv[1], sync=False).close()
wall = time.perf_counter() - t0
me = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps([wall, me.ru_utime + me.ru_stime]))
"""


def _parent_cpu(root: Path) -> dict[str, float]:
    """One more rebuild (`Workspace.open` of a folder with no index, as `--reindex` does):
    the parent's CPU seconds and the pool's, beside the wall time. Their sum over the two
    cores is the least wall time any schedule of this work could take here."""
    _fresh_state(root)
    proc = run_measured([sys.executable, "-c", _PARENT_CPU, str(root)], cpu_every=0.25)
    if proc.returncode != 0:
        return {}
    wall, parent = json.loads(proc.stdout.strip().splitlines()[-1])
    pool = proc.descendants_cpu_s
    cores = os.cpu_count() or 1
    return {
        "parent_cpu_s": parent,
        "pool_cpu_s": pool,
        "parent_cpu_wall_s": wall,
        "cpu_bound_wall_s": (parent + pool) / cores,
    }


class _FloorWork:
    """The floor's work (`parse_file` + `Tokenizer.tokenize`, with the index's own tokenizer
    settings) on a sample of the corpus, timed whenever asked."""

    def __init__(self, root: Path, quick: bool) -> None:
        from reme_core.config import load_config
        from reme_core.parse.settings import ParseSettings
        from reme_core.text.tokenizer import tokenizer_for

        self.root = root
        paths = corpus_paths(root)
        self.n_files = len(paths)
        self.sample = paths[:: max(1, len(paths) // (500 if quick else 3000))]
        # The tokenizer the index uses (the workspace's config: English stemming by default);
        # `tokenizer_for(True)` alone left stemming out of the floor.
        self.settings = ParseSettings.from_config(load_config(root), markdown_links=False)
        self.tokenizer = tokenizer_for(self.settings.use_jieba, self.settings.stemmer)
        self.tokenizer.warm_up()

    def run(self) -> None:
        from reme_core.parse.parsing import parse_file

        for p in self.sample:
            for chunk in parse_file(self.root, p, self.settings).chunks:
                self.tokenizer.tokenize(chunk.text)

    def per_file(self) -> float:
        """Seconds a file of one pass over the sample."""
        return time_calls(self.run, 1)[0] / len(self.sample)


def floor(ctx: Context) -> Result:
    """Single-process read + chunk + tokenise per file (`_FloorWork`), and the rebuild's
    ratios to it: each timed rebuild over the floor measured just before it (the host's
    speed drifts by a fifth within minutes), and the median wall over this measurement."""
    work = _FloorWork(ctx.root, ctx.quick)
    work.run()  # warm
    per_file = median(time_calls(work.run, max(1, min(ctx.runs, 2)))) / len(work.sample)
    res = Result("floor")
    res.metrics.update(
        per_file_ms=per_file * 1000,
        floor_s=per_file * work.n_files,
        sample_files=len(work.sample),
    )
    if "reindex" in ctx.results and "wall_s" in ctx.results["reindex"].metrics:
        reindexed = ctx.results["reindex"].metrics
        if "wall_over_paired_floor" in reindexed:
            res.metrics["reindex_over_floor"] = reindexed["wall_over_paired_floor"]
            res.metrics["reindex_p95_over_floor"] = reindexed["wall_over_paired_floor_p95"]
        res.metrics["reindex_over_this_floor"] = reindexed["wall_s"] / res.metrics["floor_s"]
        res.metrics["reindex_p95_over_this_floor"] = (
            reindexed["wall_p95_s"] / res.metrics["floor_s"]
        )
        if "cpu_bound_wall_s" in reindexed:  # (parent + pool CPU) / cores: no schedule beats it
            res.metrics["cpu_bound_over_floor"] = (
                reindexed["cpu_bound_wall_s"] / res.metrics["floor_s"]
            )
    res.notes.append(
        f"floor measured on {len(work.sample)} files and scaled to {work.n_files}; "
        "reindex_over_floor (and its p95): each timed rebuild over a floor pass made just "
        "before it; reindex_over_this_floor: the median wall over this scenario's floor"
    )
    return res
