"""RESULTS.md: machine, versions, every scenario's numbers, the ratios, and the issue's targets.

The targets are stated for 50k files on 2 cores. A run at another size projects the reindex
wall time linearly (files/s is what it measures); every other target is quoted as measured.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import os
import platform
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.scenarios import Result
from benchmarks.wait_report import around_scorer, waits


@dataclass(frozen=True, slots=True)
class Target:
    """One target of the issue: where its number comes from and the limit."""

    label: str
    scenario: str
    metric: str
    limit: float
    unit: str


TARGETS = (
    # Issue 18: what users feel, each as a ratio to its floor measured in the same run.
    Target(
        "whole search job / ranking alone, p50 (limit=10, links expanded)",
        "job",
        "job_over_ranking_p50",
        1.5,
        "×",
    ),
    Target("whole search job / ranking alone, p95", "job", "job_over_ranking_p95", 1.5, "×"),
    Target(
        "cold CLI search / bare `python -c 'import numpy, sqlite3'`, p50",
        "cold",
        "cold_over_bare_p50",
        3.0,
        "×",
    ),
    Target("cold CLI search / bare python, p95", "cold", "cold_over_bare_p95", 3.0, "×"),
    Target(
        "cold --reindex / one-core read+chunk+tokenise floor (median wall)",
        "floor",
        "reindex_over_floor",
        0.7,
        "×",
    ),
    Target(
        "cold --reindex / one-core floor (p95 wall)", "floor", "reindex_p95_over_floor", 0.7, "×"
    ),
    Target(
        "cold --reindex (50k files; projected from files/s)", "reindex", "projected_50k_s", 25, "s"
    ),
    Target("process start -> first search (CLI)", "startup", "cli_search_s", 1.0, "s"),
    Target("BM25 query p50 (ws.search, no link expansion)", "query", "general_p50_ms", 0.3, "ms"),
    Target("BM25 query p50 (BM25Index.search)", "query", "raw_general_p50_ms", 0.3, "ms"),
    Target("very common word p95 (ws.search)", "query", "common_p95_ms", 3.0, "ms"),
    Target("very common word p95 (BM25Index.search)", "query", "raw_common_p95_ms", 3.0, "ms"),
    Target("one-file edit searchable and durable (median)", "edit", "edit_apply_p50_ms", 10, "ms"),
    Target("peak RSS of --reindex, largest process", "reindex", "peak_rss_mb", 600, "MB"),
    Target(
        "peak RSS of --reindex, parent + pool workers summed",
        "reindex",
        "tree_peak_rss_mb",
        600,
        "MB",
    ),
    Target(
        "peak PSS of --reindex, parent + pool workers", "reindex", "tree_peak_pss_mb", 600, "MB"
    ),
    # Issue 32: what the person waits for.
    Target(
        "warm open in the browser / bare textual+numpy", "open_warm", "open_over_bare_p50", 3.0, "×"
    ),
    Target(
        "first open in the browser / --reindex", "open_first", "first_over_reindex_p50", 1.3, "×"
    ),
    Target(
        "warm open of a public vault / bare textual+numpy",
        "open_warm_vault",
        "open_over_bare_p50",
        2.5,
        "×",
    ),
    Target(
        "first open of a public vault / --reindex",
        "open_first_vault",
        "first_over_reindex_p50",
        1.3,
        "×",
    ),
    Target(
        "search job / ranking, 4-20 links per note, p50",
        "job_dense",
        "job_over_ranking_p50",
        1.5,
        "×",
    ),
    Target(
        "search ranking / BM25Index.search alone (overhead around the scorer), p50",
        "job",
        "ranking_over_scorer_p50",
        2.0,
        "×",
    ),
    Target(
        "search ranking / scorer alone, 4-20 links per note, p50",
        "job_dense",
        "ranking_over_scorer_p50",
        2.0,
        "×",
    ),
    Target(
        "TUI keystroke -> painted, after the debounce (p50, 10k files)",
        "tui",
        "after_debounce_p50_ms",
        50,
        "ms",
    ),
    Target(
        "dialog appears under load (the slowest dialog's p50)",
        "tui_load",
        "dialog_worst_p50_ms",
        100,
        "ms",
    ),
    Target("keystroke -> painted under load, p50", "tui_load", "keystroke_p50_ms", 50, "ms"),
    Target("keystroke -> painted under load, p95", "tui_load", "keystroke_p95_ms", 150, "ms"),
)


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _fmt(value: float) -> str:
    if value == int(value) and abs(value) >= 10:
        return f"{int(value):,}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def targets_table(results: dict[str, Result]) -> list[str]:
    """The issue's targets with measured values and pass / miss."""
    rows = ["| target | limit | measured | verdict |", "| --- | --- | --- | --- |"]
    for t in TARGETS:
        r = results.get(t.scenario)
        if r is None or t.metric not in r.metrics:
            why = r.status if r is not None else "not run"
            rows.append(f"| {t.label} | ≤ {_fmt(t.limit)} {t.unit} | – | {why} |")
            continue
        v = r.metrics[t.metric]
        verdict = "**pass**" if v <= t.limit else "**miss**"
        rows.append(f"| {t.label} | ≤ {_fmt(t.limit)} {t.unit} | {_fmt(v)} {t.unit} | {verdict} |")
    return rows


def headline(results: dict[str, Result]) -> list[str]:
    """What users feel first: the whole search job, then the cold search and the rebuild,
    each beside its floor from the same run."""
    out = ["## The whole search job", ""]
    j, c, f = results.get("job"), results.get("cold"), results.get("floor")
    if j is not None and j.status == "ok":
        m = j.metrics
        out.append(
            f"- `ws.search(q, limit=10)` with link expansion: p50 **{m['job_p50_ms']:.3f} ms**, "
            f"p95 **{m['job_p95_ms']:.3f} ms**; the ranking alone {m['ranking_p50_ms']:.3f} / "
            f"{m['ranking_p95_ms']:.3f} ms: **{m['job_over_ranking_p50']:.2f}×** / "
            f"**{m['job_over_ranking_p95']:.2f}×**"
        )
        out += around_scorer(m)
    if c is not None and c.status == "ok":
        m = c.metrics
        out.append(
            f"- cold `reme-tui search`: p50 {m['cli_p50_s']:.3f} s, p95 {m['cli_p95_s']:.3f} s; "
            f"bare `python -c 'import numpy, sqlite3'` {m['bare_p50_s']:.3f} / "
            f"{m['bare_p95_s']:.3f} s: **{m['cold_over_bare_p50']:.2f}×** / "
            f"**{m['cold_over_bare_p95']:.2f}×**"
        )
    if f is not None and "reindex_over_floor" in f.metrics:
        r = results["reindex"].metrics
        paired = (
            f" (each run over the floor's work timed just before it, {r['paired_floor_s']:.2f} s"
            f" at the median; over the floor scenario's {f.metrics['floor_s']:.2f} s: "
            f"{f.metrics['reindex_over_this_floor']:.2f}× / "
            f"{f.metrics['reindex_p95_over_this_floor']:.2f}×)"
            if "paired_floor_s" in r and "reindex_over_this_floor" in f.metrics
            else f" against a one-core floor of {f.metrics['floor_s']:.2f} s"
        )
        out.append(
            f"- cold `--reindex`: {r['wall_s']:.2f} s (p95 {r['wall_p95_s']:.2f} s): "
            f"**{f.metrics['reindex_over_floor']:.2f}×** / "
            f"**{f.metrics['reindex_p95_over_floor']:.2f}×** the one-core floor"
            + paired
            + (
                f"; in one more rebuild of {r['parent_cpu_wall_s']:.1f} s the parent used "
                f"{r['parent_cpu_s']:.1f} s of CPU and the pool {r['pool_cpu_s']:.1f} s: "
                f"spread over {os.cpu_count()} cores that is {r['cpu_bound_wall_s']:.1f} s, "
                f"**{f.metrics['cpu_bound_over_floor']:.2f}×** the floor, the least any "
                "schedule of this work could take here"
                if "cpu_bound_wall_s" in r and "cpu_bound_over_floor" in f.metrics
                else ""
            )
        )
    return [*out, ""] if len(out) > 2 else []


def ratios(results: dict[str, Result]) -> list[str]:
    """The machine-independent numbers we quote."""
    out = []
    b = results.get("bm25s")
    if b is not None and b.status == "ok":
        m = b.metrics
        out.append(f"- build, ours / bm25s: **{m['build_ratio']:.2f}**")
        out.append(f"- query (median), ours / bm25s: **{m['query_ratio_general']:.2f}**")
        out.append(f"- common-word query (median), ours / bm25s: **{m['query_ratio_common']:.2f}**")
    f = results.get("floor")
    if f is not None and "reindex_over_floor" in f.metrics:
        out.append(
            "- cold reindex (CLI, all cores) / single-process read+chunk+tokenise floor: "
            f"**{f.metrics['reindex_over_floor']:.2f}**"
        )
    return out


def render(
    results: list[Result], n_files: int, seed: int, runs: int, command: str, extra: str = ""
) -> str:
    """The whole RESULTS.md."""
    by_name = {r.scenario: r for r in results}
    lines = [
        "# Benchmark results",
        "",
        f"Regenerate with `{command}` (takes minutes; the machine is shared, so quote ratios).",
        "",
        "## Machine",
        "",
        f"- date: {dt.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}",
        f"- cpu: {_cpu()}, {os.cpu_count()} cores; {platform.system()} {platform.release()}",
        f"- python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, "
        + ", ".join(
            f"{p} {_version(p)}" for p in ("reme-tui", "numpy", "jieba", "bm25s", "textual")
        ),
        f"- corpus: {n_files:,} files, seed {seed}, {runs} run(s) per scenario (medians)",
        "",
        *waits(by_name),
        *headline(by_name),
        "## Targets",
        "",
        *targets_table(by_name),
        "",
        "## Ratios",
        "",
        *(ratios(by_name) or ["- (bm25s or floor not run)"]),
        "",
        "## Scenarios",
    ]
    for r in results:
        lines += ["", f"### {r.scenario} ({r.status})", ""]
        if r.metrics:
            lines += ["| metric | value |", "| --- | --- |"]
            lines += [f"| {k} | {_fmt(v)} |" for k, v in r.metrics.items()]
        lines += [f"- {n}" for n in r.notes]
    if extra:
        lines += ["", extra.strip()]
    return "\n".join(lines) + "\n"


def console(results: list[Result], log: Callable[[str], None] = print) -> None:
    """A compact summary on the terminal."""
    for r in results:
        log(f"{r.scenario} [{r.status}]")
        for k, v in r.metrics.items():
            log(f"  {k:28s} {_fmt(v)}")
        for n in r.notes:
            log(f"  note: {n}")
