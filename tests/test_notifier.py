"""The file notifier runs in a process of its own: the host's event loop keeps running while
the watches are placed, events arrive as batches, and the child does not outlive its host."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from reme_core.indexing.notifier import Notifier, NotifierError
from tests.real_vault import kill_all, tagged_pids, wait_until

FOLDERS = 2_000


async def test_the_event_loop_runs_while_the_watches_are_placed(tmp_path: Path) -> None:
    """watchfiles places its watches with the interpreter held (0.27 s at 50k notes): in
    the host's loop that froze a browser. Here the loop ticks meanwhile, and a file written
    after the watches are in place arrives as an event."""
    for i in range(FOLDERS):
        (tmp_path / f"f{i // 50}" / f"s{i}").mkdir(parents=True)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.001)
            ticks += 1

    ticker = asyncio.create_task(tick())
    notifier = await Notifier.start([tmp_path], debounce=200, step=20, force_polling=False)
    try:
        await notifier.placed()
        during = ticks
        ticker.cancel()
        (tmp_path / "f3" / "s150" / "new.md").write_text("# New\n", "utf-8")
        batch = await asyncio.wait_for(anext(notifier.batches()), 30)
    finally:
        notifier.close()
    assert during > 0
    assert str(tmp_path / "f3" / "s150" / "new.md") in {path for _, path in batch}


_HOST = """
import asyncio, sys
from pathlib import Path
import pytest

from reme_core.indexing.notifier import Notifier, NotifierError

async def main():
    notifier = await Notifier.start([Path(sys.argv[1])], debounce=200, step=20,
                                    force_polling=False)
    await notifier.placed()
    print("placed", flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


def test_the_notifier_ends_when_its_host_is_killed(tmp_path: Path) -> None:
    tag = uuid.uuid4().hex
    env = {**os.environ, "REME_TEST_TAG": tag}
    host = subprocess.Popen(
        [sys.executable, "-c", _HOST, str(tmp_path)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert host.stdout is not None and host.stdout.readline().strip() == "placed"
        assert len(tagged_pids(tag)) == 2  # the host and its notifier
        host.send_signal(signal.SIGKILL)
        host.wait(30)
        wait_until(lambda: not tagged_pids(tag), 30, "the notifier to end with its host")
    finally:
        kill_all(tagged_pids(tag))
        host.kill()
        host.wait()


async def test_what_stops_the_notifier_reaches_the_host_as_an_error(tmp_path: Path) -> None:
    """watchfiles' own error comes back by name: on this one (a file name that is not
    UTF-8) the watcher falls back to polling."""
    notifier = await Notifier.start([tmp_path], debounce=200, step=20, force_polling=False)
    try:
        await asyncio.wait_for(notifier.placed(), 30)
        os.close(os.open(bytes(tmp_path) + b"/caf\xe9.md", os.O_CREAT | os.O_WRONLY))
        with pytest.raises(NotifierError) as caught:
            await asyncio.wait_for(anext(notifier.batches()), 30)
    finally:
        notifier.close()
    assert caught.value.kind == "WatchfilesRustInternalError"
    assert "decode" in str(caught.value)
