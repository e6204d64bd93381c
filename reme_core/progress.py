"""How long work reports how far it got: `ProgressFn(done, total)`, and the one counter that
turns "n more finished" (what the parse pool says per batch) into it."""

from __future__ import annotations

from collections.abc import Callable

ProgressFn = Callable[[int, int], None]


def counting(progress: ProgressFn | None, total: int) -> Callable[[int], None]:
    """A callback taking how many more items finished, reporting (done, total) to
    ``progress`` (nothing when it is None)."""
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total)

    return tick
