"""The folder cache (`reme_core.files.folder_cache`): a walk that reuses what unchanged folders
held lists exactly what a walk reading every folder lists, sees every change a person or a
program makes, and never names anything outside the workspace, whatever the cache file holds.

Real folders and files in `tmp_path`; folders are dated an hour back where a test needs them
cached (a folder changed within the racy window is never kept), as they are on a disk that
has been quiet a while.
"""

from __future__ import annotations

import os
import struct
import threading
from array import array
from pathlib import Path

import pytest

from reme_core.files import folder_cache
from reme_core.files.folder_cache import CACHE_NAME, FolderCache
from reme_core.files.scan_ahead import ScanAhead
from reme_core.files.scanner import folder_cache as cache_for
from reme_core.files.scanner import list_files
from reme_core.files.scope import Listing, Scope
from tests.helpers import HOUR_AGO, quiet_folders

SCOPE = Scope(("daily", "digest"), (".md",))


def _tree(root: Path, folders: int = 40, per_folder: int = 8) -> Path:
    """A memory-layout workspace of ``folders * per_folder`` notes (nested two deep), every
    note and folder dated an hour back."""
    for f in range(folders):
        layer = "daily" if f % 2 else "digest"
        for n in range(per_folder):
            path = root / layer / f"group-{f % 5}" / f"folder-{f}" / f"note-{n}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"note {f} {n}\n", encoding="utf-8")
            os.utime(path, (HOUR_AGO, HOUR_AGO))
    (root / "metadata").mkdir(exist_ok=True)
    quiet_folders(root)
    return root


def _cached_walk(root: Path, scope: Scope = SCOPE) -> tuple[Listing, FolderCache]:
    """A walk with the cache as the start-up diff makes it: read, walk, save."""
    cache = cache_for(root, scope)
    listing = list_files(root, scope, cache=cache)
    cache.save()
    return listing, cache


def _as_set(listing: Listing) -> set[tuple[str, float, int]]:
    return set(zip(listing.paths, listing.mtimes, listing.sizes, strict=True))


def test_a_walk_from_the_cache_lists_what_reading_every_folder_lists(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws")
    first, cache = _cached_walk(root)
    assert cache.hits == 0 and (root / "metadata" / CACHE_NAME).is_file()
    assert first == list_files(root, SCOPE)
    second, cache = _cached_walk(root)
    folders = {os.path.dirname(p) for p in second.paths}
    assert cache.hits >= len(folders) > 0  # every folder (and the ones above) from the cache
    assert second == list_files(root, SCOPE)  # same files, same stats, same order
    assert len(second.paths) == 320


def test_every_kind_of_change_since_the_cache_is_seen(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws")
    _cached_walk(root)
    _, cache = _cached_walk(root)
    assert cache.hits > 0
    outside = tmp_path / "outside.md"
    outside.write_text("not in the workspace\n", encoding="utf-8")
    # Edited in place: no folder changes; only the file's own stat shows it.
    edited = root / "daily/group-1/folder-1/note-0.md"
    edited.write_text("a longer text than before\n", encoding="utf-8")
    os.utime(edited, (HOUR_AGO + 60, HOUR_AGO + 60))
    (root / "daily/group-3/folder-3/new.md").write_text("new\n", encoding="utf-8")
    (root / "digest/group-0/folder-0/note-1.md").unlink()
    (root / "digest/group-2/folder-2").rename(root / "digest/group-2/renamed")
    (root / "daily/group-1/folder-11/note-2.md").unlink()
    (root / "daily/group-1/folder-11/note-2.md").symlink_to(outside)  # a file made a link out
    (root / "digest/group-4/folder-4/deeper").mkdir()
    (root / "digest/group-4/folder-4/deeper/n.md").write_text("deeper\n", encoding="utf-8")
    listing, _ = _cached_walk(root)
    assert listing == list_files(root, SCOPE)
    paths = set(listing.paths)
    assert "daily/group-3/folder-3/new.md" in paths
    assert "digest/group-0/folder-0/note-1.md" not in paths
    assert "digest/group-2/renamed/note-0.md" in paths
    assert not any(p.startswith("digest/group-2/folder-2/") for p in paths)
    assert "daily/group-1/folder-11/note-2.md" not in paths  # the link leads out: left out
    assert "digest/group-4/folder-4/deeper/n.md" in paths
    at = listing.paths.index("daily/group-1/folder-1/note-0.md")
    assert listing.sizes[at] == len("a longer text than before\n")


def test_a_folder_changed_just_now_is_not_kept_until_it_is_quiet(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws")
    busy = root / "daily/group-1/folder-1"
    (busy / "today.md").write_text("written a moment ago\n", encoding="utf-8")
    _, cache = _cached_walk(root)
    assert "daily/group-1/folder-1" not in cache.kept  # it may change again in the same tick
    assert "daily/group-3/folder-3" in cache.kept
    os.utime(busy, (HOUR_AGO, HOUR_AGO))
    _, cache = _cached_walk(root)
    assert "daily/group-1/folder-1" in cache.kept


def test_a_folder_holding_a_symlink_is_always_read(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws")
    target = root / "digest/group-0/folder-0"
    (root / "daily/group-1/folder-1/link").symlink_to(target, target_is_directory=True)
    quiet_folders(root)
    _cached_walk(root)
    listing, cache = _cached_walk(root)
    assert "daily/group-1/folder-1" not in cache.kept  # where a link leads can change unseen
    assert listing == list_files(root, SCOPE)


def test_the_scan_ahead_writes_and_uses_the_cache(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws")
    cache_file = root / "metadata" / CACHE_NAME
    for _ in range(2):
        ahead = ScanAhead(root, SCOPE)
        try:
            listing = ahead.result()
        finally:
            ahead.close()
        assert listing == list_files(root, SCOPE)
        assert cache_file.is_file()
    written = cache_file.stat().st_mtime_ns
    ahead = ScanAhead(root, SCOPE)
    try:
        ahead.result()
    finally:
        ahead.close()
    assert cache_file.stat().st_mtime_ns == written  # nothing changed: not written again


def test_another_scope_does_not_use_the_cache(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws")
    _cached_walk(root)
    other = Scope(("daily", "digest"), (".md", ".txt"))
    (root / "daily/group-1/folder-1/plain.txt").write_text("text\n", encoding="utf-8")
    os.utime(root / "daily/group-1/folder-1", (HOUR_AGO, HOUR_AGO))
    listing, cache = _cached_walk(root, other)
    assert cache.hits == 0
    assert "daily/group-1/folder-1/plain.txt" in listing.paths


# -- a cache a stranger's clone carries ---------------------------------------------------------
def _forged(root: Path, records: dict[str, tuple[list[str], list[str]]], scope: Scope) -> bytes:
    """A well-formed cache whose records carry the real folders' identities (as if the
    attacker could know them) and the names given."""
    fingerprint = cache_for(root, scope).fingerprint
    ids, numbers, names = array("Q"), array("q"), []
    for rel, (files, subs) in records.items():
        st = os.stat(root / rel)
        ids += array("Q", (st.st_dev, st.st_ino))
        numbers += array("q", (st.st_mtime_ns, st.st_ctime_ns, len(files), len(subs)))
        names += files + subs
    rels = "\0".join([fingerprint, *records]).encode()
    joined = "\0".join(names).encode()
    head = struct.pack("<3q", len(records), len(rels), len(joined))
    parts = [b"reme-folders 3\n", head, ids.tobytes(), numbers.tobytes(), rels, b"\0", joined]
    return b"".join(parts)


def test_names_in_a_forged_cache_never_reach_outside(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws", folders=4, per_folder=2)
    secret = tmp_path / "secret.md"
    secret.write_text("outside the workspace\n", encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere/x.md").write_text("outside too\n", encoding="utf-8")
    want = list_files(root, SCOPE)
    folder = "daily/group-1/folder-1"
    forged = {
        "daily": (["../../secret.md"], ["group-1", "..", "."]),
        folder: (["note-0.md", "../../../../secret.md", "/etc/passwd"], ["../../../elsewhere"]),
    }
    (root / "metadata" / CACHE_NAME).write_bytes(_forged(root, forged, SCOPE))
    cache = cache_for(root, SCOPE)
    assert cache.loaded.index  # the forged file parses: only the walk's rules stop it
    listing = list_files(root, SCOPE, cache=cache)
    assert cache.hits == 2
    assert not any(".." in p or p.startswith("/") or "secret" in p for p in listing.paths)
    assert set(listing.paths) <= set(want.paths)


@pytest.mark.parametrize("kind", ["symlink", "fifo", "garbage", "cut", "huge", "folder"])
def test_an_odd_cache_file_is_not_read(tmp_path: Path, kind: str) -> None:
    root = _tree(tmp_path / "ws", folders=6, per_folder=3)
    _cached_walk(root)
    path = root / "metadata" / CACHE_NAME
    good = path.read_bytes()
    path.unlink()
    if kind == "symlink":  # a real cache elsewhere, linked in: never followed
        (tmp_path / "planted").write_bytes(good)
        path.symlink_to(tmp_path / "planted")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "garbage":
        path.write_bytes(os.urandom(4096))
    elif kind == "cut":
        path.write_bytes(good[: len(good) // 2])
    elif kind == "huge":
        with open(path, "wb") as fh:
            fh.write(good[:64])
            fh.truncate((128 << 20) + 1)
    else:
        path.mkdir()
    done = threading.Event()
    result: list[tuple[Listing, FolderCache]] = []

    def walk() -> None:
        result.append(_cached_walk(root))
        done.set()

    threading.Thread(target=walk, daemon=True).start()
    assert done.wait(30), "the walk hung on the cache file"
    listing, cache = result[0]
    assert cache.hits == 0 and listing == list_files(root, SCOPE)
    if kind == "symlink":  # the link itself is replaced by the new cache, never written through
        assert (tmp_path / "planted").read_bytes() == good
        assert not path.is_symlink()


def test_a_symlinked_state_folder_is_never_written_through(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws", folders=4, per_folder=2)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "metadata").rmdir()
    (root / "metadata").symlink_to(elsewhere, target_is_directory=True)
    listing, _ = _cached_walk(root)
    assert listing == list_files(root, SCOPE)
    assert list(elsewhere.iterdir()) == []


def test_a_killed_writers_temporary_file_is_removed(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws", folders=4, per_folder=2)
    dead = 2**22 + 12345  # above pid_max's default: no such process
    while True:
        try:
            os.kill(dead, 0)
        except ProcessLookupError:
            break
        except OSError:
            pass
        dead += 1
    stale = root / "metadata" / f"{CACHE_NAME}.{dead}.tmp"
    stale.write_bytes(b"half a cache")
    live = root / "metadata" / f"{CACHE_NAME}.{os.getppid()}.tmp"  # a live writer's: kept
    live.write_bytes(b"being written")
    _cached_walk(root)
    assert not stale.exists() and live.exists()
    assert (root / "metadata" / CACHE_NAME).is_file()


def test_the_cache_format_round_trips(tmp_path: Path) -> None:
    root = _tree(tmp_path / "ws", folders=10, per_folder=4)
    _, first = _cached_walk(root)
    loaded = folder_cache.FolderCache.load(root, "metadata", first.fingerprint)
    assert set(loaded.loaded.index) == set(first.kept)
    for rel, (identity, (files, subs)) in first.kept.items():
        i = loaded.loaded.index[rel]
        assert loaded.loaded.ids[i] == identity
        at = loaded.loaded.first[i]
        mid = at + loaded.loaded.files[i]
        assert loaded.loaded.names[at:mid] == list(files)
        assert loaded.loaded.names[mid : mid + loaded.loaded.subs[i]] == list(subs)


def test_the_start_up_diff_in_process_sees_changes_in_cached_folders(tmp_path: Path) -> None:
    """The browser's start-up diff walks in its own process (`Workspace.diff`), through the
    same cache: an edit in place and a new note in folders the cache holds are both found."""
    from reme_core import Workspace

    root = _tree(tmp_path / "ws", folders=40, per_folder=8)
    Workspace.open(root).close()
    quiet_folders(root)
    ws = Workspace.open(root, sync=False)
    try:
        assert not ws.diff()  # this walk writes the cache
        _, cache = _cached_walk(root)
        assert cache.hits > 0  # the folders are in it
        edited = root / "digest/group-0/folder-0/note-3.md"
        edited.write_text("edited in place, a different size\n", encoding="utf-8")
        (root / "daily/group-1/folder-1/new.md").write_text("new\n", encoding="utf-8")
        changes = ws.diff()
        assert changes.modified == ["digest/group-0/folder-0/note-3.md"]
        assert changes.added == ["daily/group-1/folder-1/new.md"]
    finally:
        ws.close()
