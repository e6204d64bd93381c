"""The replace phase of a journaled operation (`move_journal.commit`): each file is read right
before it is replaced, bytes added since it was planned are kept, writers that opened the old
file a moment before are merged after a grace, and a failure puts every file back.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from reme_core.edit.folders import make_parents, remove_dirs
from reme_core.edit.journal_files import Journal, back_name, remove_file, write_file
from reme_core.edit.link_rewrite import Rewrite
from reme_core.edit.trash import rename_no_replace
from reme_core.errors import RemeError
from reme_core.files import state_files

# How long a writer that opened a file just before it was replaced has to finish its write.
LATE_WRITER_GRACE = 0.1
MAX_MERGES = 16

# (path, its bytes now) -> the bytes it should have; raises RemeError when it cannot say.
Rebase = Callable[[str, bytes], bytes]


@dataclass(slots=True)
class Entry:
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


class ReplacePhase:
    """The writing part of `commit`, with what a rollback needs to know."""

    def __init__(self, root: Path, journal: Journal, entries: list[Entry], rebase: Rebase):
        self.root, self.journal, self.entries, self.rebase = root, journal, entries, rebase
        self.pending: list[Entry] = []
        self.renamed: list[tuple[str, str, list[Path]]] = []
        self.rebased: set[str] = set()

    def install(
        self, e: Entry, expected: bytes, new: bytes, base: bytes, staged: bool = False
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
            state_files.create_new(watch, cur, 0o600)
            return False
        if os.stat(watch).st_ino != os.fstat(handle.fileno()).st_ino:
            remove_file(watch)
            return None
        return True

    def _follow(
        self, e: Entry, expected: bytes, new: bytes, base: bytes, cur: bytes
    ) -> tuple[bytes, bytes]:
        """`new` and `base` for a file that holds `cur` where `expected` was planned for."""
        if cur.startswith(expected):  # appended to, the common case (logs, agents' notes)
            return self._extend(e, new, base, cur[len(expected) :])
        return self._replanned(e, cur)

    def _replanned(self, e: Entry, cur: bytes) -> tuple[bytes, bytes]:
        """Planned again from bytes changed in place (not appended to)."""
        self.rebased.add(e.rw.path)
        try:
            return self.rebase(e.rw.path, cur), cur
        except RemeError:
            if not e.installed:
                raise
            return cur, cur  # someone saved over what we wrote: theirs stays as it is

    def _extend(self, e: Entry, new: bytes, base: bytes, tail: bytes) -> tuple[bytes, bytes]:
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

    def _verify(self, e: Entry) -> None:
        if e.watch is None:
            return
        late = state_files.read_bytes(e.watch)
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
                    late = state_files.read_bytes(e.watch)
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
