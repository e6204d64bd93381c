"""A rich progress bar on stderr for long CLI operations (silent when not a terminal).

rich is imported only for a terminal: scripted runs start without it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def console_progress(label: str, unit: str = "files") -> Iterator[Callable[[int, int], None]]:
    """Yield a `(done, total)` callback; the bar appears only once there is work to show."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda done, total: None
        return
    progress = Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task = None

    def update(done: int, total: int) -> None:
        nonlocal task
        if task is None:
            progress.start()
            task = progress.add_task(label, total=total)
        progress.update(task, completed=done, total=total)

    try:
        yield update
    finally:
        if task is not None:
            progress.stop()
