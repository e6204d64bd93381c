"""Issue 32's opens, in the real browser on a pseudo-terminal, each beside its reference in
the same run: the warm open (index on disk) against a bare `python -c "import textual.app,
numpy"`, and the first open of a never-indexed copy against `reme-tui --reindex` of another.

"Usable" is the header's file count drawn: the index is loaded and a query gets an answer.
`open_warm`/`open_first` run on the generated corpus, `open_warm_vault`/`open_first_vault` on
a public vault (`PUBLIC_VAULT` under `$REME_VAULTS`; skipped when it is not there).
"""

from __future__ import annotations

import os
import pty
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.context import Context, Result, cli
from benchmarks.measure import median, percentile, run_measured
from benchmarks.vault_sets import VAULTS

BARE = "import textual.app, numpy"
PUBLIC_VAULT = "Pokerole-Obsidian-SRD"  # 4.9k notes, names with spaces, `.obsidian/`
_USABLE = (b" files ", b"files \xc2\xb7")


def _until_usable(root: Path, timeout: float = 600) -> float:
    """Seconds from launching the browser on ``root`` to its file count drawn; it is then
    quit with Ctrl+Q (and killed if it does not go)."""
    env = {**os.environ, "TERM": "xterm-256color", "LINES": "40", "COLUMNS": "160"}
    argv = [*cli(), str(root)]
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    screen = bytearray()

    def drain() -> None:
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return
            if not data:
                return
            screen.extend(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        while not any(mark in screen for mark in _USABLE):
            if time.perf_counter() - started > timeout:
                raise RuntimeError(f"the browser was not usable in {timeout} s")
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                pid = 0  # reaped: it ended before drawing a count
                last = bytes(screen[-400:]).decode("utf-8", "replace")
                raise RuntimeError(f"{argv[0]} exited before it was usable: {last!r}")
            time.sleep(0.01)
        usable = time.perf_counter() - started
        os.write(fd, b"\x11")  # Ctrl+Q
        deadline = time.monotonic() + 30
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        else:
            pid = 0
        return usable
    finally:
        if pid:  # not usable in time, or not gone 30 s after Ctrl+Q
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
        reader.join(5)


def _vault_copy(ctx: Context, name: str) -> Path | None:
    """A fresh, never-indexed, writable copy of the public vault (None: not present)."""
    src = VAULTS / PUBLIC_VAULT
    if not src.is_dir():
        return None
    dst = ctx.scratch / f"{PUBLIC_VAULT}-{name}"
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, copy_function=shutil.copyfile)  # no read-only modes
    for folder, _, _ in os.walk(dst):
        os.chmod(folder, 0o755)
    return dst


def _skipped(name: str) -> Result:
    res = Result(name, status="skipped")
    res.notes.append(f"{PUBLIC_VAULT} is not in {VAULTS} (set $REME_VAULTS)")
    return res


def open_warm(ctx: Context) -> Result:
    """Warm open of the corpus (index and snapshot on disk, nothing changed) in the real
    browser, alternated run by run with the bare textual + numpy import."""
    return _open_warm(ctx, ctx.copy("open"), "open_warm")


def open_warm_vault(ctx: Context) -> Result:
    """`open_warm` on a copy of the public vault."""
    root = _vault_copy(ctx, "open")
    return _skipped("open_warm_vault") if root is None else _open_warm(ctx, root, "open_warm_vault")


def _open_warm(ctx: Context, root: Path, name: str) -> Result:
    _until_usable(root)  # builds (a vault copy) or settles the start-up diff and the snapshot
    _until_usable(root)
    opens, bares = [], []
    for _ in range(3 if ctx.quick else max(5, ctx.runs * 2)):
        opens.append(_until_usable(root))
        bares.append(run_measured([sys.executable, "-c", BARE]).seconds)
    shutil.rmtree(root, ignore_errors=True)
    res = Result(name)
    m = res.metrics
    m.update(
        open_p50_s=median(opens),
        open_p95_s=percentile(opens, 95),
        bare_p50_s=median(bares),
        bare_p95_s=percentile(bares, 95),
        open_over_bare_p50=median(opens) / median(bares),
        runs=len(opens),
        load_avg_1m=os.getloadavg()[0],
    )
    res.notes.append(
        f'`reme-tui ROOT` in a pty until its file count is drawn, against `python -c "{BARE}"`'
    )
    return res


def open_first(ctx: Context) -> Result:
    """First open of a never-indexed copy in the real browser against `reme-tui --reindex`
    of another copy (the CLI's build of the same files), alternated."""

    def fresh(name: str) -> Path:
        root = ctx.copy(name)
        shutil.rmtree(root / "metadata", ignore_errors=True)  # the corpus is a memory layer
        return root

    return _open_first(ctx, fresh, "open_first")


def open_first_vault(ctx: Context) -> Result:
    """`open_first` on copies of the public vault."""
    if not (VAULTS / PUBLIC_VAULT).is_dir():
        return _skipped("open_first_vault")

    def fresh(name: str) -> Path:
        root = _vault_copy(ctx, name)
        assert root is not None
        return root

    return _open_first(ctx, fresh, "open_first_vault")


def _open_first(ctx: Context, fresh: Callable[[str], Path], name: str) -> Result:
    firsts, reindexes = [], []
    for _ in range(1 if ctx.quick else ctx.runs):
        a, b = fresh("first-app"), fresh("first-cli")
        firsts.append(_until_usable(a))
        proc = run_measured([*cli(), "--reindex", "-w", str(b)])
        if proc.returncode != 0:
            raise RuntimeError(f"--reindex failed: {proc.stderr[-2000:]}")
        reindexes.append(proc.seconds)
        for root in (a, b):
            shutil.rmtree(root, ignore_errors=True)
    res = Result(name)
    res.metrics.update(
        first_open_p50_s=median(firsts),
        first_open_p95_s=percentile(firsts, 95),
        reindex_p50_s=median(reindexes),
        reindex_p95_s=percentile(reindexes, 95),
        first_over_reindex_p50=median(firsts) / median(reindexes),
        runs=len(firsts),
        load_avg_1m=os.getloadavg()[0],
    )
    res.notes.append("a never-indexed copy in the browser until usable, against `--reindex`")
    return res
