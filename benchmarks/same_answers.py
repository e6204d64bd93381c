"""Guard for search speed-ups: every answer of `ws.search` byte for byte, from two checkouts.

`python -m benchmarks.same_answers CODE_A CODE_B [--files 50000] [--dense]` runs the same
searches (the benchmark's three query sets, limit 10 with link expansion, limit 5, grouped)
over the cached corpus in one process per checkout (each imported from its own folder via
PYTHONPATH) and compares every hit, score part, matched term and neighbour as text: a
shortcut in the ranking must change no float and no order. Exit status 1 when they differ.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.context import Context
from benchmarks.corpus import DENSE_LINKS, LINKS, mixed_queries, query_sets

CALLS = ({"limit": 10}, {"limit": 5, "expand_links": False}, {"limit": 10, "group": True})


def answers(root: str, seed: int) -> list[str]:
    """Each search's answer as one line of text (run in the checkout under test)."""
    from reme_core import Workspace

    general, common = query_sets(seed, 200)
    queries = [*general, *common, *mixed_queries(seed, 100), "memo*", '"the" x', "path:daily/ x"]
    ws = Workspace.open(root)
    try:
        out = []
        for query in queries:
            for kw in CALLS:
                result = ws.search(query, **kw)  # type: ignore[arg-type]
                parts = ("score", "keyword_score", "name_score", "property_score")
                hits = [
                    [h.path, h.start_line, h.end_line, h.text, h.matched_terms, h.chunk_id, h.more]
                    + [repr(getattr(h, part)) for part in parts]
                    for h in result.results
                ]
                out.append(repr((query, kw, hits, result.link_expansion, result.counts)))
        return out
    finally:
        ws.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("code", nargs=2, help="two checkouts (folders holding reme_core)")
    parser.add_argument("--files", type=int, default=50000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dense", action="store_true", help="the corpus of 4-20 links a note")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.stdout.write("\n".join(answers(args.child, args.seed)))
        return 0
    ctx = Context(args.files, args.seed, links=DENSE_LINKS if args.dense else LINKS)
    root = str(ctx.indexed_root())
    here = str(Path(__file__).resolve().parent.parent)  # `benchmarks`, after the checkout's
    texts = []
    for code in args.code:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(code).resolve()), here])}
        # By its path: an older checkout has no such module to run with `-m`.
        argv = [sys.executable, __file__, *args.code, "--child", root]
        argv += ["--seed", str(args.seed)]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        texts.append(done.stdout.splitlines())
    a, b = texts
    for name, lines in zip(args.code, texts, strict=True):
        digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
        print(f"{name}: {len(lines)} searches, sha256 {digest}")
    differ = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if differ or len(a) != len(b):
        print(f"DIFFERENT: {len(differ)} searches, first {a[differ[0]][:300] if differ else ''}")
        return 1
    print("identical")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
