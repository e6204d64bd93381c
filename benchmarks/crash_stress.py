"""Crash stress and freshness latency.

    python benchmarks/crash_stress.py --kills 300          # SIGKILL --reindex / watch, verify each
    python benchmarks/crash_stress.py --latency 20         # edit -> searchable through `watch`

The kill harness is the one of tests/test_crash.py; this script only runs it for longer.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reme_core import Workspace
from tests.test_crash import (
    Zygote,
    kill_during_reindex,
    kill_during_watch,
    make_workspace,
    read_text,
    wait_for,
)


def stress(kills: int, seed: int) -> None:
    """Alternate kills during --reindex and watch until `kills` processes were really killed."""
    rng = random.Random(seed)
    zygote = Zygote()
    done = attempts = 0
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            while done < kills:
                scratch = Path(tmp) / f"run{attempts}"
                scratch.mkdir()
                root = make_workspace(scratch / "ws", rng, n=rng.randint(5, 60))
                Workspace.open(root).close()
                run = kill_during_reindex if attempts % 2 else kill_during_watch
                done += run(zygote, root, rng, scratch)
                attempts += 1
                if attempts % 20 == 0:
                    print(f"{done} kill points survived ({time.monotonic() - started:.0f} s)")
    finally:
        zygote.close()
    print(f"{done} kill points survived in {attempts} runs, {time.monotonic() - started:.0f} s")


def latency(edits: int, quiet_ms: int) -> None:
    """Median time from a one-file edit to its `modified` line, minus the quiet window."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        (root / "daily").mkdir(parents=True)
        for i in range(200):
            (root / "daily" / f"n{i}.md").write_text(f"# N{i}\n\nbackground note {i}\n")
        target = root / "daily" / "edit.md"
        target.write_text("# Edit\n\nfirst\n")
        out = Path(tmp) / "watch.out"
        with open(out, "w") as fh:
            argv = ["watch", "-w", str(root), "--quiet-ms", str(quiet_ms)]
            proc = subprocess.Popen([sys.executable, "-m", "reme_tui.cli", *argv], stdout=fh)
        samples = []
        try:
            wait_for(lambda: "watching" in read_text(out), 60, "watch to start")
            time.sleep(1.5)
            for i in range(edits):
                seen = read_text(out).count("modified daily/edit.md")
                t0 = time.monotonic()
                target.write_text(f"# Edit\n\nversion {i} " + "word " * i + "\n")
                wait_for(
                    lambda seen=seen: read_text(out).count("modified daily/edit.md") > seen,
                    30,
                    "the edit to be applied",
                )
                samples.append(time.monotonic() - t0 - quiet_ms / 1000)
                time.sleep(0.2)
        finally:
            proc.send_signal(2)
            proc.wait(timeout=30)
    ms = sorted(s * 1000 for s in samples)
    print(
        f"edit -> searchable through watch, {edits} edits, quiet window {quiet_ms} ms excluded: "
        f"median {statistics.median(ms):.0f} ms, min {ms[0]:.0f} ms, max {ms[-1]:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kills", type=int, default=0, help="kill points to survive")
    parser.add_argument("--latency", type=int, default=0, help="edits to time through watch")
    parser.add_argument("--quiet-ms", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if not args.kills and not args.latency:
        args.kills, args.latency = 200, 20
    if args.latency:
        latency(args.latency, args.quiet_ms)
    if args.kills:
        stress(args.kills, args.seed)


if __name__ == "__main__":
    main()
