"""All-or-nothing rewrites of many files plus renames, across crashes and concurrent edits.

A move rewrites every file that links to the moved note, then renames it. Killed halfway,
that left some links rewritten and others not, plus temp files in the user's folders; and it
wrote back the bytes it had read while planning, losing whatever another process appended
meanwhile. Here:

- A journal in the workspace's derived-state folder (`ws.state_dir/journal/<id>.json`) names
  every temp file before one exists. `<id>.commit` marks the start of the replace phase,
  `<id>.abort` a rollback. The process holds an `flock` on the journal while it runs, so
  another process's recovery (`journal_recovery`) leaves a live operation alone.
- Each file is read right before it is replaced; bytes added since it was planned are kept
  (appended bytes carried over, anything else planned again by the caller's `Rebase`).
- Just before the replace, the old file gets a second name in the journal (`<id>/<n>`, a hard
  link). A writer that had opened it a moment before writes into that old copy; after a short
  grace those bytes are merged into the new file, so no write is lost. (Without hard links
  the copy is plain bytes, and only that check is lost.)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from reme_core.edit.folders import make_parents, remove_dirs
from reme_core.edit.link_rewrite import Rewrite
from reme_core.edit.trash import rename_no_replace
from reme_core.errors import RemeError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, a journal is always stale
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from reme_core.edit.target import EditTarget

JOURNAL_DIR = "journal"
TEMP_SUFFIX = ".reme-tmp"
# How long a writer that opened a file just before it was replaced has to finish its write.
LATE_WRITER_GRACE = 0.1
MAX_MERGES = 16

# (path, its bytes now) -> the bytes it should have; raises RemeError when it cannot say.
Rebase = Callable[[str, bytes], bytes]


def sha256(data: bytes) -> str:
    """Hex digest, the form journals and undo records keep."""
    return hashlib.sha256(data).hexdigest()


@dataclass(slots=True)
class Installed:
    """What a file ended as: `before` its bytes as if the operation had never run (appends made
    meanwhile included), `after` the bytes written."""

    path: str
    before: bytes
    after: bytes


@dataclass(slots=True)
class Outcome:
    """A finished operation: its files, the ones planned again, and where `before` bytes are."""

    installed: list[Installed]
    rebased: list[str]
    blob_dir: Path | None  # the `before` bytes by index (`keep_blobs_at`), when asked and kept


@dataclass(slots=True)
class _Entry:
    """One file of the operation while it runs."""

    n: int
    rw: Rewrite
    temp: str
    read: bytes = b""  # the bytes replaced by the last install
    written: bytes = b""  # the bytes that install wrote
    base: bytes = b""  # `Installed.before`
    watch: Path | None = None  # the replaced file's second name, for the late-writer check
    installed: bool = False
    merges: int = 0


def temp_name(rel: str, op_id: str, n: int) -> str:
    """The temp file beside `rel`: a dot name (ignored by the index) that names its journal."""
    folder, _, name = rel.rpartition("/")
    temp = f".{name[:80]}.{op_id}.{n}{TEMP_SUFFIX}"
    return f"{folder}/{temp}" if folder else temp


def back_name(temp: str) -> str:
    """The temp file a rollback writes through (named after the operation's own temp)."""
    return temp[: -len(TEMP_SUFFIX)] + "b" + TEMP_SUFFIX


class Journal:
    """The files of one journaled operation under `ws.state_dir/journal/`."""

    def __init__(self, folder: Path, op_id: str) -> None:
        self.folder = folder
        self.id = op_id
        self.path = folder / f"{op_id}.json"
        self.blobs = folder / op_id
        self.lock: IO[bytes] | None = None

    def marker(self, name: str) -> Path:
        return self.folder / f"{self.id}.{name}"

    def blob(self, n: int, late: bool = False) -> Path:
        """The old bytes of file n (`late`: of its later replaces, for the check only)."""
        return self.blobs / (f"{n}.late" if late else str(n))

    def create(self, record: dict[str, Any]) -> None:
        """Write the journal atomically, locked before it gets its name; then its copy folder."""
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{self.id}.json.tmp"
        fh = open(tmp, "wb")  # noqa: SIM115 - stays open: its lock marks the operation live
        try:
            if fcntl is not None:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            fh.write(json.dumps(record, ensure_ascii=False).encode())
            fh.flush()
            os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            self.lock = fh
            fsync_dir(self.folder)
            self.blobs.mkdir()
        except BaseException:
            self.remove()
            fh.close()
            remove_file(tmp)
            raise

    def mark(self, name: str) -> None:
        """Create a marker durably (the phase recovery goes by)."""
        with open(self.marker(name), "wb") as fh:
            os.fsync(fh.fileno())
        fsync_dir(self.folder)

    def remove(self) -> None:
        """Delete the journal: the journal file first, so from then on the operation is over
        for recovery; markers and copies left by a kill right after are orphans it removes."""
        remove_file(self.path)
        self.remove_orphans()
        if self.lock is not None:
            self.lock.close()
            self.lock = None

    def remove_orphans(self) -> None:
        """The markers and copies of an operation whose journal file is gone."""
        for name in ("commit", "abort"):
            remove_file(self.marker(name))
        shutil.rmtree(self.blobs, ignore_errors=True)


def commit(
    ws: EditTarget,
    kind: str,
    label: str,
    info: Mapping[str, Any],
    rewrites: list[Rewrite],
    renames: list[tuple[str, str]],
    rebase: Rebase,
    keep_blobs_at: Path | None = None,
    on_done: Callable[[Outcome], None] | None = None,
) -> Outcome:
    """Rewrite every file, then rename; all or nothing, never losing a concurrent edit.

    `rewrites` name files by their path before the renames; `kind` and `info` tell recovery
    how to plan a file again (`journal_recovery.recover`). Raises `RemeError` after putting
    every file back. With `keep_blobs_at` (a new folder's path) the `before` bytes of every
    file are left there, named by the file's index (an undo record keeps them). `on_done`
    runs while the journal still stands, so a kill cannot leave it done but unannounced.
    """
    journal = Journal(ws.state_dir / JOURNAL_DIR, uuid.uuid4().hex[:12])
    entries = [_Entry(n, rw, temp_name(rw.path, journal.id, n)) for n, rw in enumerate(rewrites)]
    record = {
        "version": 1,
        "id": journal.id,
        "pid": os.getpid(),
        "kind": kind,
        "label": label,
        "info": dict(info),
        "files": [{"path": e.rw.path, "temp": e.temp} for e in entries],
        "renames": [list(r) for r in renames],
    }
    try:
        journal.create(record)
    except OSError as exc:
        raise RemeError(
            f"{label}: cannot write its journal in {ws.state_dir} ({exc.strerror}); nothing changed"
        ) from None
    run = _Run(ws.root, journal, entries, rebase)
    try:
        for e in entries:  # every temp file first: a full disk fails before anything changed
            write_file(ws.root / e.temp, e.rw.new, e.rw.mode)
        journal.mark("commit")
        for e in entries:
            run.install(e, e.rw.old, e.rw.new, e.rw.old, staged=True)
        run.verify_all()
        for a, b in renames:
            run.rename(a, b)
    except (OSError, RemeError) as exc:
        failed = run.rollback()
        where = exc.filename if isinstance(exc, OSError) and exc.filename else ""
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        message = f"{label} failed{f' at {where}' if where else ''} ({reason}); "
        if failed:
            raise RemeError(message + "could not restore: " + ", ".join(failed)) from None
        raise RemeError(message + "every file is as it was") from None
    installed = [Installed(e.rw.path, e.base, e.written) for e in entries if e.installed]
    kept = _keep_copies(journal, entries, keep_blobs_at) if keep_blobs_at is not None else None
    outcome = Outcome(installed, sorted(run.rebased), kept)
    if on_done is not None:
        on_done(outcome)
    journal.remove()
    return outcome


def _keep_copies(journal: Journal, entries: list[_Entry], dest: Path) -> Path | None:
    """Move the `before` bytes of every file to `dest`; None when they cannot be kept (the
    operation is done all the same, it just cannot be undone)."""
    try:
        for e in entries:
            remove_file(journal.blob(e.n, late=True))
            if not e.installed:
                continue
            blob = journal.blob(e.n)
            if not blob.exists() or blob.read_bytes() != e.base:
                remove_file(blob)  # a second name of the old file: never write through it
                blob.write_bytes(e.base)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.rename(journal.blobs, dest)
    except OSError:
        return None
    return dest


class _Run:
    """The writing part of `commit`, with what a rollback needs to know."""

    def __init__(self, root: Path, journal: Journal, entries: list[_Entry], rebase: Rebase):
        self.root, self.journal, self.entries, self.rebase = root, journal, entries, rebase
        self.pending: list[_Entry] = []
        self.renamed: list[tuple[str, str, list[Path]]] = []
        self.rebased: set[str] = set()

    def install(
        self, e: _Entry, expected: bytes, new: bytes, base: bytes, staged: bool = False
    ) -> None:
        """Replace the file with `new`, planned for `expected` (`base`: `new`'s `before`).

        The file is read right before; when it holds other bytes, `new` follows them (bytes
        merely appended are appended to the temp file too, so the window between the last
        read and the replace stays one read long). `staged`: the temp file holds `new`.
        """
        full, temp = self.root / e.rw.path, self.root / e.temp
        for _ in range(MAX_MERGES):
            with open(full, "rb") as handle:
                cur = handle.read()
                if cur != expected:
                    tail = cur[len(expected) :] if cur.startswith(expected) else None
                    if tail is not None and staged and _plain(tail):
                        with open(temp, "ab") as fh:
                            fh.write(tail)
                    else:
                        staged = False
                    new, base = self._follow(e, expected, new, base, cur)
                    expected = cur
                if new == cur:  # nothing (left) to change in it
                    e.read, e.written, e.base, e.installed = cur, cur, base, True
                    remove_file(temp)
                    return
                if not staged:
                    write_file(temp, new, e.rw.mode)
                    staged = True
                    continue  # that took a while: read again
                watch = self.journal.blob(e.n, late=e.installed)
                linked = self._keep_old(full, handle, watch, cur)
                if linked is None:
                    continue  # replaced under us between the read and the link: read again
                os.replace(temp, full)
            e.read, e.written, e.base, e.installed = cur, new, base, True
            e.watch = watch if linked else None
            self.pending.append(e)
            return
        raise RemeError(f"{e.rw.path} kept changing while it was being rewritten")

    def _keep_old(self, full: Path, handle: IO[bytes], watch: Path, cur: bytes) -> bool | None:
        """Give the file about to be replaced a second name in the journal: True when linked,
        False for a plain copy of `cur` (no hard links here: no late-writer check), None when
        `full` is no longer the file that was read."""
        remove_file(watch)
        try:
            os.link(full, watch)
        except OSError:
            watch.write_bytes(cur)
            return False
        if os.stat(watch).st_ino != os.fstat(handle.fileno()).st_ino:
            remove_file(watch)
            return None
        return True

    def _follow(
        self, e: _Entry, expected: bytes, new: bytes, base: bytes, cur: bytes
    ) -> tuple[bytes, bytes]:
        """`new` and `base` for a file that holds `cur` where `expected` was planned for."""
        if cur.startswith(expected):  # appended to, the common case (logs, agents' notes)
            return self._extend(e, new, base, cur[len(expected) :])
        return self._replanned(e, cur)

    def _replanned(self, e: _Entry, cur: bytes) -> tuple[bytes, bytes]:
        """Planned again from bytes changed in place (not appended to)."""
        self.rebased.add(e.rw.path)
        try:
            return self.rebase(e.rw.path, cur), cur
        except RemeError:
            if not e.installed:
                raise
            return cur, cur  # someone saved over what we wrote: theirs stays as it is

    def _extend(self, e: _Entry, new: bytes, base: bytes, tail: bytes) -> tuple[bytes, bytes]:
        """Bytes appended: carried over as they are, unless they could hold or end a link."""
        if _plain(tail):
            return new + tail, base + tail
        self.rebased.add(e.rw.path)
        return self.rebase(e.rw.path, base + tail), base + tail

    def verify_all(self) -> None:
        """After a grace for writers that opened a file just before it was replaced, merge
        what they wrote into the old copy; repeat for the files merged."""
        while self.pending:
            time.sleep(LATE_WRITER_GRACE)
            batch, self.pending = self.pending, []
            for e in batch:
                self._verify(e)

    def _verify(self, e: _Entry) -> None:
        if e.watch is None:
            return
        late = e.watch.read_bytes()
        if late == e.read:
            return
        e.merges += 1
        if e.merges > MAX_MERGES:
            raise RemeError(f"{e.rw.path} kept changing while it was being rewritten")
        now = (self.root / e.rw.path).read_bytes()
        if not now.startswith(e.written):
            new, base = self._replanned(e, now)  # saved over ours since: theirs, planned again
        elif late.startswith(e.read):  # the late bytes came before those appended since
            new, base = self._extend(
                e, e.written, e.base, late[len(e.read) :] + now[len(e.written) :]
            )
        else:
            pre = late + now[len(e.written) :]
            self.rebased.add(e.rw.path)
            new, base = self.rebase(e.rw.path, pre), pre
        self.install(e, now, new, base)

    def rename(self, a: str, b: str) -> None:
        made = make_parents(self.root, b)
        try:
            rename_no_replace(self.root / a, self.root / b)
        except OSError:
            remove_dirs(made)
            raise
        self.renamed.append((a, b, made))

    def rollback(self) -> list[str]:
        """Put every file back (keeping bytes added since); returns those that could not be.

        Temp files go last: until then one still marks a file never replaced, for recovery.
        """
        with contextlib.suppress(OSError):
            self.journal.mark("abort")
        failed: list[str] = []
        for a, b, made in reversed(self.renamed):
            try:
                rename_no_replace(self.root / b, self.root / a)
            except OSError:
                failed.append(b)
            remove_dirs(made)
        for e in self.entries:
            if not e.installed or e.written == e.read:
                continue
            base = e.base
            with contextlib.suppress(OSError):
                if e.watch is not None:
                    late = e.watch.read_bytes()
                    base = e.base + late[len(e.read) :] if late.startswith(e.read) else late
            full, back = self.root / e.rw.path, self.root / back_name(e.temp)
            try:
                cur = full.read_bytes()
                if not cur.startswith(e.written):
                    raise RemeError("changed since")
                write_file(back, base + cur[len(e.written) :], e.rw.mode)
                os.replace(back, full)
            except (OSError, RemeError):
                remove_file(back)
                failed.append(e.rw.path)
        for name in ("commit", "abort"):  # from here on, a crash needs only the temps removed
            remove_file(self.journal.marker(name))
        for e in self.entries:
            remove_file(self.root / e.temp)
        self.journal.remove()
        return failed


def _plain(tail: bytes) -> bool:
    """Whether appended bytes can be carried over as they are: no link begins or ends in them."""
    return b"[[" not in tail and b"]]" not in tail


# -- small file helpers -----------------------------------------------------------------------
def write_file(path: Path, data: bytes, mode: int) -> None:
    """Write a whole file with the given permission bits (a temp file)."""
    with open(path, "wb") as fh:
        fh.write(data)
    os.chmod(path, mode)


def remove_file(path: Path) -> None:
    """Unlink, where it still exists."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def fsync_dir(folder: Path) -> None:
    """Make a name change in `folder` durable (where the platform allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
