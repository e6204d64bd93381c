"""`python -m benchmarks.scanner_vs_mistletoe [FOLDER ...] [--runs N]`: why the block scanner.

Over the same note bodies (frontmatter removed, as the indexer reads them): the time of
`scan_blocks` on every note, against a `mistletoe.Document` parse of every note (the
reference the scanner is tested against). Median of N runs each (default 5), interleaved;
prints both, and the ratio. Default folders: the demo and the public vaults under
/work/vaults that are present.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import mistletoe

from reme_core.files.text_decode import decode_text
from reme_core.parse.frontmatter import split_frontmatter
from reme_core.parse.markdown_blocks import scan_blocks

DEMO = Path(__file__).resolve().parents[1] / "reme_tui" / "demo"
Note = tuple[list[str], int, str]
VAULTS = [
    Path("/work/vaults") / n
    for n in (
        "Pokerole-Obsidian-SRD.orig",
        "Learning-Record-Write-By-Obsidian.orig",
        "obsidian-secops.orig",
    )
]


def bodies(folder: Path) -> list[Note]:
    """(lines, first body line, body text) of every note under ``folder``."""
    out = []
    for path in sorted(folder.rglob("*.md")):
        if {".git", ".reme-tui", ".obsidian"} & set(path.parts):
            continue
        text, _ = decode_text(path.read_bytes(), str(path))
        lines = text.split("\n")
        first = split_frontmatter(text).end_line
        out.append((lines, first, "\n".join(lines[first:])))
    return out


def timed(fn: Callable[[Note], object], notes: list[Note]) -> float:
    start = time.perf_counter()
    for note in notes:
        fn(note)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.scanner_vs_mistletoe")
    p.add_argument("folders", nargs="*", type=Path)
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args(argv)
    folders = args.folders or [DEMO, *(v for v in VAULTS if v.is_dir())]
    print("| notes | MB | scanner (median) | mistletoe (median) | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for folder in folders:
        notes = bodies(folder)
        size = sum(len(b.encode("utf-8")) for _, _, b in notes) / 1e6
        scan, parse = [], []
        for _ in range(args.runs):
            scan.append(timed(lambda n: scan_blocks(n[0], n[1], len(n[0])), notes))
            parse.append(timed(lambda n: mistletoe.Document(n[2]), notes))
        s, m = statistics.median(scan), statistics.median(parse)
        print(
            f"| {folder.name}: {len(notes):,} | {size:.1f} | {s * 1000:.0f} ms | "
            f"{m * 1000:.0f} ms | {m / s:.0f}x |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
