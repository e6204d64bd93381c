"""File events from a process of their own, so that placing the watches never stalls the host.

watchfiles places one watch per folder with the interpreter held: 0.27 s at 50k notes (7k
folders), 0.55 s beside the start-up diff's walk, during which a browser drew nothing and
took no key. Here a child (`notifier_child`) runs watchfiles and writes a line of JSON when
its watches are in place, then one per batch of events; the host's event loop only reads
lines. The child ends when its standard input closes: when the host closes the notifier, and
when the host dies (the kernel closes the pipe).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

_CHUNK = 1 << 16  # bytes read from the child's pipe at a time
_CHILD = "reme_core.indexing.notifier_child"  # imports the standard library and watchfiles

RawChanges = set[tuple[int, str]]


class NotifierError(Exception):
    """The notifier stopped: `kind` is the name of watchfiles' error ("" when the process
    ended without saying why)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Notifier:
    """A running notifier: `placed()` waits for its watches, `batches()` yields events as
    (watchfiles `Change` value, absolute path) pairs; `close()` ends the child. The child
    also ends by itself when its standard input closes (the host died).

    Its output is read with the event loop's own reader, not a thread: a thread blocked on
    the pipe would hold the loop's executor open at exit."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        assert process.stdout is not None
        self._fd = process.stdout.fileno()
        os.set_blocking(self._fd, False)
        self._buffer = bytearray()

    @classmethod
    async def start(
        cls, paths: Sequence[Path], *, debounce: int, step: int, force_polling: bool
    ) -> Notifier:
        """Spawn the child (its stderr to the null device: a browser draws on the host's)."""
        options = {
            "paths": [str(p) for p in paths],
            "debounce": debounce,
            "step": step,
            "force_polling": force_polling,
        }
        process = await asyncio.to_thread(
            subprocess.Popen,
            # -P: the working folder (perhaps a stranger's clone) is not searched for modules.
            [sys.executable, "-P", "-m", _CHILD, json.dumps(options)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl+C in the host's terminal is the host's to handle
        )
        return cls(process)

    async def _line(self) -> dict[str, Any]:
        """The child's next message (NotifierError when it failed or ended)."""
        while (end := self._buffer.find(b"\n")) < 0:
            chunk = await self._read()
            if not chunk:
                raise NotifierError("", "the file notifier stopped")
            self._buffer += chunk
        message = json.loads(self._buffer[:end])
        del self._buffer[: end + 1]
        if "error" in message:
            raise NotifierError(str(message["error"]), str(message.get("message", "")))
        return message

    async def _read(self) -> bytes:
        """The next bytes the child wrote (b"" at its end), once the pipe is readable."""
        loop = asyncio.get_running_loop()
        while True:
            readable: asyncio.Future[None] = loop.create_future()
            loop.add_reader(self._fd, _wake, readable)
            try:
                await readable
            finally:
                loop.remove_reader(self._fd)
            with contextlib.suppress(BlockingIOError):  # woken for nothing: wait again
                return os.read(self._fd, _CHUNK)

    async def placed(self) -> None:
        """Wait until every watch is in place (NotifierError when they could not be)."""
        await self._line()

    async def batches(self) -> AsyncIterator[RawChanges]:
        """Each batch of events as watchfiles reported it (NotifierError when it fails)."""
        while True:
            events = (await self._line()).get("events")
            if isinstance(events, list):
                yield {(int(change), str(path)) for change, path in events}

    def close(self) -> None:
        """End the child at once (it keeps nothing worth a goodbye), reap it and close the
        pipes. Not a coroutine: a cancelled watcher still runs it to the end."""
        process = self._process
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


def _wake(readable: asyncio.Future[None]) -> None:
    if not readable.done():  # the pipe may show readable again before the reader is removed
        readable.set_result(None)
