"""Batches of files parsed across all cores: a process pool of `parse_batch` workers.

Small jobs parse in-process; large ones fan out to a forkserver pool that preloads the parsing
stack. Batches come back in submission order, which `TermSpaces` relies on.
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import forkserver, get_context
from multiprocessing.context import BaseContext
from pathlib import Path

from reme_core.parsing import ParsedBatch, ParseSettings, parse_batch

POOL_THRESHOLD = 256
BATCH_FILES = 128
IN_FLIGHT_PER_WORKER = 4


def uses_pool(n_files: int, workers: int = 0) -> bool:
    """Whether `parse_many` parses this many files in a process pool."""
    return (
        n_files >= POOL_THRESHOLD and (workers or os.cpu_count() or 1) >= 2 and _main_rerunnable()
    )


def _main_rerunnable() -> bool:
    """Whether pool workers can prepare ``__main__`` the way multiprocessing does.

    They re-import it by module name or re-run its file; a script read from stdin (or a file
    deleted since) cannot be, and every worker would die. Such callers parse in-process.
    """
    main = sys.modules.get("__main__")
    if main is None or getattr(getattr(main, "__spec__", None), "name", None):
        return True
    path = getattr(main, "__file__", None)
    return path is None or os.path.isfile(path)


def pool_context(settings: ParseSettings, start: bool = True) -> BaseContext:
    """The pool's process context: a forkserver that preloads the parsing stack (and jieba).

    ``start`` launches the server now, so it loads while the caller still scans the files;
    only the first server of a process takes the preload list.
    """
    if os.name != "posix":
        return get_context("spawn")
    context = get_context("forkserver")
    context.set_forkserver_preload(
        ["reme_core.pool_preload" if settings.use_jieba else "reme_core.parsing"]
    )
    if start:
        forkserver.ensure_running()
    return context


def parse_many(
    root: Path,
    relpaths: Sequence[str],
    settings: ParseSettings,
    workers: int = 0,
    progress: Callable[[int], None] | None = None,
) -> Iterator[ParsedBatch]:
    """Yield parsed batches in order (map their terms with one `TermSpaces`, in that order).

    Large jobs run in a process pool across all cores.
    """
    batches = [relpaths[i : i + BATCH_FILES] for i in range(0, len(relpaths), BATCH_FILES)]
    n_workers = workers or os.cpu_count() or 1
    if not uses_pool(len(relpaths), workers):
        for paths in batches:
            yield parse_batch(str(root), paths, settings)
            if progress:
                progress(len(paths))
        return
    job = f"{os.getpid()}-{time.monotonic_ns()}"
    context = pool_context(settings, start=False)
    with ProcessPoolExecutor(max_workers=n_workers, mp_context=context) as pool:
        # A bounded window of batches in flight: results are consumed (and freed) in order, so
        # memory stays flat however large the job and however slow the consumer.
        pending: deque[tuple[int, Future[ParsedBatch]]] = deque()
        todo = iter(batches)

        def submit(paths: Sequence[str]) -> None:
            pending.append((len(paths), pool.submit(parse_batch, str(root), paths, settings, job)))

        for paths in itertools.islice(todo, IN_FLIGHT_PER_WORKER * n_workers):
            submit(paths)
        while pending:
            n, future = pending.popleft()
            paths = next(todo, None)
            if paths is not None:
                submit(paths)
            yield future.result()
            if progress:
                progress(n)
