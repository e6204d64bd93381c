"""`reme-tui watch`: keep the index fresh and print every change until Ctrl-C/SIGTERM.

What it prints is the store's change feed (reme_core.indexing.change_feed), not only what its
own watcher applied: a change another process committed first (an open browser, the MCP
server, `reme-tui write`) is printed too, each change once, in commit order. asyncio and the
watcher are imported when the command runs: every other command (a one-shot search above
all) starts without them.
"""

from __future__ import annotations

import argparse
import contextlib
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
    from reme_core import BatchReport, ChangeFeed, Committed, FeedEvent, Workspace

# How often the change log is read for other processes' commits (own ones wake it at once).
FEED_POLL_SECONDS = 0.5


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the options of `watch`."""
    p.add_argument(
        "--quiet-ms", type=int, default=None, help="quiet window before a batch (default 300)"
    )
    p.add_argument(
        "--force-polling", action="store_true", help="poll instead of OS events (network drives)"
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per line (JSON Lines) per committed batch, any process's",
    )


def batch_lines(batch: Committed, report: BatchReport | None) -> list[str]:
    """One line per changed file: `added|modified|deleted <path> <chunks> chunks <ms> ms`
    for this process's batch (`report`), `… chunks (pid N)` for another process's."""
    end = f"{report.seconds * 1000:.0f} ms" if report is not None else f"(pid {batch.pid})"
    lines = [f"{c.kind} {c.path} {c.chunks} chunks {end}" for c in batch.changes]
    return lines + ([] if report is None else report_extras(report))


def report_extras(report: BatchReport) -> list[str]:
    """A batch's skipped files and compaction, as lines."""
    lines = [f"skipped {path}: {reason}" for path, reason in report.skipped]
    if report.optimized is not None:
        o = report.optimized
        lines.append(
            f"optimized: tombstones {o.tombstones_before} -> {o.tombstones_after}, "
            f"documents {o.docs_before} -> {o.docs_after} ({o.seconds * 1000:.0f} ms)"
        )
    return lines


def batch_dict(batch: Committed, report: BatchReport | None) -> dict[str, Any]:
    """One committed batch as a JSON Lines record (`watch --json`); `seconds`, `skipped`
    and `optimized` are known for this process's own batches only."""
    return {
        "event": "batch",
        "generation": batch.generation,
        "pid": batch.pid,
        "seconds": round(report.seconds, 4) if report is not None else None,
        "changes": [{"kind": c.kind, "path": c.path, "chunks": c.chunks} for c in batch.changes],
        "skipped": [{"path": p, "reason": r} for p, r in report.skipped] if report else [],
        "optimized": report.optimized.to_dict() if report and report.optimized else None,
    }


class Output:
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


class FeedPrinter:
    """Prints the feed's events in commit order, this process's batches with their report.

    A batch of this process's own can be read from the log a moment before the watcher hands
    over its report: it waits (with what follows it) until the report is there."""

    def __init__(self, feed: ChangeFeed, as_json: bool, out: Output) -> None:
        self.feed = feed
        self.as_json = as_json
        self._print = out.put
        self.pid = os.getpid()
        self.reports: dict[int, BatchReport] = {}
        self.pending: list[FeedEvent] = []

    def own(self, report: BatchReport) -> None:
        """A batch this process's watcher applied; one without changes (only skipped files)
        is in no log: printed now."""
        if report.changes:
            self.reports[report.generation] = report
        elif self.as_json:
            from reme_core import Committed

            self._print(json.dumps(batch_dict(Committed(report.generation, self.pid), report)))
        else:
            for line in report_extras(report):
                self._print(line)

    def show(self, events: list[FeedEvent], final: bool = False) -> None:
        """Print the events that can be printed now (all of them when ``final``)."""
        from reme_core import Committed, Gap

        self.pending += events
        while self.pending:
            event = self.pending[0]
            if isinstance(event, Committed):
                report = self.reports.pop(event.generation, None)
                if report is None and event.pid == self.pid and not final:
                    return  # its report is on its way from the watcher
                if self.as_json:
                    self._print(json.dumps(batch_dict(event, report), ensure_ascii=False))
                else:
                    for line in batch_lines(event, report):
                        self._print(line)
            elif isinstance(event, Gap):
                self._print(
                    json.dumps({"event": "gap", "after": event.after, "upto": event.upto})
                    if self.as_json
                    else f"missed: changes of generations {event.after + 1}-{event.upto}"
                )
            else:
                self._print(
                    json.dumps({"event": "rebuilt", "generation": event.generation})
                    if self.as_json
                    else "rebuilt by another process: comparing the files"
                )
            self.pending.pop(0)


@command("watch", "keep the index fresh, printing each change any process commits")(add_arguments)
def run(args: argparse.Namespace) -> int:
    """Open the workspace (start-up diff), then watch; a signal ends it with exit code 0."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    import asyncio

    signal.signal(signal.SIGTERM, interrupt)
    try:
        ws = open_workspace(args)
        try:
            feed = ws.change_feed()  # from here on: the start-up diff is not in it
            if args.json:
                start = {
                    "event": "watching",
                    "root": str(ws.root),
                    "files": len(ws.files()),
                    "generation": feed.seen,
                    "pid": os.getpid(),
                }
                print(json.dumps(start, ensure_ascii=False), flush=True)
            else:
                print(f"watching {ws.root} ({len(ws.files())} files)", flush=True)
            out = Output()
            try:
                asyncio.run(_watch(ws, FeedPrinter(feed, args.json, out), args))
            finally:
                out.close()
        finally:
            ws.close()
    except KeyboardInterrupt:
        pass
    return EXIT_OK


async def _watch(ws: Workspace, printer: FeedPrinter, args: argparse.Namespace) -> None:
    """The watcher applies changes; this loop prints the feed, woken by each own batch and
    every `FEED_POLL_SECONDS` for other processes' commits."""
    import asyncio

    from reme_core import watch_workspace

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    wake = asyncio.Event()

    async def keep_fresh() -> None:
        try:
            async for report in watch_workspace(
                ws,
                stop_event=stop,
                quiet_ms=args.quiet_ms,
                force_polling=True if args.force_polling else None,
            ):
                printer.own(report)
                wake.set()
        finally:
            stop.set()

    watcher = asyncio.create_task(keep_fresh())
    try:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), FEED_POLL_SECONDS)
            wake.clear()
            printer.show(await asyncio.to_thread(printer.feed.poll))
        await watcher
    finally:
        printer.show(await asyncio.to_thread(printer.feed.poll), final=True)
