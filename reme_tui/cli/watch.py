"""`reme-tui watch`: keep the index fresh and print every applied change until Ctrl-C/SIGTERM.

asyncio and the watcher are imported when the command runs: every other command (a one-shot
search above all) starts without them.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import sys
import threading
from types import FrameType
from typing import TYPE_CHECKING, Any

from reme_tui.cli.commands import EXIT_OK, command, open_workspace

if TYPE_CHECKING:
    from reme_core import BatchReport, Workspace


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of `watch`."""
    p.add_argument(
        "--quiet-ms", type=int, default=None, help="quiet window before a batch (default 300)"
    )
    p.add_argument(
        "--force-polling", action="store_true", help="poll instead of OS events (network drives)"
    )
    p.add_argument(
        "--json", action="store_true", help="one JSON object per line (JSON Lines) per batch"
    )


def report_lines(report: BatchReport) -> list[str]:
    """One line per applied file: `added|modified|deleted <path> <chunks> chunks <ms> ms`."""
    ms = report.seconds * 1000
    lines = [f"{c.kind} {c.path} {c.chunks} chunks {ms:.0f} ms" for c in report.changes]
    lines += [f"skipped {path}: {reason}" for path, reason in report.skipped]
    if report.optimized is not None:
        o = report.optimized
        lines.append(
            f"optimized: tombstones {o.tombstones_before} -> {o.tombstones_after}, "
            f"documents {o.docs_before} -> {o.docs_after} ({o.seconds * 1000:.0f} ms)"
        )
    return lines


def report_dict(report: BatchReport) -> dict[str, Any]:
    """One applied batch as a JSON Lines record (`watch --json`)."""
    return {
        "event": "batch",
        "seconds": round(report.seconds, 4),
        "changes": [{"kind": c.kind, "path": c.path, "chunks": c.chunks} for c in report.changes],
        "skipped": [{"path": path, "reason": reason} for path, reason in report.skipped],
        "optimized": report.optimized.to_dict() if report.optimized is not None else None,
    }


class _Output:
    """Lines for stdout, written by a daemon thread straight to the descriptor: when nobody
    reads the pipe, only that thread waits, and a signal still ends `watch` (a blocked print
    in the event loop kept a SIGTERM'd watch running for good)."""

    def __init__(self) -> None:
        sys.stdout.flush()
        self.fd = sys.stdout.fileno()
        self.lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.done = threading.Event()
        threading.Thread(target=self._write, name="watch-output", daemon=True).start()

    def put(self, text: str) -> None:
        self.lines.put(f"{text}\n".encode())

    def close(self, seconds: float = 2.0) -> None:
        """Let what is queued out for up to `seconds`; what a stalled reader left is dropped."""
        self.lines.put(None)
        self.done.wait(seconds)

    def _write(self) -> None:
        try:
            while (data := self.lines.get()) is not None:
                view = memoryview(data)
                while view:
                    view = view[os.write(self.fd, view) :]
        except OSError:  # the reader went away
            pass
        self.done.set()


@command("watch", "keep the index fresh, printing each applied change")(add_arguments)
def run(args: argparse.Namespace) -> int:
    """Open the workspace (start-up diff), then watch; a signal ends it with exit code 0."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    import asyncio

    signal.signal(signal.SIGTERM, interrupt)
    try:
        ws = open_workspace(args)
        try:
            if args.json:
                start = {"event": "watching", "root": str(ws.root), "files": len(ws.files())}
                print(json.dumps(start, ensure_ascii=False), flush=True)
            else:
                print(f"watching {ws.root} ({len(ws.files())} files)", flush=True)
            asyncio.run(_watch(ws, args))
        finally:
            ws.close()
    except KeyboardInterrupt:
        pass
    return EXIT_OK


async def _watch(ws: Workspace, args: argparse.Namespace) -> None:
    import asyncio

    from reme_core.indexing.watcher import watch_workspace

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    out = _Output()
    try:
        async for report in watch_workspace(
            ws,
            stop_event=stop,
            quiet_ms=args.quiet_ms,
            force_polling=True if args.force_polling else None,
        ):
            if args.json:
                out.put(json.dumps(report_dict(report), ensure_ascii=False))
            else:
                for line in report_lines(report):
                    out.put(line)
    finally:
        await asyncio.to_thread(out.close)
