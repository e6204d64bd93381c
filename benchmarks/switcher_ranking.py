"""`python -m benchmarks.switcher_ranking [--notes N] [VAULT ...]`: quick-switcher ms per key.

The names are the file names of the given vaults (default: the public vaults under
/work/vaults, if present), topped up to N (default 50,000) with seeded three-word names from
benchmarks/words_en.txt in 200 folders. Each query is typed one character at a time, and every
prefix is ranked as the switcher does on a keystroke (limit 50); reported are the median and
the worst milliseconds per keystroke over all of them, and the one-off costs (building the
ranker, the bigram index on the first typo search); beside them, the previous switcher's cost
(Textual's fuzzy Matcher on every label) for the first five keystrokes of the first query.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from reme_tui.widgets.note_ranking import NoteEntry, NoteRanker

VAULTS = [
    Path("/work/vaults") / n
    for n in (
        "Pokerole-Obsidian-SRD.orig",
        "Learning-Record-Write-By-Obsidian.orig",
        "obsidian-secops.orig",
    )
]
QUERIES = ("reciprocal rank", "reciprical", "rnak fusion", "pokemon", "zzqxw", "学习", "a")
WORDS = Path(__file__).with_name("words_en.txt")


def note_paths(vaults: list[Path], total: int, seed: int = 15) -> list[str]:
    """Real note paths of the vaults, then synthetic ones up to ``total``."""
    paths = [
        str(p.relative_to(v))
        for v in vaults
        if v.is_dir()
        for p in sorted(v.rglob("*.md"))
        if ".git" not in p.parts
    ]
    words = WORDS.read_text("utf-8").split()
    rng = random.Random(seed)
    while len(paths) < total:
        name = " ".join(rng.choice(words) for _ in range(3))
        paths.append(f"folder{rng.randrange(200)}/{name}.md")
    return paths[:total]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.switcher_ranking", description=__doc__)
    p.add_argument("vaults", nargs="*", type=Path, default=VAULTS)
    p.add_argument("--notes", type=int, default=50_000)
    args = p.parse_args(argv)
    entries = [NoteEntry(path) for path in note_paths(args.vaults, args.notes)]
    t = time.perf_counter()
    ranker = NoteRanker(entries)
    built = time.perf_counter() - t
    t = time.perf_counter()
    ranker.rank("warm up", 50)
    first_typo = time.perf_counter() - t
    recent = [e.path for e in entries[:: max(1, len(entries) // 20)]]
    print(f"{len(entries):,} notes: ranker built in {built * 1000:.0f} ms, ", end="")
    print(f"first typo search (bigram index) {first_typo * 1000:.0f} ms")
    every: list[float] = []
    for query in QUERIES:
        took = []
        for end in range(1, len(query) + 1):
            t = time.perf_counter()
            ranker.rank(query[:end], 50, recent)
            took.append((time.perf_counter() - t) * 1000)
        every += took
        print(f"  {query!r:18} median {statistics.median(took):6.1f} ms, worst {max(took):6.1f} ms")
    t = time.perf_counter()
    ranker.rank("", 50, recent)
    print(f"  empty (recent first) {(time.perf_counter() - t) * 1000:.1f} ms")
    print(f"all keystrokes: median {statistics.median(every):.1f} ms, worst {max(every):.1f} ms")
    old = [textual_matcher_ms(entries, QUERIES[0][:end]) for end in range(1, 6)]
    print("reference, the previous switcher (Textual's fuzzy Matcher on every label), ", end="")
    print(f"{QUERIES[0][:5]!r} typed: median {statistics.median(old):.0f} ms per keystroke")
    return 0


def textual_matcher_ms(entries: list[NoteEntry], query: str) -> float:
    """What the previous switcher did per keystroke: Textual's Matcher over every label."""
    from textual.fuzzy import Matcher

    matcher = Matcher(query)
    t = time.perf_counter()
    for entry in entries:
        matcher.match(entry.label)
    return (time.perf_counter() - t) * 1000


if __name__ == "__main__":
    sys.exit(main())
