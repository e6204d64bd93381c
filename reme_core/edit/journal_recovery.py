"""At `Workspace.open`: finish or roll back the journaled operations (`move_journal`) whose
process died, and remove every temp file they named.

Killed in its replace phase (`<id>.commit`), an operation is finished: each file whose temp
file still exists was not replaced yet and is planned again from its bytes now (so edits made
since the crash are kept), then the renames are done. Killed earlier, nothing had changed and
the temp files are removed. Killed while rolling back (`<id>.abort`), the rollback is finished
from the journal's copies. A journal whose process still holds its lock is left alone.
Journals are derived state, never trusted: one naming paths outside the workspace is dropped,
one whose notes, temp files or copies are not regular files (a symlink shipped where a temp
file belongs would be written through) is set aside untouched, and the user told so. What was
done comes back as data (`Recovered`, `JournalRefused`); `reme_tui.text.recovery` says it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from reme_core.edit.folders import make_parents
from reme_core.edit.journal_files import (
    JOURNAL_DIR,
    REFUSED_SUFFIX,
    Journal,
    back_name,
    remove_file,
    temp_name,
    write_file,
)
from reme_core.edit.recovery_notes import JournalRefused, Recovered, RecoveryNote, RecoveryProblem
from reme_core.edit.replace_phase import Rebase
from reme_core.edit.trash import drop_second_name, rename_no_replace
from reme_core.errors import RemeError
from reme_core.files import state_files
from reme_core.files.paths import normalize_relpath, resolve_inside
from reme_core.files.state_files import NotRegular, state_folder

if TYPE_CHECKING:
    from reme_core.ports import EditIndex

# A journal's `kind` and `info` -> how to plan one of its files again (None: cannot).
RebaseFactory = Callable[[Mapping[str, Any]], Rebase | None]

_JOURNAL_NAME = re.compile(r"[0-9a-f]{12}\.json")
_JOURNAL_PART = re.compile(r"[0-9a-f]{12}(\.commit|\.abort)?")


def recover(ws: EditIndex, rebasers: Mapping[str, RebaseFactory]) -> list[RecoveryNote]:
    """Finish or roll back every operation whose process died; returns what was done, and
    each journal refused.

    A journal entry that is not a regular file (a symlink, a FIFO) is removed, and a journal
    whose operation would touch an entry it never writes is set aside: one note each.
    """
    folder = ws.state_dir / JOURNAL_DIR
    try:
        state_folder(ws.state_dir, JOURNAL_DIR, create=False)
        listing = os.listdir(folder)
    except OSError:
        return []
    for name in listing:
        if name.startswith(".") and name.endswith(".json.tmp"):  # killed while creating
            try:
                fh = _claim(folder / name)
            except NotRegular:
                fh = None
                remove_file(folder / name)
            if fh is not None:
                remove_file(folder / name)
                fh.close()
    ids = {p[:12] for p in listing if _JOURNAL_PART.fullmatch(p)}
    for op_id in sorted(ids - {p[:12] for p in listing if p.endswith(".json")}):
        Journal(folder, op_id).remove_orphans()  # killed while removing its journal
    done: list[RecoveryNote] = []
    for name in sorted(p for p in listing if _JOURNAL_NAME.fullmatch(p)):
        journal = Journal(folder, name[: -len(".json")])
        shown = f"{JOURNAL_DIR}/{name}"
        try:
            fh = _claim(journal.path)
        except NotRegular as exc:
            remove_file(journal.path)
            journal.remove_orphans()
            done.append(JournalRefused("not_regular", shown, str(exc.strerror)))
            continue
        if fh is None:
            continue
        with fh:
            try:
                record = json.loads(fh.read())
                files, renames = _checked(ws.root, journal.id, record)
            except (RemeError, KeyError, TypeError, ValueError):
                journal.remove()
                done.append(JournalRefused("invalid", shown))
                continue
            foreign = _foreign(ws.root, journal, files)
            if foreign is not None:
                entry, what = foreign
                done.append(JournalRefused("foreign", shown, what, entry, _set_aside(journal)))
                continue
            done.append(_recover_one(ws.root, journal, record, files, renames, rebasers))
    return done


def _claim(path: Path) -> IO[bytes] | None:
    """The journal file opened and locked by this process; None when it is gone or its owner
    is alive (holds the lock). `NotRegular` for a symlink, FIFO or device in its place."""
    try:
        fh = os.fdopen(state_files.open_fd(path), "rb")
    except NotRegular:
        raise
    except OSError:
        return None
    try:
        state_files.flock_exclusive(fh.fileno(), wait=False)
    except OSError:
        fh.close()
        return None
    return fh


def _foreign(root: Path, journal: Journal, files: list[tuple[str, str]]) -> tuple[str, str] | None:
    """What recovery would read or replace but never writes itself, and what it is: a note,
    temp file or copy that is not a regular file (a symlink would be written through or put
    in a note's place). None when every entry is as an operation leaves it."""
    try:
        state_files.check_folder(journal.blobs)
        for n, (rel, temp) in enumerate(files):
            for path in (root / temp, root / back_name(temp), root / rel, journal.blob(n)):
                state_files.lstat_regular(path)
    except NotRegular as exc:
        where = Path(exc.filename)
        shown = where.relative_to(root) if where.is_relative_to(root) else where
        return str(shown), str(exc.strerror).replace(", not followed", "")
    return None


def _set_aside(journal: Journal) -> str:
    """Keep a refused journal out of every later recovery; where it was set aside."""
    aside = journal.folder / f"{journal.id}{REFUSED_SUFFIX}"
    try:
        os.replace(journal.path, aside)
    except OSError:
        remove_file(journal.path)
    journal.remove_orphans()
    return f"{JOURNAL_DIR}/{aside.name}"


def _checked(
    root: Path, op_id: str, record: Any
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The journal's files (path, temp) and renames, each inside the workspace."""
    if not isinstance(record, dict) or record.get("version") != 1:
        raise ValueError("unknown journal")
    if not isinstance(record.get("info", {}), dict) or not isinstance(record.get("label"), str):
        raise ValueError("unknown journal")
    files = []
    for n, f in enumerate(record["files"]):
        rel = normalize_relpath(f["path"])
        resolve_inside(root, rel)
        if f["temp"] != temp_name(rel, op_id, n):
            raise ValueError("unexpected temp name")
        files.append((rel, f["temp"]))
    renames = []
    for a, b in record["renames"]:
        pair = (normalize_relpath(a), normalize_relpath(b))
        for rel in pair:
            resolve_inside(root, rel)
        renames.append(pair)
    return files, renames


def _recover_one(
    root: Path,
    journal: Journal,
    record: dict[str, Any],
    files: list[tuple[str, str]],
    renames: list[tuple[str, str]],
    rebasers: Mapping[str, RebaseFactory],
) -> Recovered:
    committed = os.path.lexists(journal.marker("commit"))
    aborting = os.path.lexists(journal.marker("abort"))
    info = record.get("info", {})
    done = Recovered(record.get("kind", ""), record["label"], committed and not aborting, info)
    if done.finished:
        factory = rebasers.get(done.kind)
        _finish(root, files, renames, factory(info) if factory is not None else None, done)
    elif committed:
        _roll_back(root, journal, files, renames, done)
    for _, temp in files:
        remove_file(root / temp)
        remove_file(root / back_name(temp))
    journal.remove()
    return done


def _finish(
    root: Path,
    files: list[tuple[str, str]],
    renames: list[tuple[str, str]],
    rebase: Rebase | None,
    done: Recovered,
) -> None:
    """Replace every file not replaced yet (its temp file still there), then rename."""
    for rel, temp in files:
        if not os.path.lexists(root / temp):
            continue  # replaced before the crash
        try:
            if rebase is None:
                raise RemeError("the operation cannot be planned again")
            full = root / rel
            write_file(root / temp, rebase(rel, full.read_bytes()), full.stat().st_mode & 0o7777)
            os.replace(root / temp, full)
            done.changed.append(rel)
        except (OSError, RemeError) as exc:
            reason = str(exc.strerror) if isinstance(exc, OSError) else str(exc)
            done.problems.append(RecoveryProblem("left", rel, reason))
    for a, b in renames:
        drop_second_name(root / a, root / b)  # killed between the link and the unlink
        if os.path.lexists(root / a) and not os.path.lexists(root / b):
            try:
                make_parents(root, b)
                rename_no_replace(root / a, root / b)
                done.changed.extend((a, b))
            except OSError as exc:
                done.problems.append(RecoveryProblem("not_moved", a, str(exc.strerror), b))


def _roll_back(
    root: Path,
    journal: Journal,
    files: list[tuple[str, str]],
    renames: list[tuple[str, str]],
    done: Recovered,
) -> None:
    """Finish a rollback a crash interrupted: renames undone, old bytes put back."""
    for a, b in reversed(renames):
        drop_second_name(root / a, root / b)
        if os.path.lexists(root / b) and not os.path.lexists(root / a):
            with contextlib.suppress(OSError):
                rename_no_replace(root / b, root / a)
    for n, (rel, temp) in enumerate(files):
        blob = journal.blob(n)
        if os.path.lexists(root / temp) or not os.path.lexists(blob):
            continue  # never replaced
        back = root / back_name(temp)
        try:
            old = state_files.read_bytes(blob)
            if (root / rel).read_bytes() != old:
                write_file(back, old, (root / rel).stat().st_mode & 0o7777)
                os.replace(back, root / rel)
                done.changed.append(rel)
        except OSError as exc:
            done.problems.append(RecoveryProblem("not_put_back", rel, str(exc.strerror)))
