"""The scan and the scan started ahead in a forked child: the same answer, and no leftovers."""

from __future__ import annotations

import copy
import os
import threading
from pathlib import Path

import pytest

from reme_core import Workspace
from reme_core.files.scan_ahead import Part, ScanAhead
from reme_core.files.scanner import list_files, scan
from reme_core.files.scope import Listing, Scope
from tests.helpers import hits

SCOPE = Scope(("daily", "digest"), (".md",))


@pytest.fixture
def tree(make_tree) -> Path:
    root = make_tree(
        {
            "daily/2026-06-01/a.md": "alpha\n",
            "daily/2026-06-01/b.md": "beta " * 500,
            "digest/wiki/东极岛.md": "海岛\n",
            "digest/wiki/.hidden.md": "ignored\n",
            "digest/wiki/notes.txt": "not markdown\n",
            "resource/outside-scope.md": "no\n",
        }
    )
    # A name that is not UTF-8 is left out, and named (escaped) after the trip through the pipe.
    (root / os.fsdecode(b"daily/2026-06-01/caf\xe9.md")).write_text("cafe\n", encoding="utf-8")
    return root


def test_scan_ahead_gives_what_scan_gives(tree: Path) -> None:
    ahead = ScanAhead(tree, SCOPE)
    try:
        assert ahead.forked == (threading.active_count() == 1)
        listing = ahead.result()
    finally:
        ahead.close()
    assert listing == list_files(tree, SCOPE)
    found = listing.found()
    assert found == scan(tree, SCOPE)
    assert "digest/wiki/东极岛.md" in found and "daily/2026-06-01/caf\udce9.md" not in found
    assert found.undecodable == ["daily/2026-06-01/caf\\xe9.md"]
    assert found["daily/2026-06-01/b.md"].size == 2500
    assert "resource/outside-scope.md" not in found and "digest/wiki/.hidden.md" not in found


def test_scan_ahead_walks_here_in_a_threaded_process(tree: Path) -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        ahead = ScanAhead(tree, SCOPE)
        assert not ahead.forked  # a child of a threaded process could inherit a held lock
        assert ahead.result() == list_files(tree, SCOPE)
    finally:
        stop.set()
        other.join()


def test_unused_scan_ahead_is_reaped(tree: Path) -> None:
    if threading.active_count() != 1:
        pytest.skip("only a single-threaded process forks")
    ahead = ScanAhead(tree, SCOPE)
    pid = ahead._pid
    ahead.close()
    ahead.close()  # idempotent
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped: no zombie left behind


def test_file_indexed_after_the_walk_is_not_deleted(make_tree) -> None:
    root = make_tree({"daily/2026-06-01/a.md": "alpha\n"})
    first = Workspace.open(root)
    try:
        walked = list_files(root, first.watch_scope)  # the walk, before the file appears
        (root / "daily/2026-06-01/new.md").write_text("fresh gamma\n", encoding="utf-8")
        other = Workspace.open(root)  # another process indexes and commits it
        other.close()
        report = first.sync(ahead=_Fixed(walked))
        assert not any(c.kind == "deleted" for c in report.changes)
        assert hits(first, "gamma") == ["daily/2026-06-01/new.md"]
    finally:
        first.close()


class _Fixed(ScanAhead):
    """A walk whose answer is fixed (it was taken before a file appeared)."""

    def __init__(self, listing: Listing) -> None:
        self._listing, self._pid, self._fd = listing, 0, -1

    def result(self, each: Part | None = None) -> Listing:
        listing = copy.deepcopy(self._listing)
        if each is not None:
            each(listing, 0)
        return listing


def test_scan_calls_when_many_once_past_the_count(tree: Path) -> None:
    calls: list[int] = []
    found = scan(tree, SCOPE, when_many=(2, lambda: calls.append(1)))
    assert calls == [1] and len(found) == 3
    scan(tree, SCOPE, when_many=(len(found), lambda: calls.append(2)))  # in the last folder
    scan(tree, SCOPE, when_many=(len(found) + 1, lambda: calls.append(3)))
    assert calls == [1, 2]  # never reached: never called


def test_walk_leaves_out_exactly_the_ignored_names(make_tree) -> None:
    """The walk leaves out what `is_ignored` refuses, no more: dot names, editor temp file
    names (with suffixes that are temp endings too), the state folder at the root only; a
    folder named like a temp file is walked."""
    names = ["a.md", ".a.md", "#a.md#", "a.md~", "4913", "x.tmp", "y.swp", "#", "b#.md", "~c.md"]
    files: dict[str, str | bytes] = {}
    for folder in ("", "sub/", "metadata/", "sub/metadata/", ".dot/", "sub/#x#/", "old~/"):
        for name in names:
            files[f"{folder}{name}"] = "text\n"
    root = make_tree(files)
    suffixes = (".md", "~", "#", ".tmp", ".swp", "4913")
    scope = Scope(("",), suffixes)
    got = sorted(list_files(root, scope).paths)
    want = sorted(p for p in files if p.endswith(suffixes) and not scope.ignores(p))
    assert got == want
    assert "sub/metadata/a.md" in got and "metadata/a.md" not in got and "sub/a.md~" not in got
    assert "sub/#x#/a.md" in got and "old~/a.md" in got  # folders named like temp files


def test_scan_ahead_sends_its_walk_in_parts_that_make_the_whole(make_tree) -> None:
    """Above a part's size the child sends parts as it walks (without waiting for the parent
    to read): each part at its offset, and together exactly the walk done here."""
    from reme_core.files.scan_ahead import PART_FILES

    files: dict[str, str | bytes] = {
        f"daily/2026-06-{i % 28 + 1:02d}/n{i}.md": f"note {i}\n" for i in range(PART_FILES * 3 + 17)
    }
    root = make_tree(files)
    ahead = ScanAhead(root, SCOPE)
    forked = ahead.forked
    got: dict[int, list[str]] = {}
    try:
        listing = ahead.result(lambda part, offset: got.__setitem__(offset, part.paths))
    finally:
        ahead.close()
    walked = list_files(root, SCOPE)
    assert listing == walked
    joined = [p for offset in sorted(got) for p in got[offset]]
    assert joined == walked.paths
    if forked:
        assert len(got) >= 3 and all(
            offset == sum(len(got[k]) for k in got if k < offset) for offset in got
        )
