"""`python -m benchmarks.public_vaults [VAULT ...]`: the installed browser on public vaults.

What a person feels on a vault nobody here wrote: launch -> usable for a never-indexed vault
(the browser alone builds the index), a 600-note storm copied in while it runs, and what a
killed rebuild leaves behind. The vaults are not part of the repository: give their folders,
or put them under `$REME_VAULTS` (default `benchmarks/.vaults/`); missing ones are skipped.
Each run works on a fresh copy, so the vault itself is never indexed or changed.
"""

from __future__ import annotations

import argparse
import os
import pty
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

DEFAULT_VAULTS = (
    "Pokerole-Obsidian-SRD",
    "Learning-Record-Write-By-Obsidian",
    "obsidian-secops",
)
STORM = 600


def _wait(cond: Callable[[], bool], timeout: float, step: float = 0.02) -> float | None:
    start = time.perf_counter()
    while not cond():
        if time.perf_counter() - start > timeout:
            return None
        time.sleep(step)
    return time.perf_counter() - start


def indexed_files(root: Path) -> int:
    """Files in the vault's index on disk, read without opening a workspace."""
    db = root / ".reme-tui" / "index.sqlite"
    if not db.is_file():
        return 0
    try:
        conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
        try:
            return int(conn.execute("SELECT count(*) FROM files").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def tagged(tag: str) -> list[int]:
    """Live processes whose environment carries `REME_BENCH_TAG=tag`."""
    needle, pids = f"REME_BENCH_TAG={tag}".encode(), []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                env = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
                state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
            except OSError:
                continue
            if needle in env and state != b"Z":
                pids.append(int(entry))
    return pids


def browser_run(vault: Path, scratch: Path, storm: int = STORM) -> dict[str, float | int | str]:
    """Launch the browser on a never-indexed copy, storm it, quit; the times it took."""
    work = scratch / "browse"
    shutil.copytree(vault, work, ignore=shutil.ignore_patterns(".reme-tui", ".git"))
    expected = indexed_expected(work)
    tag = f"bench-{os.getpid()}-{time.monotonic_ns()}"
    env = {**os.environ, "REME_BENCH_TAG": tag, "TERM": "xterm-256color"}
    env.update(LINES="40", COLUMNS="160")
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvpe("reme-tui", ["reme-tui", str(work)], env)
        finally:
            os._exit(127)
    screen = bytearray()
    done = threading.Event()

    def drain() -> None:
        while not done.is_set():
            try:
                data = os.read(fd, 65536)
            except OSError:
                return
            if not data:
                return
            screen.extend(data)

    threading.Thread(target=drain, daemon=True).start()
    out: dict[str, float | int | str] = {"notes": expected}
    try:
        painted = _wait(lambda: b"opening the index" in screen or b"notes found" in screen, 60)
        out["first paint s"] = round(painted, 2) if painted is not None else "none"
        first = _wait(lambda: b"notes found" in screen or b"files" in screen, 60)
        out["first progress line s"] = round(first, 2) if first is not None else "none"
        built = _wait(lambda: indexed_files(work) >= expected > 0, 600)
        out["launch -> index built s"] = round(time.perf_counter() - started, 2) if built else "-"
        usable = _wait(lambda: b" files " in screen or b"files \xc2\xb7" in screen, 120)
        out["launch -> usable s"] = round(time.perf_counter() - started, 2) if usable else "-"
        time.sleep(2)  # the watcher is in place
        sources = [p for p in sorted(work.rglob("*.md")) if ".reme-tui" not in p.parts][:storm]
        storm_dir = work / "Storm copy"
        storm_dir.mkdir()
        before = indexed_files(work)
        t0 = time.perf_counter()
        for i, src in enumerate(sources):
            shutil.copyfile(src, storm_dir / f"{i:04d} {src.name}")
        copied = time.perf_counter() - t0
        settled = _wait(lambda: indexed_files(work) >= before + len(sources), 300, 0.05)
        out[f"storm {len(sources)} notes: copy s"] = round(copied, 2)
        out["storm settled after copy s"] = round(settled - copied, 2) if settled else "-"
        os.write(fd, b"\x11")  # Ctrl+Q
        _, status = os.waitpid(pid, 0)
        out["exit code"] = os.waitstatus_to_exitcode(status)
        gone = _wait(lambda: not tagged(tag), 20)
        out["processes left"] = 0 if gone is not None else len(tagged(tag))
    finally:
        done.set()
        os.close(fd)
        for left in tagged(tag):
            os.kill(left, signal.SIGKILL)
    return out


def indexed_expected(root: Path) -> int:
    """The notes a vault-mode index takes (same rules as the scan, through reme_core)."""
    from reme_core.config import load_config
    from reme_core.files.scanner import scan, scopes_for

    _, _, rebuild = scopes_for(root, load_config(root))
    return len(scan(root, rebuild))


def kill_runs(vault: Path, scratch: Path) -> dict[str, str]:
    """Kill a `--reindex` mid-parse with each signal: processes and rebuild copies left."""
    out: dict[str, str] = {}
    for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGHUP):
        work = scratch / f"kill-{sig.name}"
        shutil.copytree(vault, work, ignore=shutil.ignore_patterns(".reme-tui", ".git"))
        tag = f"kill-{os.getpid()}-{time.monotonic_ns()}"
        env = {**os.environ, "REME_BENCH_TAG": tag}
        proc = subprocess.Popen(
            ["reme-tui", "--reindex", str(work)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        _wait(lambda: len(tagged(tag)) >= 4, 120)  # noqa: B023
        proc.send_signal(sig)
        proc.wait(30)
        _wait(lambda: not tagged(tag), 20)  # noqa: B023
        left = len(tagged(tag))
        subprocess.run(["reme-tui", "stats", "-w", str(work)], capture_output=True, check=False)
        copies = len(list((work / ".reme-tui").glob("index.sqlite.rebuild-*")))
        out[f"{sig.name}: processes / rebuild copies left"] = f"{left} / {copies}"
        shutil.rmtree(work, ignore_errors=True)
    return out


def cli_search(vault: Path, scratch: Path) -> dict[str, float]:
    """A cold `reme-tui search` on an indexed copy: median of 5 processes."""
    work = scratch / "cli"
    shutil.copytree(vault, work, ignore=shutil.ignore_patterns(".reme-tui", ".git"))
    subprocess.run(["reme-tui", "--reindex", str(work)], capture_output=True, check=True)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run(
            ["reme-tui", "search", "-w", str(work), "note", "--limit", "5"],
            capture_output=True,
            check=True,
        )
        times.append(time.perf_counter() - t0)
    return {"cold CLI search s (median of 5)": round(statistics.median(times), 3)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.public_vaults", description=__doc__)
    p.add_argument("vaults", nargs="*", help="vault folders (default: the three public vaults)")
    p.add_argument("--storm", type=int, default=STORM, help="notes copied in while it runs")
    p.add_argument("--browser-only", action="store_true", help="skip the CLI and kill runs")
    args = p.parse_args(argv)
    base = Path(os.environ.get("REME_VAULTS", Path(__file__).with_name(".vaults")))
    vaults = [Path(v) for v in args.vaults] or [base / name for name in DEFAULT_VAULTS]
    for vault in vaults:
        if not vault.is_dir():
            print(f"skipped {vault}: not here (fetch it, or give its folder)", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory(prefix="reme-bench-") as tmp:
            scratch = Path(tmp)
            row: dict[str, object] = {}
            row.update(browser_run(vault, scratch, args.storm))
            if not args.browser_only:
                row.update(cli_search(vault, scratch))
                row.update(kill_runs(vault, scratch))
        print(f"\n## {vault.name}")
        for key, value in row.items():
            print(f"- {key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
