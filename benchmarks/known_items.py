"""`python -m benchmarks.known_items [VAULT ...] [--sample N]`: known-item search on vaults.

The query is a note's file name, the target that note: MRR@10 over a seeded sample of notes,
for several weights of the name field (0 = chunks alone), all on one index of a fresh copy.
The vaults are not in the repository: give their folders, or put them under `$REME_VAULTS`
(default `benchmarks/.vaults/`); missing ones are skipped.
"""

from __future__ import annotations

import argparse
import os
import posixpath
import random
import shutil
import sys
import tempfile
from pathlib import Path

from benchmarks.public_vaults import DEFAULT_VAULTS

WEIGHTS = (0.0, 1.0, 2.0, 3.0, 5.0)


def mrr_at_10(root: Path, sample: int, seed: int) -> dict[float, tuple[float, float]]:
    """Weight -> (MRR@10, share ranked first), hits counted once per note."""
    from reme_core import Workspace

    out: dict[float, tuple[float, float]] = {}
    for weight in WEIGHTS:
        ws = Workspace.open(root, {"search": {"name_weight": weight}})
        notes = sorted(p for p in ws.files() if p.endswith(".md"))
        picked = random.Random(seed).sample(notes, min(sample, len(notes)))
        total, firsts = 0.0, 0
        for path in picked:
            query = posixpath.splitext(posixpath.basename(path))[0]
            ranked: list[str] = []
            for hit in ws.search(query, limit=30, expand_links=False).results:
                if hit.path not in ranked:
                    ranked.append(hit.path)
            rank = ranked.index(path) + 1 if path in ranked[:10] else 0
            total += 1 / rank if rank else 0.0
            firsts += rank == 1
        out[weight] = (total / len(picked), firsts / len(picked))
        ws.close()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.known_items", description=__doc__)
    p.add_argument("vaults", nargs="*", help="vault folders (default: the three public vaults)")
    p.add_argument("--sample", type=int, default=300, help="notes per vault")
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(argv)
    base = Path(os.environ.get("REME_VAULTS", Path(__file__).with_name(".vaults")))
    vaults = [Path(v) for v in args.vaults] or [base / name for name in DEFAULT_VAULTS]
    print("| vault | " + " | ".join(f"name weight {w:g}" for w in WEIGHTS) + " |")
    print("| --- |" + " --- |" * len(WEIGHTS))
    for vault in vaults:
        if not vault.is_dir():
            print(f"skipped {vault}: not here", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory(prefix="reme-known-") as tmp:
            work = Path(tmp) / "vault"
            shutil.copytree(vault, work, ignore=shutil.ignore_patterns(".reme-tui", ".git"))
            scores = mrr_at_10(work, args.sample, args.seed)
        cells = [f"MRR {m:.3f} (first {f:.0%})" for m, f in scores.values()]
        print(f"| {vault.name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
