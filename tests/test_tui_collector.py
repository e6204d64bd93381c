"""The collector's full passes while the browser runs (reme_tui.app.collector): not the
interpreter's automatic ones, but the app's, when the user pauses or when one is overdue."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reme_tui.app import collector
from reme_tui.app.browser import RemeApp
from tests.helpers import settle, until

pytestmark = pytest.mark.skipif(
    not collector.generational(), reason="3.14's incremental collector is left alone"
)

SIZE = (120, 36)


class Cycle:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    """The interpreter's thresholds, as they must be again after each test."""
    found = gc.get_threshold()
    yield found
    gc.set_threshold(*found)


def make_gen1_passes(n: int) -> list[Cycle]:
    """Allocate (and keep) cycles until the collector's young generations have run `n`
    generation-1 passes since the last full one (fewer if a full pass resets the count)."""
    kept: list[Cycle] = []
    start_passes = gc.get_stats()[1]["collections"]
    while gc.get_stats()[1]["collections"] - start_passes < n:
        kept.extend(Cycle() for _ in range(1000))
    return kept


async def test_no_automatic_full_pass_while_running_and_restored_after(
    indexed_demo: Path, thresholds: tuple[int, int, int]
) -> None:
    full: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        gc.callbacks.append(seen)
        try:
            # No await: the app's own passes (its timer) cannot run meanwhile.
            kept = make_gen1_passes(3 * max(thresholds[2], 1))
        finally:
            gc.callbacks.remove(seen)
        assert not full, "the interpreter ran a full pass of its own in the browser"
        assert gc.get_count()[2] >= 3 * thresholds[2]
        del kept
    assert gc.get_threshold() == thresholds


async def test_an_idle_pass_after_a_pause_none_while_keys_arrive(
    indexed_demo: Path, thresholds: tuple[int, int, int]
) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down")  # the user is at the keyboard (no pass for the settle's wait)
        kept = make_gen1_passes(app.collector.due_at)  # a full pass is due
        before = app.collector.passes
        # Each full pass: how long after the last key it started, and when it began and ended.
        passes: list[tuple[float, float]] = []
        since_key: list[float] = []

        def seen(phase: str, info: dict[str, int]) -> None:
            if info["generation"] == 2:
                now = time.monotonic()
                if phase == "start":
                    since_key.append(now - app.collector.last_input)
                    passes.append((now, now))
                else:
                    passes[-1] = (passes[-1][0], now)

        gc.callbacks.append(seen)
        try:
            typing_until = time.monotonic() + 2 * collector.IDLE_SECONDS
            while time.monotonic() < typing_until:
                await pilot.press("down")
                await pilot.pause(0.05)
            await until(pilot, lambda: app.collector.passes > before, "the idle pass", timeout=20)
        finally:
            gc.callbacks.remove(seen)
        # Only after a pause (a loaded machine may leave one between two keys too).
        assert since_key and min(since_key) >= collector.IDLE_SECONDS, since_key
        assert gc.get_count()[2] < app.collector.due_at
        del kept
        # The time cap: after a pass, the next idle one waits 1/MAX_SHARE times its length.
        began, ended = passes[-1]
        assert app.collector.not_before - ended >= (ended - began) / collector.MAX_SHARE * 0.99


async def test_a_forced_pass_when_overdue_though_keys_keep_arriving(
    indexed_demo: Path, thresholds: tuple[int, int, int]
) -> None:
    gc.set_threshold(thresholds[0], thresholds[1], 1)  # due after one gen-1 pass: a short test
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.collector.due_at == 1
        before = app.collector.passes
        await pilot.press("down")
        kept = make_gen1_passes(collector.OVERDUE)
        assert gc.get_count()[2] >= collector.OVERDUE
        since_key: list[float] = []  # at the start of each full pass

        def seen(phase: str, info: dict[str, int]) -> None:
            if phase == "start" and info["generation"] == 2:
                since_key.append(time.monotonic() - app.collector.last_input)

        gc.callbacks.append(seen)
        try:
            deadline = time.monotonic() + 20
            while app.collector.passes == before and time.monotonic() < deadline:
                await pilot.press("down")
                await pilot.pause(0.05)
        finally:
            gc.callbacks.remove(seen)
        assert app.collector.passes > before, "no forced pass"
        assert since_key and since_key[0] < collector.IDLE_SECONDS, "it waited for a pause"
        del kept
    assert gc.get_threshold() == (thresholds[0], thresholds[1], 1)
