"""`python -m benchmarks.links_pane [VAULT] [--runs R]`: opening the note with the most links.

A fresh copy of the vault (default: obsidian-secops) is indexed, and the note whose links pane
has the most entries (outlinks + inlinks) is found, and its largest note. In the browser under
`App.run_test`, it times as medians, from `open_path` until the reader shows the note *and*
the links pane shows its links (then one more paint):

- `source`: the note opened in the source view, and `rendered`: in the rendered view (`m`);
- `show`: the time `NeighboursPane.show` (on the UI thread) took for it;
- `stall`: the longest stall of the event loop meanwhile (a 10 ms timer).

A 1 KB note opened the same way in the same run is the reference.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from itertools import pairwise
from pathlib import Path

from reme_core import Workspace
from reme_tui.app.browser import RemeApp
from reme_tui.widgets.neighbours import NeighbourData

SECOPS = Path("/work/vaults/obsidian-secops.orig")
REFERENCE = "links-pane-reference.md"


def most_linked(ws: Workspace, shortlist: int = 10) -> tuple[str, int]:
    """The note with the most links-pane entries, and how many (outlinks counted first)."""
    by_out = sorted(
        ((len(ws.outlinks(p)), p) for p in ws.files() if p.endswith(".md")), reverse=True
    )
    best = ("", -1)
    for _, path in by_out[:shortlist]:
        links = ws.links(path)
        count = len(links.outlinks) + len(links.inlinks)
        if count > best[1]:
            best = (path, count)
    return best


def largest_note(root: Path) -> str:
    """The biggest Markdown file of the vault (hidden folders left out)."""
    notes = [
        p.relative_to(root)
        for p in root.rglob("*.md")
        if not any(part.startswith(".") for part in p.relative_to(root).parts)
    ]
    return max(notes, key=lambda p: (root / p).stat().st_size).as_posix()


async def _until(pilot, condition: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the note and its links did not appear")
        await pilot.pause(0.002)


async def _time_open(root: Path, paths: list[str], runs: int) -> dict[str, dict[str, float]]:
    """Per path: medians (s) of opening it in source and rendered mode, of `show`, and the
    longest event-loop stall."""
    app = RemeApp(root, watch=False)
    figures: dict[str, dict[str, list[float]]] = {
        p: {"source": [], "rendered": [], "show": [], "stall": []} for p in paths
    }
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: app.ws is not None, timeout=600)
        pane, reader = app.main.neighbours, app.main.reader
        shown: list[float] = []
        original_show = pane.show

        def timed_show(data: NeighbourData) -> None:
            t = time.perf_counter()
            original_show(data)
            shown.append(time.perf_counter() - t)

        pane.show = timed_show  # type: ignore[method-assign]
        ticks: list[float] = []
        app.set_interval(0.01, lambda: ticks.append(time.perf_counter()))
        for _ in range(runs):
            for mode in ("source", "rendered"):
                for path in paths:
                    reader.markdown_mode = mode == "rendered"
                    reader.path = ""
                    pane.data = None
                    shown.clear()
                    await pilot.pause()
                    ticks.clear()
                    t0 = time.perf_counter()
                    app.main.navigator.open_path(path, record=False)
                    await _until(pilot, partial(_shown, app, path, mode == "rendered"))
                    await pilot.pause()
                    f = figures[path]
                    f[mode].append(time.perf_counter() - t0)
                    f["show"].extend(shown)
                    f["stall"].append(_longest_gap([t0, *ticks, time.perf_counter()]))
    return {
        p: {k: (max(v) if k == "stall" else statistics.median(v)) for k, v in f.items()}
        for p, f in figures.items()
    }


def _shown(app: RemeApp, path: str, rendered: bool) -> bool:
    """Is the note on screen, in the mode asked for, with its links?"""
    reader, data = app.main.reader, app.main.neighbours.data
    return (
        reader.path == path
        and (reader.view.rendered is not None) == rendered
        and data is not None
        and data.path == path
    )


def _longest_gap(times: list[float]) -> float:
    return max((b - a for a, b in pairwise(times)), default=0.0)


def _row(label: str, f: dict[str, float], ref: dict[str, float] | None = None) -> str:
    def ms(key: str) -> str:
        ratio = f"  ({f[key] / ref[key]:.1f}x)" if ref and ref[key] else ""
        return f"{f[key] * 1000:6.0f} ms{ratio}"

    return (
        f"  {label}\n    source {ms('source')}   rendered {ms('rendered')}"
        f"   show {f['show'] * 1000:5.0f} ms   longest stall {f['stall'] * 1000:4.0f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("vault", nargs="?", type=Path, default=SECOPS, help="a vault folder")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="links-pane-") as scratch:
        root = Path(scratch) / args.vault.name
        shutil.copytree(args.vault, root, ignore=shutil.ignore_patterns(".reme-tui", ".git"))
        (root / REFERENCE).write_text(
            "# Reference\n\n" + "A small note with [[no such note]] in it.\n" * 24,
            encoding="utf-8",
        )
        ws = Workspace.open(root)
        try:
            notes = dict([most_linked(ws)])
            biggest = largest_note(root)
            links = ws.links(biggest)
            notes[biggest] = len(links.outlinks) + len(links.inlinks)
        finally:
            ws.close()
        sizes = {path: (root / path).stat().st_size for path in notes}
        figures = asyncio.run(_time_open(root, [REFERENCE, *notes], args.runs))
    ref = figures[REFERENCE]
    print(f"{args.vault.name}: medians of {args.runs} runs, 140x40")
    print(_row("1 KB note (reference)", ref))
    for path, count in notes.items():
        label = f"{path} ({count:,} links, {sizes[path] / 1000:.0f} KB)"
        print(_row(label, figures[path], ref))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
