"""`python -m benchmarks.rendered_view [VAULT ...]`: the reader's rendered view on big notes.

For the largest `.md` of each public vault (a fresh copy, so the vault is never touched) and
for a generated 300 KB note with every construct the renderer knows, it times, as medians:

- `source`: loading the note for the source view (read, links and their targets, outline);
  the reference the other figures are compared with, measured in the same run;
- `render`: rendering its Markdown into the reader's lines (`render_note`);
- `open`: in the browser under `App.run_test`, from `open_path` in rendered mode until the
  rendered lines are on screen, and `toggle`: from pressing `m` on the open source view
  until they are; with the longest stall of the event loop meanwhile (a 10 ms timer), which
  stays small because rendering runs in a worker. Measured with the links pane left empty
  (the reader's own figures) and again with it filled (what a person sees).

`--textual-markdown` also times Textual's own Markdown widget (the view this replaced) once
on the generated note, as the old reference; it takes tens of seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

from reme_core import Workspace
from reme_tui.app.browser import RemeApp
from reme_tui.services import load_note
from reme_tui.widgets.reader.note_data import render_note

VAULTS = Path("/work/vaults")
TARGET_BYTES = 300_000


def largest_note(root: Path) -> Path:
    """The biggest Markdown file of a vault (hidden folders left out)."""
    notes = [
        p
        for p in root.rglob("*.md")
        if not any(part.startswith(".") for part in p.relative_to(root).parts)
    ]
    return max(notes, key=lambda p: p.stat().st_size)


def generated_note(size: int = TARGET_BYTES, seed: int = 7) -> str:
    """A note of about `size` bytes: headings, paragraphs with emphasis, links and tags,
    lists, tasks, callouts, tables, code, comments and Chinese text."""
    rng = random.Random(seed)
    words = ["index", "note", "graph", "link", "search", "vault", "render", "table", "quote"]
    parts = ["---\ntitle: Generated\ntags: [bench]\n---\n"]
    n = 0
    while sum(len(p) for p in parts) < size:
        n += 1
        words_line = " ".join(rng.choice(words) for _ in range(14))
        parts.append(
            f"## Section {n}\n\n"
            f"A paragraph about *{words_line}* with **strong {n}**, `code {n}`, "
            f"[[Note {n % 50}]], [[Folder/Other {n % 7}|alias {n}]] and #tag/{n % 9}.\n"
            f"中文段落第{n}节：渲染视图需要在一秒内打开一个三百千字节的笔记，链接仍然可以选择。\n\n"
            f"- item [[Note {n % 13}#Heading]]\n  - nested ==mark== ~~old~~\n- [x] done {n}\n\n"
            f"> [!warning] Careful {n}\n> body with [[Note {n % 5}]] %%hidden%%\n\n"
            f"| a | b | c |\n|---|:-:|--:|\n| [[Note {n % 3}]] | {n} | {words_line[:20]} |\n\n"
            f"```python\nprint({n})\n```\n\n![[Note {n % 11}]]\n\n"
        )
    return "".join(parts)


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def time_core(ws: Workspace, path: str, runs: int) -> dict[str, float]:
    """Medians (s) of the source-view load and of rendering, outside any UI."""
    source, render = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        note = load_note(ws, path)
        t1 = time.perf_counter()
        render_note(note)
        t2 = time.perf_counter()
        source.append(t1 - t0)
        render.append(t2 - t1)
    return {"source": _median(source), "render": _median(render)}


async def _until(pilot, condition, timeout: float = 60.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the rendered view did not appear")
        await pilot.pause(0.002)


async def _time_ui(root: Path, path: str, runs: int, links_pane: bool) -> dict[str, float]:
    """Medians (s) of opening in rendered mode and of toggling `m`; the longest loop stall.

    Without `links_pane` the links pane is not filled, so the figures are the reader's own
    (a note with 2,000 links costs the links pane's OptionList more than the reader).
    """
    app = RemeApp(root, watch=False)
    opens, toggles, stalls = [], [], []
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: app.ws is not None, timeout=600)
        navigator = app.main.navigator
        if not links_pane:
            navigator.gather_neighbours = lambda path: None  # type: ignore[method-assign]
        ticks: list[float] = []
        app.set_interval(0.01, lambda: ticks.append(time.perf_counter()))
        reader = app.main.reader
        for _ in range(runs):
            reader.markdown_mode = True
            reader.path = ""  # a new place each time: nothing cached
            ticks.clear()
            t0 = time.perf_counter()
            navigator.open_path(path, record=False)
            await _until(pilot, lambda: reader.path == path and reader.view.rendered is not None)
            opens.append(time.perf_counter() - t0)
            stalls.append(_longest_gap([t0, *ticks, time.perf_counter()]))
            reader.markdown_mode = False
            navigator.open_path(path, record=False)
            await _until(pilot, lambda: reader.view.rendered is None and reader.note is not None)
            reader.note.rendered = None
            app.focus_reader()
            ticks.clear()
            t0 = time.perf_counter()
            await pilot.press("m")
            await _until(pilot, lambda: reader.view.rendered is not None)
            toggles.append(time.perf_counter() - t0)
            stalls.append(_longest_gap([t0, *ticks, time.perf_counter()]))
            await pilot.press("m")
    return {"open": _median(opens), "toggle": _median(toggles), "stall": max(stalls)}


def _longest_gap(times: list[float]) -> float:
    return max((b - a for a, b in pairwise(times)), default=0.0)


async def _time_textual_markdown(text: str) -> float:
    """Seconds Textual's Markdown widget takes to show the text (the view replaced)."""
    from textual.app import App, ComposeResult
    from textual.widgets import Markdown

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield Markdown()

    app = One()
    async with app.run_test(size=(140, 40)) as pilot:
        t0 = time.perf_counter()
        await app.query_one(Markdown).update(text)
        await pilot.pause()
        return time.perf_counter() - t0


def measure(label: str, root: Path, path: str, runs: int) -> dict[str, float]:
    """All figures for one note of a prepared (copied) workspace."""
    ws = Workspace.open(root)
    try:
        figures = time_core(ws, path, runs)
    finally:
        ws.close()
    small = "rendered-view-reference.md"  # a 1 KB note: what any repaint costs here
    (root / small).write_text(generated_note(1000), encoding="utf-8")
    figures |= asyncio.run(_time_ui(root, path, runs, links_pane=False))
    tiny = asyncio.run(_time_ui(root, small, runs, links_pane=False))
    whole = asyncio.run(_time_ui(root, path, runs, links_pane=True))
    figures |= {f"{key} with links pane": value for key, value in whole.items()}
    size = (root / path).stat().st_size
    print(
        f"{label}: {path} ({size / 1000:.0f} KB)\n"
        f"  source view load {figures['source'] * 1000:7.0f} ms (reference)\n"
        f"  render           {figures['render'] * 1000:7.0f} ms "
        f"({figures['render'] / figures['source']:.2f}x the reference)\n"
        f"  open rendered    {figures['open'] * 1000:7.0f} ms"
        f"   toggle m {figures['toggle'] * 1000:.0f} ms"
        f"   longest UI stall {figures['stall'] * 1000:.0f} ms\n"
        f"  a 1 KB note (reference): open {tiny['open'] * 1000:.0f} ms"
        f"   toggle m {tiny['toggle'] * 1000:.0f} ms"
        f"   longest UI stall {tiny['stall'] * 1000:.0f} ms\n"
        f"  with the links pane filled too: open {whole['open'] * 1000:.0f} ms"
        f"   toggle m {whole['toggle'] * 1000:.0f} ms"
        f"   longest UI stall {whole['stall'] * 1000:.0f} ms",
        flush=True,
    )
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "vaults", nargs="*", type=Path, help="vault folders (default: /work/vaults/*)"
    )
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--textual-markdown", action="store_true", help="also time the old view")
    args = parser.parse_args(argv)
    vaults = args.vaults or sorted(p for p in VAULTS.glob("*") if p.is_dir())
    with tempfile.TemporaryDirectory(prefix="rendered-view-") as scratch:
        for vault in vaults:
            if not vault.is_dir():
                print(f"skipped {vault}: not a folder", file=sys.stderr)
                continue
            note = largest_note(vault)
            copy = Path(scratch) / vault.name
            shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".reme-tui", ".git"))
            measure(vault.name, copy, note.relative_to(vault).as_posix(), args.runs)
            shutil.rmtree(copy)
        text = generated_note()
        gen = Path(scratch) / "generated"
        gen.mkdir()
        (gen / "Generated.md").write_text(text, encoding="utf-8")
        for n in range(50):
            (gen / f"Note {n}.md").write_text(f"# Note {n}\n\n## Heading\n", encoding="utf-8")
        measure("generated", gen, "Generated.md", args.runs)
        if args.textual_markdown:
            seconds = asyncio.run(_time_textual_markdown(text))
            print(f"  Textual's Markdown widget (the old view), once: {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
