"""RESULTS.md's lead: what the person waits for (issue 32), each beside its reference from
the same run, with the load average the machine had while it was measured."""

from __future__ import annotations

from benchmarks.context import Result
from benchmarks.open_scenarios import PUBLIC_VAULT


def waits(results: dict[str, Result]) -> list[str]:
    """The opens, a search while a batch commits, and the search job on dense links."""
    out = ["## What the person waits for", ""]
    b, d = results.get("under_batch"), results.get("job_dense")
    for suffix, of in (("", "the corpus"), ("_vault", PUBLIC_VAULT)):
        out += _opens(results.get(f"open_warm{suffix}"), results.get(f"open_first{suffix}"), of)
    if b is not None and b.status == "ok":
        m = b.metrics
        out.append(
            f"- a search while a batch commits: p50 **{m['search_during_batch_p50_ms']:.2f} ms**, "
            f"p95 {m['search_during_batch_p95_ms']:.2f} ms; idle {m['search_idle_p50_ms']:.2f} / "
            f"{m['search_idle_p95_ms']:.2f} ms; the longest search during the batch "
            f"**{m['search_during_batch_max_ms']:.0f} ms** in a {m['batch_s']:.1f} s batch "
            f"(load {m['load_avg_1m']:.1f})"
        )
    if d is not None and d.status == "ok":
        m = d.metrics
        out.append(
            f"- the search job on 4–20 links per note: p50 **{m['job_p50_ms']:.3f} ms**, the "
            f"ranking alone {m['ranking_p50_ms']:.3f} ms: **{m['job_over_ranking_p50']:.2f}×** "
            f"(p95 {m['job_over_ranking_p95']:.2f}×); the scorer alone "
            f"{m['scorer_p50_ms']:.3f} ms: the ranking is **{m['ranking_over_scorer_p50']:.2f}×** "
            f"it (load {m['load_avg_1m']:.1f})"
        )
        out += around_scorer(m)
    return [*out, ""] if len(out) > 2 else []


def _opens(w: Result | None, f: Result | None, of: str) -> list[str]:
    out = []
    if w is not None and w.status == "ok":
        m = w.metrics
        out.append(
            f"- warm open of {of} in the browser (pty, until the file count is drawn): p50 "
            f"**{m['open_p50_s']:.2f} s**, p95 {m['open_p95_s']:.2f} s; bare `python -c "
            f"'import textual.app, numpy'` {m['bare_p50_s']:.2f} s: "
            f"**{m['open_over_bare_p50']:.2f}×** (load {m['load_avg_1m']:.1f})"
        )
    if f is not None and f.status == "ok":
        m = f.metrics
        out.append(
            f"- first open of a never-indexed copy of {of} in the browser: "
            f"**{m['first_open_p50_s']:.2f} s** (p95 {m['first_open_p95_s']:.2f} s); "
            f"`--reindex` of another copy {m['reindex_p50_s']:.2f} s: "
            f"**{m['first_over_reindex_p50']:.2f}×** (load {m['load_avg_1m']:.1f})"
        )
    return out


def around_scorer(m: dict[str, float]) -> list[str]:
    """The ranking and the least SPEC asks of one, each over the scorer alone, with the
    parts of the least (benchmarks/required_ranking.py)."""
    if "required_p50_ms" not in m:
        return []
    parts = ", ".join(
        f"{k.removeprefix('required_').removesuffix('_p50_ms')} {v:.3f}"
        for k, v in m.items()
        if k.startswith("required_") and k.endswith("_p50_ms") and k != "required_p50_ms"
    )
    return [
        f"- around the scorer ({m['scorer_p50_ms']:.3f} ms alone): the ranking "
        f"**{m['ranking_over_scorer_p50']:.2f}×**; the least SPEC §8/§10/§13 ask of a ranking "
        f"{m['required_p50_ms']:.3f} ms, **{m['required_over_scorer_p50']:.2f}×** (its parts' "
        f"medians, ms: {parts})"
    ]
