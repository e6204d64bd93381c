"""The live watcher on real folders: coalescing, editor save patterns, folders, ignore rules."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from watchfiles import Change

from reme_core import BatchReport, Changes, Workspace
from reme_core.indexing.watcher import coalesce, settle, watch_workspace
from reme_core.parse.parse_pool import WATCH_POOL_FROM, uses_pool
from reme_core.ports import watched
from tests.helpers import parts

A, M, D = Change.added, Change.modified, Change.deleted


def test_coalesce_rules() -> None:
    got = coalesce(
        [
            (A, "daily/new.md"),
            (M, "daily/new.md"),
            (M, "daily/x.md"),
            (M, "daily/x.md"),
            (D, "daily/gone.md"),
            (A, "daily/tmp.md"),
            (D, "daily/tmp.md"),
            (A, "daily/was.md"),
            (D, "daily/was.md"),
            (D, "daily/re.md"),
            (A, "daily/re.md"),
            (A, "daily/only.md"),
        ],
        indexed={"daily/was.md", "daily/re.md", "daily/x.md"},
    )
    assert got.added == ["daily/only.md"]
    assert got.modified == ["daily/new.md", "daily/re.md", "daily/x.md"]
    assert got.deleted == ["daily/gone.md", "daily/was.md"]


def test_coalesce_unordered_set_never_drops_a_path() -> None:
    got = coalesce({(A, "daily/a.md"), (D, "daily/a.md")})
    assert got.modified == ["daily/a.md"] and not got.added and not got.deleted


def test_settle_asks_the_disk(make_tree: Callable[[dict[str, str]], Path]) -> None:
    root = make_tree({"daily/a.md": "# A\n", "daily/sub/b.md": "# B\n", "daily/sub/c.md": "# C\n"})
    ws = Workspace.open(root)
    (root / "daily" / "a.md").unlink()
    shutil.rmtree(root / "daily" / "sub")
    (root / "daily" / "n.md").write_text("# N\n")
    got = settle(watched(ws), Changes(added=["daily/a.md"], deleted=["daily/sub", "daily/n.md"]))
    assert got.added == ["daily/n.md"]
    assert got.deleted == ["daily/a.md", "daily/sub/b.md", "daily/sub/c.md"]
    ws.close()


class Watching:
    """Runs the real watcher in the test's event loop and collects its reports."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.stop = asyncio.Event()
        self.reports: list[BatchReport] = []
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Watching:
        async def run() -> None:
            async for report in watch_workspace(self.ws, stop_event=self.stop, quiet_ms=50):
                self.reports.append(report)

        self.task = asyncio.create_task(run())
        await asyncio.sleep(0.3)  # let the OS watch be registered (the catch-up diff covers gaps)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.stop.set()
        assert self.task is not None
        await asyncio.wait_for(self.task, 20)

    def changes(self) -> list[tuple[str, str]]:
        return [(c.kind, c.path) for r in self.reports for c in r.changes]

    async def until(self, cond: Callable[[], bool], what: str, timeout: float = 20) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not cond():
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"timed out waiting for {what}; saw {self.changes()}")
            await asyncio.sleep(0.02)


def hits(ws: Workspace, query: str) -> list[str]:
    return [h.path for h in ws.search(query, expand_links=False).results]


async def test_editor_save_patterns_end_as_one_modified(make_tree) -> None:
    root = make_tree({"daily/a.md": "# A\n\nalpha\n", "daily/b.md": "# B\n\nbravo\n"})
    ws = Workspace.open(root, {"optimize_tombstone_ratio": 1.0})
    async with Watching(ws) as w:
        tmp = root / "daily" / ".a.md.swp"
        tmp.write_text("# A\n\nzulu rename\n")
        os.replace(tmp, root / "daily" / "a.md")  # temp file then rename
        (root / "daily" / "b.md").unlink()  # delete then recreate
        (root / "daily" / "b.md").write_text("# B\n\nyankee recreate\n")
        for i in range(20):  # a burst of writes
            (root / "daily" / "c.md").write_text(f"# C\n\nxray burst {i}\n")
        await w.until(
            lambda: bool(hits(ws, "zulu") and hits(ws, "yankee") and hits(ws, "burst 19")),
            "all three files searchable",
        )
        await asyncio.sleep(0.3)
    assert sorted(w.changes()) == [
        ("added", "daily/c.md"),
        ("modified", "daily/a.md"),
        ("modified", "daily/b.md"),
    ]
    assert hits(ws, "alpha") == []
    ws.close()


async def test_folder_delete_ignores_and_compaction(make_tree, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Out\n\nsecret outside\n")
    files = {f"daily/t/n{i}.md": f"# N{i}\n\nnote {i}\n" for i in range(6)}
    root = make_tree({**files, "daily/keep.md": "# K\n\nkeep\n"})
    ws = Workspace.open(root)
    async with Watching(ws) as w:
        shutil.rmtree(root / "daily" / "t")
        (root / "daily" / "x.md~").write_text("temp")
        (root / "daily" / ".hidden.md").write_text("# H\n\nhidden\n")
        (root / "metadata" / "x.md").write_text("# M\n")
        (root / "daily" / "link.md").symlink_to(outside)
        (root / "daily" / "real.md").write_text("# R\n\nreal one\n")
        await w.until(lambda: ws.files() == ["daily/keep.md", "daily/real.md"], "settled")
    assert {p for k, p in w.changes() if k == "deleted"} == set(files)
    assert any(r.optimized is not None for r in w.reports)  # 6 of 7 documents tombstoned
    assert ws.stats().tombstones == 0
    assert hits(ws, "secret") == [] and hits(ws, "hidden") == []
    ws.close()


async def test_watched_folder_created_later(make_tree) -> None:
    root = make_tree({"resource/r.md": "# R\n"})  # memory mode, daily/ does not exist yet
    ws = Workspace.open(root)
    async with Watching(ws) as w:
        (root / "daily").mkdir()
        (root / "daily" / "d.md").write_text("# D\n\ndelta late\n")
        await w.until(lambda: hits(ws, "late") == ["daily/d.md"], "late folder indexed")
        (root / "daily" / "e.md").write_text("# E\n\necho later\n")
        await w.until(lambda: hits(ws, "echo") == ["daily/e.md"], "watching the new folder")
    assert "resource/r.md" in ws.files()
    ws.close()


@pytest.mark.parametrize("polling", [True])
async def test_force_polling(make_tree, polling: bool) -> None:
    root = make_tree({"notes/a.md": "# A\n"})
    ws = Workspace.open(root)
    stop = asyncio.Event()
    seen: list[BatchReport] = []

    async def run() -> None:
        async for report in watch_workspace(
            ws, stop_event=stop, quiet_ms=50, force_polling=polling
        ):
            seen.append(report)
            stop.set()

    task = asyncio.create_task(run())
    await asyncio.sleep(0.5)
    (root / "notes" / "b.md").write_text("# B\n\npolled\n")
    await asyncio.wait_for(task, 20)
    assert hits(ws, "polled") == ["notes/b.md"]
    ws.close()


async def test_a_watched_batch_parsed_in_the_pool_equals_one_parsed_here(make_tree) -> None:
    """From WATCH_POOL_FROM files a batch is parsed by the pool (the app's GIL stays free):
    its terms, ids and postings are those of the same batch parsed in the process."""
    n = WATCH_POOL_FROM * 2 + 3  # past the watcher's threshold, below the pool's own
    assert uses_pool(n, 2, WATCH_POOL_FROM) and not uses_pool(n, 2)
    notes = {f"daily/2026-06-01/n{i}.md": f"# N{i}\n\nshared words {i}\n" for i in range(n + 4)}
    pooled_root = make_tree(notes)
    here_root = pooled_root.parent / "here"
    shutil.copytree(pooled_root, here_root)
    opened = []
    for root, workers in ((pooled_root, 2), (here_root, 1)):  # one worker: never a pool
        (root / "reme.yaml").write_text(f"workers: {workers}\n", encoding="utf-8")
        opened.append(Workspace.open(root))
    for ws in opened:
        async with Watching(ws) as w:
            for i in range(n):
                (ws.root / f"daily/2026-06-01/n{i}.md").write_text(
                    f"# N{i}\n\nfresh term{i} 逆变器 words\n", encoding="utf-8"
                )
            await w.until(lambda ws=ws: len(hits(ws, "fresh")) == 5, "the batch applied")
            await w.until(lambda w=w: len(w.changes()) == n, "every change reported")
        assert not ws.warnings  # the pool did not fail over to parsing here
    pooled, here = opened
    try:
        assert parts(pooled).index.vocab.terms() == parts(here).index.vocab.terms()
        assert _postings(pooled) == _postings(here)
        for query in ("fresh term3", "逆变器", "shared words", f"term{n - 1}"):
            got = [(h.path, h.start_line, round(h.score, 9)) for h in pooled.search(query).results]
            want = [(h.path, h.start_line, round(h.score, 9)) for h in here.search(query).results]
            assert got == want and got
    finally:
        pooled.close()
        here.close()


def _postings(ws: Workspace) -> list[tuple[str, list[tuple[int, int]]]]:
    """Each chunk's (term id, tf) pairs as stored, in term order."""
    rows = parts(ws).store.conn.execute("SELECT id, term_ids, tfs FROM chunks ORDER BY id")
    return [
        (cid, sorted(zip(np.frombuffer(ids, "<i4").tolist(), np.frombuffer(tfs, "<i4").tolist())))
        for cid, ids, tfs in rows
    ]


@pytest.mark.parametrize("handed_over", [False, True])
async def test_the_catch_up_is_the_callers_when_it_asks(make_tree, handed_over: bool) -> None:
    """A note changed while nothing watched: the watcher's own catch-up diff finds it, unless
    the caller takes the catch-up (`on_placed`, the browser's worker with its progress bar).
    Then the watcher does not walk the disk a second time: the change stays unindexed until
    the caller syncs."""
    root = make_tree({"notes/a.md": "# A\n\nbefore\n", "notes/b.md": "# B\n"})
    ws = Workspace.open(root)
    (root / "notes" / "a.md").write_text("# A\n\nchanged while closed\n")
    stop = asyncio.Event()
    placed: list[bool] = []
    reports: list[BatchReport] = []

    async def run() -> None:
        async for report in watch_workspace(
            ws,
            stop_event=stop,
            quiet_ms=50,
            on_placed=(lambda: placed.append(True)) if handed_over else None,
        ):
            reports.append(report)

    task = asyncio.create_task(run())
    for _ in range(600):  # the notifier's start, then its first batch
        if placed or reports:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(2.5)  # two idle ticks: a diff of the watcher's own would be done
    if handed_over:
        assert placed == [True] and reports == [] and hits(ws, "changed") == []
        await asyncio.to_thread(ws.sync)  # the caller's catch-up
    else:
        assert placed == [] and "notes/a.md" in [c.path for r in reports for c in r.changes]
    stop.set()
    await asyncio.wait_for(task, 20)
    assert hits(ws, "changed") == ["notes/a.md"]
    ws.close()


async def test_a_watcher_that_cannot_place_its_watches_hands_the_catch_up_over_at_once(
    make_tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notifier's process cannot start (no interpreter at `sys.executable`): `on_placed`
    is still called, at once, so the caller's catch-up is not left waiting; the watcher
    then compares the disk by walks, and a note written meanwhile is indexed."""
    root = make_tree({"notes/a.md": "# A\n"})
    ws = Workspace.open(root)
    monkeypatch.setattr(sys, "executable", str(root / "no-such-python"))
    stop = asyncio.Event()
    placed: list[bool] = []

    async def run() -> None:
        async for _ in watch_workspace(
            ws, stop_event=stop, quiet_ms=50, on_placed=lambda: placed.append(True)
        ):
            pass

    task = asyncio.create_task(run())
    for _ in range(200):
        if placed:
            break
        await asyncio.sleep(0.05)
    assert placed == [True]
    (root / "notes" / "walked.md").write_text("# Walked\n\nfound by a walk\n")
    for _ in range(200):
        if hits(ws, "walk") == ["notes/walked.md"]:
            break
        await asyncio.sleep(0.05)
    stop.set()
    await asyncio.wait_for(task, 20)
    assert hits(ws, "walk") == ["notes/walked.md"] and placed == [True]
    ws.close()
