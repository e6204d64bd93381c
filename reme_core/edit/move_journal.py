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

import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reme_core.edit import journal_files
from reme_core.edit.journal_files import JOURNAL_DIR, Journal, remove_file, temp_name, write_file
from reme_core.edit.link_rewrite import Rewrite
from reme_core.edit.replace_phase import Entry, Rebase, ReplacePhase
from reme_core.errors import RemeError
from reme_core.files import state_files

if TYPE_CHECKING:
    from reme_core.ports import EditIndex


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


def commit(
    ws: EditIndex,
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
    journal = Journal(ws.state_dir / JOURNAL_DIR, journal_files.new_id())
    entries = [Entry(n, rw, temp_name(rw.path, journal.id, n)) for n, rw in enumerate(rewrites)]
    files = [(e.rw.path, e.temp) for e in entries]
    record = journal_files.record(journal.id, kind, label, info, files, renames)
    try:
        journal.create(record)
    except OSError as exc:
        raise RemeError(
            f"{label}: cannot write its journal in {ws.state_dir} ({exc.strerror}); nothing changed"
        ) from None
    run = ReplacePhase(ws.root, journal, entries, rebase)
    _replace_all(run, label, renames)
    installed = [Installed(e.rw.path, e.base, e.written) for e in entries if e.installed]
    kept = _keep_copies(journal, entries, keep_blobs_at) if keep_blobs_at is not None else None
    outcome = Outcome(installed, sorted(run.rebased), kept)
    if on_done is not None:
        on_done(outcome)
    journal.remove()
    return outcome


def _replace_all(run: ReplacePhase, label: str, renames: list[tuple[str, str]]) -> None:
    """Write every temp file, replace the files, merge late writers, rename; on a failure
    put every file back and raise `RemeError` saying whether that worked."""
    try:
        for e in run.entries:  # every temp file first: a full disk fails before anything changed
            write_file(run.root / e.temp, e.rw.new, e.rw.mode)
        run.journal.mark("commit")
        for e in run.entries:
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


def _keep_copies(journal: Journal, entries: list[Entry], dest: Path) -> Path | None:
    """Move the `before` bytes of every file to `dest`; None when they cannot be kept (the
    operation is done all the same, it just cannot be undone)."""
    try:
        for e in entries:
            remove_file(journal.blob(e.n, late=True))
            if not e.installed:
                continue
            blob = journal.blob(e.n)
            if not state_files.lstat_regular(blob) or state_files.read_bytes(blob) != e.base:
                remove_file(blob)  # a second name of the old file: never write through it
                state_files.create_new(blob, e.base, 0o600)
        state_files.state_folder(dest.parent.parent, dest.parent.name)
        os.rename(journal.blobs, dest)
    except OSError:
        return None
    return dest
