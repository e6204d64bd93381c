"""Batches of files parsed across all cores: a process pool of `parse_batch` workers.

Small jobs parse in-process; large ones fan out to a forkserver pool that preloads the parsing
stack. Batches come back in submission order, which `TermSpaces` relies on.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import sys
import threading
import time
import types
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from reme_core.parse import pool_worker
from reme_core.parse.parsing import ParsedBatch, parse_batch
from reme_core.parse.settings import ParseSettings
from reme_core.workspace_warning import Warn, WorkspaceWarning

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.context import BaseContext

POOL_THRESHOLD = 256
# The live watcher's batches go to the pool from this many files: parsed in the process they
# would hold its GIL (~3 ms a file) against the browser's painting; through the pool the
# process spends ~0.3 ms a file and waits ~0.1 s longer for the batch.
WATCH_POOL_FROM = 16
BATCH_FILES = 128
IN_FLIGHT_PER_WORKER = 4
# A batch the pool has not returned by then is taken as a stuck pool: the rest is parsed here.
BATCH_TIMEOUT_SECONDS = 120.0


def uses_pool(n_files: int, workers: int = 0, pool_from: int = POOL_THRESHOLD) -> bool:
    """Whether `parse_many` parses this many files in a process pool (from `pool_from` on)."""
    return n_files >= pool_from and (workers or os.cpu_count() or 1) >= 2


# One host change at a time: two threads starting pools must not restore each other's state.
_HOST_LOCK = threading.Lock()


@contextlib.contextmanager
def _pool_host() -> Iterator[None]:
    """Make this process a host that can start pool processes, whatever runs it.

    multiprocessing reads two things of the host when it starts a process. ``sys.stderr``'s
    descriptor goes to the resource tracker: inside a Textual app it is -1 and the start fails
    (``bad value(s) in fds_to_keep``), so a real one (the null device) stands in, only then:
    the browser starts its open before Textual replaces ``sys.stderr``, and a swap from this
    thread would undo Textual's (or leave Textual restoring the stand-in at its exit).
    ``__main__`` is re-run in every worker unless it has no file: a script without an
    ``if __name__ == "__main__"`` guard would index again in each worker, and one read from
    stdin cannot be re-run at all. The workers run only reme_core's functions, so they are
    told of no main module. Neither is put back over what replaced it meanwhile.
    """
    with _HOST_LOCK:
        saved_main, saved_err = sys.modules.get("__main__"), sys.stderr
        stand_in = None if _has_descriptor(saved_err) else _null()
        no_main = sys.modules["__main__"] = types.ModuleType("__main__")
        if stand_in is not None:
            sys.stderr = stand_in
        try:
            yield
        finally:
            if stand_in is not None and sys.stderr is stand_in:
                sys.stderr = saved_err
            if saved_main is not None and sys.modules.get("__main__") is no_main:
                sys.modules["__main__"] = saved_main


def _has_descriptor(stream: object) -> bool:
    """Whether a new process could inherit ``stream``'s descriptor."""
    try:
        return int(stream.fileno()) >= 0  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False


@functools.cache
def _null() -> IO[str]:
    """The null device as a text stream, opened once and never closed: some other code may
    still hold the stand-in after the window."""
    return open(os.devnull, "w")


def pool_context(settings: ParseSettings, start: bool = True) -> BaseContext:
    """The pool's process context: a forkserver that preloads the parsing stack (and jieba).

    ``start`` launches the server now, so it loads while the caller still scans the files;
    only the first server of a process takes the preload list.
    """
    # Imported here: a process that only searches (a cold CLI search) never starts a pool.
    from multiprocessing import forkserver, get_context

    if os.name != "posix":
        return get_context("spawn")
    context = get_context("forkserver")
    context.set_forkserver_preload(
        ["reme_core.parse.pool_preload" if settings.use_jieba else "reme_core.parse.pool_worker"]
    )
    if start:
        with _pool_host():
            forkserver.ensure_running()
    return context


def parse_many(
    root: Path,
    relpaths: Sequence[str],
    settings: ParseSettings,
    workers: int = 0,
    progress: Callable[[int], None] | None = None,
    warn: Warn | None = None,
    names: bool = False,
    pool_from: int = POOL_THRESHOLD,
) -> Iterator[ParsedBatch]:
    """Yield parsed batches in order (map their terms with one `TermSpaces`, in that order).

    Jobs of `pool_from` files or more run in a process pool across all cores. A pool that
    cannot start, or dies, costs speed, not the job: the batches it did not deliver are
    parsed here, and ``warn`` hears why, once. ``names``: each batch brings its files' name
    terms too.
    """
    batches = [relpaths[i : i + BATCH_FILES] for i in range(0, len(relpaths), BATCH_FILES)]
    delivered = 0
    if uses_pool(len(relpaths), workers, pool_from):
        try:
            n_workers = workers or os.cpu_count() or 2
            for batch, n in _pooled(root, batches, settings, n_workers, names):
                yield batch
                delivered += 1
                if progress:
                    progress(n)
        except Exception as exc:  # the pool's start or its processes failed; nothing is lost
            if warn is not None:
                warn(WorkspaceWarning("parsing_here", detail=f"{type(exc).__name__}: {exc}"))
    for paths in batches[delivered:]:
        yield parse_batch(str(root), paths, settings, names=names)
        if progress:
            progress(len(paths))


def _pooled(
    root: Path,
    batches: Sequence[Sequence[str]],
    settings: ParseSettings,
    n_workers: int,
    names: bool,
) -> Iterator[tuple[ParsedBatch, int]]:
    """Each batch parsed by the pool, with its file count, in submission order."""
    from concurrent.futures import ProcessPoolExecutor

    job = f"{os.getpid()}-{time.monotonic_ns()}"
    context = pool_context(settings, start=False)
    with _pool_host():  # its queues' locks start the resource tracker, on the first pool
        pool = ProcessPoolExecutor(
            max_workers=n_workers,
            mp_context=context,
            initializer=pool_worker.start_worker,
            initargs=(os.getpid(),),
        )
    try:
        # A bounded window of batches in flight: results are consumed (and freed) in order, so
        # memory stays flat however large the job and however slow the consumer.
        pending: deque[tuple[int, Future[ParsedBatch]]] = deque()
        todo = iter(batches)

        def submit(paths: Sequence[str]) -> None:
            with _pool_host():  # workers start on submit
                future = pool.submit(parse_batch, str(root), paths, settings, job, names)
            pending.append((len(paths), future))

        for paths in itertools.islice(todo, IN_FLIGHT_PER_WORKER * n_workers):
            submit(paths)
        while pending:
            n, future = pending.popleft()
            more = next(todo, None)
            if more is not None:
                submit(more)
            yield future.result(timeout=BATCH_TIMEOUT_SECONDS), n
    except BaseException:
        _end(pool)  # a stuck worker must not hold us too
        raise
    else:
        pool.shutdown(wait=True)


def _end(pool: ProcessPoolExecutor) -> None:
    """Shut a failed pool down without waiting, and end every process it started.

    The executor's own clean-up can miss one: on Python 3.11 a worker spawned for a submit
    while the pool breaks escapes `terminate_broken` (3.12 holds the shutdown lock there), and
    the interpreter's exit then waits for it forever (2 runs in 48 of a dying pool at load 5).
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):  # already ended, or never fully started
            process.terminate()
