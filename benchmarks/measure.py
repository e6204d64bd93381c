"""Timing, percentiles and peak memory of child processes, with no dependency beyond the stdlib.

Peak RSS of a subprocess comes from ``os.wait4`` (the kernel's own high-water mark for the
process and the descendants it reaped, i.e. the largest single one), and a sampler sums
``VmRSS`` over the whole process tree every few milliseconds, because a process pool's
workers live at the same time as the parent.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0–100) by linear interpolation; 0.0 for no values."""
    if not values:
        return 0.0
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def median(values: Sequence[float]) -> float:
    """Median, 0.0 for no values."""
    return statistics.median(values) if values else 0.0


def time_calls(fn: Callable[[], Any], repeat: int) -> list[float]:
    """Wall seconds of `repeat` calls of `fn`."""
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def _children_of() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _pss_kb(pid: int) -> int:
    """Proportional set size: each shared page split between the processes mapping it."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu_ticks(pid: int) -> int:
    """User + system clock ticks of one process (its own, not its reaped children's)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0
    return int(fields[11]) + int(fields[12])


def descendants(root: int) -> list[int]:
    """The pids below a process (children, their children, ...)."""
    tree = _children_of()
    out, todo = [], list(tree.get(root, ()))
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(tree.get(pid, ()))
    return out


def tree_memory_kb(root: int) -> tuple[int, int]:
    """(RSS, PSS) of a process and all its descendants, in KiB.

    Summed RSS counts copy-on-write pages shared with the forkserver once per process; PSS
    counts them once in all.
    """
    tree = _children_of()
    rss = pss = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        rss += _rss_kb(pid)
        pss += _pss_kb(pid)
        todo.extend(tree.get(pid, ()))
    return rss, pss


@dataclass(slots=True)
class ProcResult:
    """What one measured subprocess did."""

    seconds: float
    returncode: int
    stdout: str
    stderr: str
    maxrss_mb: float  # kernel high-water mark of the largest single process
    tree_peak_mb: float  # sampled peak of the whole tree's summed RSS
    tree_pss_peak_mb: float  # sampled peak of the whole tree's summed PSS
    cpu_s: float = 0.0  # user + system CPU of the process and the descendants it reaped
    descendants_cpu_s: float = 0.0  # with ``cpu_every``: CPU of every descendant, sampled
    samples: list[int] = field(default_factory=list)


def run_measured(
    argv: Sequence[str],
    env: dict[str, str] | None = None,
    sample_every: float | None = None,
    cpu_every: float | None = None,
) -> ProcResult:
    """Run a command to completion, timing it; with ``sample_every``, also sample the memory
    of its whole process tree.

    Sampling reads ``/proc`` for every process and ``smaps_rollup`` (a page-table walk) for
    the tree: every 20 ms that took a good part of one of the two cores and slowed a 50k
    rebuild by a fifth, so timed runs leave it off and memory is measured in a run of its own.
    ``cpu_every`` samples the CPU time of every descendant (a forkserver's workers are not
    reaped by the process measured, so `wait4` misses them); each one's last sample counts.
    """
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    peak = peak_pss = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak, peak_pss
        while not stop.wait(sample_every):
            rss, pss = tree_memory_kb(proc.pid)
            peak, peak_pss = max(peak, rss), max(peak_pss, pss)

    sampler = threading.Thread(target=sample, daemon=True)
    if sample_every is not None:
        sampler.start()
    ticks: dict[int, int] = {}

    def sample_cpu() -> None:
        while not stop.wait(cpu_every):
            for pid in descendants(proc.pid):
                ticks[pid] = max(ticks.get(pid, 0), _cpu_ticks(pid))

    cpu_sampler = threading.Thread(target=sample_cpu, daemon=True)
    if cpu_every is not None:
        cpu_sampler.start()
    out_chunks: list[str] = []
    err_chunks: list[str] = []
    readers = [
        threading.Thread(target=lambda s=s, b=b: b.append(s.read()), daemon=True)
        for s, b in ((proc.stdout, out_chunks), (proc.stderr, err_chunks))
    ]
    for r in readers:
        r.start()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    stop.set()
    if sample_every is not None:
        sampler.join()
    if cpu_every is not None:
        cpu_sampler.join()
    for r in readers:
        r.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return ProcResult(
        seconds=seconds,
        returncode=proc.returncode,
        stdout="".join(out_chunks),
        stderr="".join(err_chunks),
        maxrss_mb=usage.ru_maxrss / 1024,
        tree_peak_mb=peak / 1024,
        tree_pss_peak_mb=peak_pss / 1024,
        cpu_s=usage.ru_utime + usage.ru_stime,
        descendants_cpu_s=sum(ticks.values()) / os.sysconf("SC_CLK_TCK"),
    )


def dir_size(path: Path) -> int:
    """Bytes of the regular files under a folder (the database and its WAL)."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
