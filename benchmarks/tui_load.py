"""Issue 32, item 2: dialogs and keystrokes in the real app while the workspace is busy.

`tui_load` runs the browser under `App.run_test` (Pilot) on a copy of the corpus, with the
watcher on, and times from a key to the first frame Textual writes that shows its effect: each
dialog appearing (new note, rename, the switcher, the palette, the files tree, tags,
bookmarks, graph, help), a key typed into the search box echoed, and a move in the results
list and in the switcher's list. Every action is timed twice in one run: on the idle app (the
reference) and while a second process runs `--reindex` of the same workspace in a loop and
500 files are rewritten every few seconds, so the app's watcher applies 500-file batches.

A frame is "painted" when the app's `_display` (Textual's write of a composed frame; private,
so only here) runs while the action's condition holds. With `--stalls`, a watchdog thread
samples the event loop's stack whenever the loop has not ticked for 50 ms and prints the
commonest places: what blocked it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.context import Context, Result, cli
from benchmarks.corpus import corpus_paths
from benchmarks.measure import percentile

BATCH = 500
BATCH_EVERY_S = 4.0
TYPED = "memory note"  # typed into the search box, one key at a time
MOVES = 6  # list moves per list and round
MIN_FILES = 1_000  # below this the scenario says it was skipped (the smoke run's tiny corpus)
GIVE_UP_S = 10.0  # an action not painted by then counts as this long


@dataclass(slots=True)
class Action:
    """A key (or an action, for what has no key of its own), the condition its effect is
    painted under, and how to leave it again."""

    name: str
    keys: tuple[str, ...]
    shown: Callable[[Any], bool]
    close: tuple[str, ...] = ("escape",)
    action: str = ""  # run on the main screen instead of keys (palette-only commands)


def _screen_named(name: str) -> Callable[[Any], bool]:
    return lambda app: type(app.screen).__name__ == name


def _help_shown(app: Any) -> bool:
    from textual.widgets import HelpPanel

    return bool(app.screen.query(HelpPanel))


ACTIONS = (
    Action("new_note", ("n",), _screen_named("NewNoteScreen")),
    Action("rename", ("r",), _screen_named("MoveScreen")),
    Action("switcher", ("ctrl+o",), _screen_named("SwitcherPalette")),
    Action("palette", ("ctrl+p",), _screen_named("CommandPalette")),
    Action("files", ("ctrl+e",), lambda app: app.main.files_pane.display, close=("ctrl+e",)),
    Action("tags", (), _screen_named("TagsScreen"), action="tags"),
    Action("bookmarks", ("B",), _screen_named("BookmarksScreen")),
    Action("graph", ("v",), _screen_named("GraphScreen")),
    Action("help", (), _help_shown, close=(), action="app.show_help_panel"),
)


class Painted:
    """Wraps the app's frame writer: the time of the first frame drawn while a condition
    holds (one condition at a time)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.when: Callable[[Any], bool] | None = None
        self.at = 0.0
        self._display = app._display
        app._display = self._spy

    def _spy(self, *args: Any) -> None:
        self._display(*args)
        if self.when is not None and not self.at and self.when(self.app):
            self.at = time.perf_counter()

    async def time(
        self, pilot: Any, start: Callable[[], Any], when: Callable[[Any], bool]
    ) -> float:
        """Seconds from `start` (keys sent) to the first frame drawn with `when` true."""
        self.when, self.at = when, 0.0
        t0 = time.perf_counter()
        await start()
        while not self.at and time.perf_counter() - t0 < GIVE_UP_S:
            await pilot.pause(0.002)
        self.when = None
        return (self.at or time.perf_counter()) - t0


class Load:
    """The busy workspace: `--reindex` of it in a loop in another process, and a 500-file
    rewrite every few seconds for the app's watcher."""

    def __init__(self, root: Path, paths: list[str]) -> None:
        self.root = root
        self.paths = paths  # the rewritten files (listed before: a walk holds the GIL)
        self.stop = threading.Event()
        self.rebuilds = 0
        self.batches = 0
        self.applied: list[int] = []  # the files of each batch the app's watcher applied
        self.collections: list[float] = []  # ms of each full pass of the collector meanwhile
        self.by_app = 0  # of those, the passes the app ran itself (reme_tui.app.collector)
        self.by_app_forced = 0  # of the app's, those run with keys arriving (overdue ones)
        self._threads = [
            threading.Thread(target=f, daemon=True) for f in (self._rebuild, self._write)
        ]

    def __enter__(self) -> Load:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self._threads:
            t.join()

    def _rebuild(self) -> None:
        while not self.stop.is_set():
            proc = subprocess.Popen(
                [*cli(), "--reindex", "-w", str(self.root)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            while proc.poll() is None:
                if self.stop.wait(0.2):
                    proc.terminate()
                    proc.wait()
                    return
            self.rebuilds += 1

    def _write(self) -> None:
        """Each rewrite by another process (a sync tool's, not the app's GIL)."""
        paths = self.paths
        n = 0
        while not self.stop.is_set():
            n += 1
            subprocess.run(
                [sys.executable, "-c", _APPEND, str(self.root), f"loadbatch{n}", *paths],
                check=True,
            )
            self.batches += 1
            self.stop.wait(BATCH_EVERY_S)


_APPEND = """import sys
root, word = sys.argv[1], sys.argv[2]
for rel in sys.argv[3:]:
    with open(f"{root}/{rel}", "a", encoding="utf-8") as fh:
        fh.write(f"\\nA synced line {word} in it.\\n")
"""


class Stalls:
    """A watchdog: the event loop's stack, sampled each time the loop has not ticked for
    `after` seconds (what blocked it), counted by innermost frames of this project."""

    def __init__(self, after: float = 0.05) -> None:
        self.after = after
        self.places: Counter[str] = Counter()
        self.stop = threading.Event()
        self.tick = time.perf_counter()
        self.loop_thread = threading.get_ident()

    async def beat(self) -> None:
        while not self.stop.is_set():
            self.tick = time.perf_counter()
            await asyncio.sleep(0.005)

    def watch(self) -> None:
        while not self.stop.wait(self.after / 2):
            if time.perf_counter() - self.tick < self.after:
                continue
            frame = sys._current_frames().get(self.loop_thread)
            if frame is not None:
                self.places[_place(traceback.extract_stack(frame))] += 1


def _place(stack: traceback.StackSummary) -> str:
    """A stalled loop's place: the handler it runs (the innermost frame of this project, or
    the innermost `on_`/`_on_`/`action_`/`watch_` one), then the innermost frame."""
    ours = [f for f in stack if "reme_" in f.filename]
    handlers = [f for f in stack if f.name.startswith(("on_", "_on_", "action_", "watch_"))]
    outer = (ours or handlers or stack)[-1]
    inner = stack[-1]
    return (
        f"{Path(outer.filename).name}:{outer.lineno} {outer.name} -> "
        f"{Path(inner.filename).name} {inner.name}"
    )


async def _round(app: Any, pilot: Any, painted: Painted, rounds: int) -> dict[str, list[float]]:
    """Each action `rounds` times, the typed line, and list moves: seconds per action."""
    from textual.widgets import Input, OptionList

    out: dict[str, list[float]] = {}
    main = app.main
    for _ in range(rounds):
        for a in ACTIONS:
            main.reader.view.focus()
            await pilot.pause(0.05)
            if a.action:
                target = app if a.action.startswith("app.") else main
                name = a.action.removeprefix("app.")

                async def act(t: Any = target, n: str = name) -> None:
                    await t.run_action(n)

                start: Callable[[], Awaitable[None]] = act
            else:

                async def press(keys: tuple[str, ...] = a.keys) -> None:
                    await pilot.press(*keys)

                start = press

            out.setdefault(a.name, []).append(await painted.time(pilot, start, a.shown))
            await pilot.pause(0.1)
            if a.close:
                await pilot.press(*a.close)
            elif a.name == "help":
                app.action_hide_help_panel()
            for _ in range(50):
                if app.screen is main:
                    break
                await pilot.pause(0.02)
        box = main.search_pane.query_one("#query", Input)
        box.focus()
        box.value = ""
        await pilot.pause(0.05)
        for i, ch in enumerate(TYPED):
            want = TYPED[: i + 1]
            key = "space" if ch == " " else ch

            async def type_one(k: str = key) -> None:
                await pilot.press(k)

            shown = lambda app, w=want, b=box: b.value == w  # noqa: E731
            out.setdefault("keystroke", []).append(await painted.time(pilot, type_one, shown))
        await _searched(app, pilot)
        await _moves(
            pilot, painted, main.search_pane.query_one("#results", OptionList), out, "results_move"
        )
        await pilot.press("ctrl+o")
        while type(app.screen).__name__ != "SwitcherPalette":
            await pilot.pause(0.02)
        await pilot.pause(0.3)
        lists = app.screen.query(OptionList)
        if lists:
            await _moves(pilot, painted, lists.first(), out, "switcher_move")
        await pilot.press("escape")
        await pilot.pause(0.1)
    return out


async def _searched(app: Any, pilot: Any) -> None:
    """Until the typed line's results are painted (the debounce fired, no search running)."""
    await pilot.pause(0.5)
    for _ in range(500):
        searching = [w for w in app.main.workers if w.group == "search" and not w.is_finished]
        if not searching:
            break
        await pilot.pause(0.02)
    await pilot.pause(0.2)


async def _moves(
    pilot: Any, painted: Painted, options: Any, out: dict[str, list[float]], name: str
) -> None:
    """`MOVES` down-arrows in a list, each to its highlight painted."""
    for _ in range(50):
        if options.option_count > MOVES:
            break
        await pilot.pause(0.05)
    if options.option_count <= MOVES:
        return
    options.focus()
    options.highlighted = 0
    await pilot.pause(0.05)
    for i in range(1, MOVES + 1):

        async def down() -> None:
            await pilot.press("down")

        shown = lambda app, i=i: options.highlighted == i  # noqa: E731
        out.setdefault(name, []).append(await painted.time(pilot, down, shown))


class FullCollections:
    """The cyclic collector's full passes while in the block (each holds the GIL): their
    count and milliseconds."""

    def __init__(self) -> None:
        self.ms: list[float] = []
        self._at = 0.0

    def _seen(self, phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._at = time.perf_counter()
        else:
            self.ms.append((time.perf_counter() - self._at) * 1000)

    def __enter__(self) -> FullCollections:
        gc.callbacks.append(self._seen)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._seen)


class Spy:
    """py-spy (a dev tool, when installed) sampling this process during the loaded phase:
    which thread holds the GIL and doing what (``--gil``), as raw stacks in ``out``."""

    def __init__(self, out: Path | None) -> None:
        self.out = out
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Spy:
        exe = shutil.which("py-spy")
        if self.out is not None and exe:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            self.proc = subprocess.Popen(
                [
                    exe,
                    "record",
                    "--pid",
                    str(os.getpid()),
                    "--gil",
                    "--threads",
                    "--nonblocking",
                    "--rate",
                    "200",
                    "--format",
                    "raw",
                    "-o",
                    str(self.out),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        elif self.out is not None:
            print("py-spy is not installed: no profile", file=sys.stderr)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
            self.proc.wait()


def _spy_collector(collector: Any) -> list[float]:
    """Seconds since the last key or mouse event at each of the app's own full passes (under
    `IDLE_SECONDS`: a pass forced by being overdue, with keys arriving)."""
    seen: list[float] = []
    collect = collector.collect

    def spied() -> None:
        seen.append(time.monotonic() - collector.last_input)
        collect()

    collector.collect = spied
    return seen


async def _run(
    root: Path, rounds: int, stalls: Stalls | None, profile: Path | None = None
) -> tuple[dict, dict, Load]:
    from reme_tui.app.browser import RemeApp
    from reme_tui.app.collector import IDLE_SECONDS

    app = RemeApp(root, watch=True)
    async with app.run_test(size=(160, 48)) as pilot:
        deadline = time.perf_counter() + 300
        while app.ws is None and time.perf_counter() < deadline:
            await pilot.pause(0.05)
        listed = corpus_paths(root)
        first = listed[0]
        app.main.navigator.open_path(first)
        while app.main.reader.path != first:
            await pilot.pause(0.05)
        await pilot.pause(1.0)
        painted = Painted(app)
        await _round(app, pilot, painted, 1)  # each dialog's first opening imports and styles it
        idle = await _round(app, pilot, painted, rounds)
        if stalls is not None:
            beat = asyncio.create_task(stalls.beat())
            watcher = threading.Thread(target=stalls.watch, daemon=True)
            watcher.start()
        applied: list[int] = []
        assert app.ws is not None  # the first round waited for it
        app.ws.add_listener(lambda report: applied.append(len(report.changes)))
        app_passes = app.collector.passes
        since_input = _spy_collector(app.collector)
        with Load(root, listed[:BATCH]) as load, Spy(profile), FullCollections() as collections:
            await pilot.pause(BATCH_EVERY_S / 2)
            busy = await _round(app, pilot, painted, rounds)
        load.applied = [n for n in applied if n]
        load.collections = collections.ms
        load.by_app = app.collector.passes - app_passes
        load.by_app_forced = sum(s < IDLE_SECONDS for s in since_input)
        if stalls is not None:
            stalls.stop.set()
            await beat
    return idle, busy, load


def tui_load(ctx: Context) -> Result:
    """The scenario as `python -m benchmarks` runs it: in a process of its own, as the browser
    is one. Run after `job` in the runner's process, the app's figures came out 1.5x those of
    a process of its own (2026-12-03, RESULTS.md)."""
    if ctx.n_files < MIN_FILES:
        return _too_small()
    argv = [sys.executable, "-m", "benchmarks.tui_load", "--files", str(ctx.n_files)]
    argv += ["--seed", str(ctx.seed), "--runs", str(ctx.runs), "--scratch", str(ctx.scratch)]
    argv += ["--json", *(["--quick"] if ctx.quick else [])]
    here = Path(__file__).resolve().parent.parent  # where `benchmarks` imports from
    proc = subprocess.run(argv, cwd=here, capture_output=True, text=True, check=False)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"tui_load exited {proc.returncode}: {proc.stderr[-2000:]}")
    got = json.loads(lines[-1])
    return Result("tui_load", got["metrics"], got["notes"], got["status"])


def _too_small() -> Result:
    res = Result("tui_load", status="skipped")
    res.notes.append(f"fewer than {MIN_FILES:,} notes: nothing to load the app with")
    return res


def measure(ctx: Context, *, stalls: bool = False, profile: Path | None = None) -> Result:
    """Key -> painted for each dialog, a typed key and list moves, idle and under load (each
    dialog opened once before, unmeasured: its first opening imports and styles it), in
    this process."""
    if ctx.n_files < MIN_FILES:
        return _too_small()
    res = Result("tui_load")
    root = ctx.copy("tui-load")
    rounds = 1 if ctx.quick else ctx.runs
    watchdog = Stalls() if stalls else None
    idle, busy, load = asyncio.run(_run(root, rounds, watchdog, profile))
    for name in idle:
        i = [s * 1000 for s in idle[name]]
        b = [s * 1000 for s in busy.get(name, [])]
        res.metrics[f"{name}_idle_p50_ms"] = percentile(i, 50)
        res.metrics[f"{name}_p50_ms"] = percentile(b, 50)
        res.metrics[f"{name}_p95_ms"] = percentile(b, 95)
        res.metrics[f"{name}_max_ms"] = max(b, default=0.0)
    dialogs = [res.metrics[f"{a.name}_p50_ms"] for a in ACTIONS]
    res.metrics["dialog_worst_p50_ms"] = max(dialogs)
    res.metrics["dialog_worst_idle_p50_ms"] = max(
        res.metrics[f"{a.name}_idle_p50_ms"] for a in ACTIONS
    )
    res.metrics["files"] = ctx.n_files
    res.metrics["rebuilds_finished"] = load.rebuilds
    res.metrics["batches_written"] = load.batches
    res.metrics["batches_applied"] = len(load.applied)
    res.metrics["batch_files_p50"] = percentile([float(n) for n in load.applied], 50)
    res.metrics["full_gc_passes"] = len(load.collections)  # the interpreter's and the app's
    res.metrics["full_gc_by_app"] = load.by_app
    res.metrics["full_gc_by_app_forced"] = load.by_app_forced
    res.metrics["full_gc_max_ms"] = max(load.collections, default=0.0)
    res.metrics["full_gc_total_ms"] = sum(load.collections)
    res.metrics["load_avg_1m"] = os.getloadavg()[0]
    res.notes.append(
        "key -> first frame painted showing it (Pilot, watcher on); *_idle_p50: the same on "
        f"the idle app in the same run; p50/p95/max: while another process runs --reindex "
        f"in a loop and {BATCH} files are rewritten every {BATCH_EVERY_S:.0f} s"
    )
    if watchdog is not None:
        for place, n in watchdog.places.most_common(25):
            print(f"{n:5d}  {place}", file=sys.stderr)
    shutil.rmtree(root, ignore_errors=True)
    return res


if __name__ == "__main__":
    import argparse

    p = argparse.ArgumentParser(prog="python -m benchmarks.tui_load")
    p.add_argument("--files", type=int, default=10_000)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--stalls", action="store_true", help="print what blocked the event loop")
    p.add_argument(
        "--profile", type=Path, help="py-spy's raw GIL-holder stacks of the loaded phase to FILE"
    )
    p.add_argument("--scratch", type=Path, default=Path("/tmp/reme-bench"), help="copies go here")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--runs", type=int, default=3, help="rounds per phase")
    p.add_argument("--json", action="store_true", help="one line: the result as JSON")
    args = p.parse_args()
    ctx = Context(args.files, args.seed, args.runs, args.quick, args.scratch)
    result = measure(ctx, stalls=args.stalls, profile=args.profile)
    if args.json:
        print(json.dumps(dataclasses.asdict(result)))
    else:
        for k, v in result.metrics.items():
            print(f"{k:32s} {v:10.1f}")
