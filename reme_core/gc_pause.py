"""Pausing the cyclic garbage collector while a bulk step creates many objects."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def bulk_objects() -> Iterator[None]:
    """Pause the cyclic garbage collector while a bulk step creates many objects.

    Loading or rebuilding creates hundreds of thousands of nodes, links and chunks that
    reference counting frees on its own; the collector's repeated passes over a growing heap
    were a third of `Workspace.open` at 50k files. Collection resumes (if it was on) after.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
