"""`python -m benchmarks.files_tree [VAULT] [--notes N]`: the Files pane's first paint and filter.

In the browser under `App.run_test` on a fresh copy of the vault (default Pokerole-Obsidian-SRD,
~4.9k notes): from Ctrl+E until the tree's first row is painted (the worker's
`Workspace.note_times`, the model built, the rows laid out and drawn), then each keystroke of
a filter typed one letter at a time until the tree is painted again. Then the same for N
generated paths (default 50k) in a pane of their own: the model built as the worker builds
it, shown, and filtered. Medians and worst keystrokes in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from textual.app import App, ComposeResult

from reme_tui.app.browser import RemeApp
from reme_tui.widgets.files.model import FilesModel
from reme_tui.widgets.files.pane import FilesPane
from reme_tui.widgets.files.view import FilesView

POKEROLE = Path("/work/vaults/Pokerole-Obsidian-SRD")


class _Paints:
    """When the view last drew a row (its `render_line`, wrapped)."""

    def __init__(self, view: FilesView) -> None:
        self.last = 0.0
        draw = view.render_line

        def spy(y: int):  # type: ignore[no-untyped-def]
            strip = draw(y)
            if view.rows:
                self.last = time.perf_counter()
            return strip

        view.render_line = spy  # type: ignore[method-assign]


async def _until(pilot, condition: Callable[[], bool], timeout: float = 600.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the tree was not painted")
        await pilot.pause(0.001)


async def _typed(pilot, view: FilesView, paints: _Paints, text: str) -> list[float]:  # type: ignore[no-untyped-def]
    """Seconds from each keystroke to the tree painted again (the filter as typed so far)."""
    out = []
    for i in range(1, len(text) + 1):
        t0 = time.perf_counter()
        view.set_filter(text[:i])  # what a printable key does
        await _until(pilot, lambda t0=t0: paints.last > t0)
        out.append(time.perf_counter() - t0)
    view.set_filter("")
    await pilot.pause()
    return out


async def time_vault(root: Path, text: str) -> dict[str, float]:
    app = RemeApp(root, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: app.ws is not None and not app.main.progress_bar.display)
        await pilot.pause(0.5)
        view = app.main.files_pane.view
        paints = _Paints(view)
        t0 = time.perf_counter()
        await pilot.press("ctrl+e")
        await _until(pilot, lambda: paints.last > t0)
        first = time.perf_counter() - t0
        assert app.ws is not None
        t1 = time.perf_counter()
        notes = len(app.ws.note_times())
        times = time.perf_counter() - t1
        keys = await _typed(pilot, view, paints, text)
    return {"notes": notes, "first": first, "note_times": times, **_keys(keys)}


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield FilesPane(id="files")


def generated(n: int, seed: int = 29) -> list[tuple[str, float]]:
    """`n` note paths in 20 top folders of up to 25 sub-folders each (~100 notes a folder:
    the public vaults have 90-190), with times."""
    rng = random.Random(seed)
    out: list[tuple[str, float]] = []
    for i in range(n):
        folder = f"area {rng.randint(0, 19)}"
        if rng.random() < 0.9:
            folder += f"/topic {rng.randint(0, 24)}"
        out.append((f"{folder}/note {i}.md", float(rng.randint(0, 10**9))))
    return out


def _built(paths: list[tuple[str, float]]) -> FilesModel:
    """The tree as the controller's worker builds it."""
    model = FilesModel(paths)
    model.prepare()
    return model


async def time_generated(n: int, text: str) -> dict[str, float]:
    paths = generated(n)
    app = _Host()
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(FilesPane)
        paints = _Paints(pane.view)
        t0 = time.perf_counter()
        model = await asyncio.to_thread(_built, paths)
        built = time.perf_counter() - t0
        pane.show_model(model)
        await _until(pilot, lambda: paints.last > t0)
        first = time.perf_counter() - t0
        keys = await _typed(pilot, pane.view, paints, text)
    return {"notes": len(model), "first": first, "build": built, **_keys(keys)}


def _keys(keys: list[float]) -> dict[str, float]:
    return {"key_median": statistics.median(keys), "key_worst": max(keys)}


def _line(label: str, f: dict[str, float]) -> str:
    parts = [f"{k} {v * 1000:.0f} ms" for k, v in f.items() if k != "notes"]
    return f"  {label} ({int(f['notes']):,} notes): " + ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("vault", nargs="?", type=Path, default=POKEROLE, help="a vault folder")
    parser.add_argument("--notes", type=int, default=50_000, help="generated paths")
    parser.add_argument("--vault-filter", default="pikachu v2", help="typed in the vault")
    parser.add_argument("--filter", default="note 4242", help="typed in the generated tree")
    args = parser.parse_args(argv)
    if args.vault.is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / args.vault.name
            shutil.copytree(args.vault, root, ignore=shutil.ignore_patterns(".git", ".reme-tui"))
            figures = asyncio.run(time_vault(root, args.vault_filter))
        print(_line(f"{args.vault.name}, typing {args.vault_filter!r}", figures))
    else:
        print(f"  {args.vault}: no such folder, skipped")
    figures = asyncio.run(time_generated(args.notes, args.filter))
    print(_line(f"generated, typing {args.filter!r}", figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
