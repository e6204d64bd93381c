"""`python -m benchmarks [scenario ...|all] [--files N] [--quick] [--runs R] [--write]`."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from benchmarks.report import console, render
from benchmarks.scenarios import SCENARIOS, Context, run

RESULTS = Path(__file__).with_name("RESULTS.md")
NOTES = Path(__file__).with_name("NOTES.md")


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the scenarios, print (and with --write, save) the report."""
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    # No `choices=`: with nargs="*" argparse checks an empty list against them and fails.
    p.add_argument("scenario", nargs="*", help=f"all (default), or any of {', '.join(SCENARIOS)}")
    p.add_argument("--files", type=int, default=10_000, help="corpus size (1000, 10000, 50000)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--runs", type=int, default=None, help="runs per scenario (medians)")
    p.add_argument("--quick", action="store_true", help="1 run, fewer queries")
    p.add_argument("--write", action="store_true", help="rewrite benchmarks/RESULTS.md")
    p.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = p.parse_args(argv)
    runs = args.runs or (1 if args.quick else 3)
    ctx = Context(n_files=args.files, seed=args.seed, runs=runs, quick=args.quick)
    asked = args.scenario or ["all"]
    unknown = [name for name in asked if name != "all" and name not in SCENARIOS]
    if unknown:
        p.error(f"unknown scenario {unknown[0]!r} (choose from all, {', '.join(SCENARIOS)})")
    names = list(SCENARIOS) if "all" in asked else list(dict.fromkeys(asked))
    results = run(names, ctx, log=lambda s: print(s, file=sys.stderr, flush=True))
    if args.json:
        print(json.dumps({r.scenario: asdict(r) for r in results}, default=str, indent=2))
    else:
        console(results)
    if args.write:
        command = f"python -m benchmarks {' '.join(asked)} --files {args.files}"
        if args.runs:
            command += f" --runs {args.runs}"
        extra = NOTES.read_text(encoding="utf-8") if NOTES.exists() else ""
        RESULTS.write_text(render(results, args.files, args.seed, runs, command, extra), "utf-8")
        print(f"wrote {RESULTS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
