"""rjieba against jieba (the reference) on the Han runs our tokenizer hands the segmenter.

    python -m benchmarks.segmenter_check [FOLDER ...] [--random N]

Every text file under each folder (default: the bundled demo) is normalised and lower-cased as
the tokenizer does, cut into Han runs by the tokenizer's own pattern, and each distinct run is
segmented by both; a run whose word lists differ (order included) is a mismatch. ``--random N``
adds N runs made of random jieba dictionary words mixed with rare Han characters (CJK
extension A/B, compatibility ideographs, 々〆〇). Prints counts and the first mismatches.
"""

from __future__ import annotations

import argparse
import random
import unicodedata
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from reme_core.text import segmenter
from reme_core.text.tokenizer import _cjk_split

DEMO = Path(__file__).resolve().parents[1] / "reme_tui" / "demo"
RARE_HAN = ["々", "〆", "〇", "㐀", "㑇", "䶵", "𠀀", "𪚥", "豈", "﨑", "鿿", "龥", "\u9fd6"]


def han_runs(folder: Path) -> Counter[str]:
    """Distinct Han runs of every readable text file under ``folder``, with their counts."""
    runs: Counter[str] = Counter()
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or ".git" in path.parts:
            continue
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        text = unicodedata.normalize("NFKC", text).lower()
        runs.update(m.group(1) for m in _cjk_split().finditer(text) if m.group(1))
    return runs


def random_runs(n: int, seed: int = 15) -> list[str]:
    """``n`` Han runs of 1-8 jieba dictionary words, one in five swapped for a rare character."""
    import jieba

    rng = random.Random(seed)
    words = sorted(w for w, f in jieba.dt.FREQ.items() if f > 0 and _cjk_split().fullmatch(w))
    out = []
    for _ in range(n):
        k = rng.randint(1, 8)
        out.append("".join(rng.choice(words if rng.random() < 0.8 else RARE_HAN) for _ in range(k)))
    return out


def mismatches(runs: Iterable[str]) -> list[tuple[str, list[str], list[str]]]:
    """Runs on which rjieba's search-mode cut differs from jieba's, with both cuts."""
    ref, fast = segmenter.jieba_cut(), segmenter.rjieba_cut()
    return [(r, list(ref(r)), list(fast(r))) for r in runs if list(ref(r)) != list(fast(r))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[DEMO])
    parser.add_argument("--random", type=int, default=0, metavar="N")
    args = parser.parse_args()
    for folder in args.folders:
        runs = han_runs(folder)
        bad = mismatches(runs)
        occurrences = sum(runs[r] for r, _, _ in bad)
        print(
            f"{folder}: {len(runs)} distinct Han runs ({sum(runs.values())} occurrences, "
            f"{sum(map(len, runs))} chars); mismatches: {len(bad)} runs, {occurrences} occurrences"
        )
        for run, a, b in bad[:5]:
            print(f"  {run[:40]!r}\n    jieba  {a[:12]}\n    rjieba {b[:12]}")
    if args.random:
        bad = mismatches(random_runs(args.random))
        print(f"random: {args.random} runs; mismatches: {len(bad)}")
        for run, a, b in bad[:5]:
            print(f"  {run[:40]!r}\n    jieba  {a[:12]}\n    rjieba {b[:12]}")


if __name__ == "__main__":
    main()
