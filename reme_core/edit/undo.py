"""Undo of the deletes and moves made through reme (the CLI, the browser or the library),
newest first: each `undo` reverts one more, as deep as the history holds (`MAX_STEPS`).

The history lives in the workspace's derived-state folder (`ws.state_dir/undo/`), so one
process undoes what another did: `last.json` lists what happened, oldest first; for a move,
a folder beside it keeps the linking files' bytes from before (`move_journal` hands them
over). An undo refuses, changing nothing, when the files changed since in a way it would
lose; bytes only appended to a linking file since the move are kept. A permanent delete, or
an operation finished by crash recovery, ends the history: nothing before it is undone.
Folders the operation made (`.trash/`, a move's new `odd/sub/`) are removed when emptied.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reme_core.edit import move_journal
from reme_core.edit.journal_files import UNDO_DIR, UNDO_LOCK, UNDO_RECORD, remove_file
from reme_core.edit.link_rewrite import Rewrite
from reme_core.edit.move_journal import Outcome, sha256
from reme_core.edit.replace_phase import Rebase
from reme_core.edit.target import in_scope
from reme_core.edit.trash import TRASH_DIR, drop_second_name, restore_from_trash
from reme_core.errors import RemeError
from reme_core.files import state_files
from reme_core.files.paths import normalize_relpath, resolve_inside
from reme_core.indexing.indexer import Changes

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: one process at a time is assumed
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from reme_core.edit.target import EditTarget

_RECORD = UNDO_RECORD
MAX_STEPS = 64  # the deepest history kept (a move's copies are kept as long as its step)


class UndoRefused(RemeError):
    """There is nothing to undo, or undoing would lose a change made since."""


@dataclass(slots=True)
class UndoReport:
    """What an undo put back: `path` is where the file is again, `source` where it was."""

    op: str  # "delete" or "move"
    path: str
    source: str
    files: list[str] = field(default_factory=list)  # linking files whose links were restored

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (`reme-tui undo --json`)."""
        return {"op": self.op, "path": self.path, "source": self.source, "files": self.files}

    def lines(self) -> list[str]:
        """A human-readable account, one change per line."""
        if self.op == "delete":
            return [f"restored {self.path} from {self.source}"]
        n = len(self.files)
        out = [f"moved {self.source} back to {self.path}"]
        out.append(f"restored the links in {n} file{'s' * (n != 1)}")
        out.extend(f"  {path}" for path in self.files)
        return out


# -- recording ------------------------------------------------------------------------------------
def record_delete(
    ws: EditTarget, path: str, slot: str, digest: str, made: list[str] | None = None
) -> None:
    """After a delete into the trash: `undo` moves `slot` back to `path` (and removes the
    trash folders in `made`, innermost first, when emptied)."""
    record = {"op": "delete", "path": path, "trash": slot, "sha256": digest}
    _write_record(ws, {**record, "made": made or []})


def record_recovered_delete(ws: EditTarget, info: Mapping[str, Any]) -> None:
    """A delete finished by crash recovery: recorded as if it had run to its end (unless
    it was), so `undo` brings the note back from any kill point."""
    path, slot, digest = info.get("path"), info.get("trash"), info.get("sha256")
    if not (isinstance(path, str) and isinstance(slot, str) and isinstance(digest, str)):
        return
    with contextlib.suppress(UndoRefused):
        record = _read_record(ws)
        if record is not None and record.get("op") == "delete" and record.get("trash") == slot:
            return
    record_delete(ws, path, slot, digest)


def record_permanent(ws: EditTarget, path: str) -> None:
    """After a permanent delete: the last operation cannot be undone (and says why)."""
    _write_record(ws, {"op": "permanent", "path": path})


def record_unrecoverable(ws: EditTarget, label: str) -> None:
    """After an operation finished by crash recovery, which keeps no undo copy."""
    _write_record(ws, {"op": "unrecoverable", "label": label})


def blob_folder(ws: EditTarget) -> Path:
    """A fresh folder path for the next move's `before` bytes (`move_journal.commit`)."""
    return ws.state_dir / UNDO_DIR / uuid.uuid4().hex[:12]


def record_move(
    ws: EditTarget, src: str, dst: str, outcome: Outcome, made: list[str] | None = None
) -> None:
    """After a move: `undo` moves `dst` back to `src`, restores the linking files and removes
    the folders the move made for `dst` (`made`, innermost first) when emptied."""
    if outcome.blob_dir is None:
        record_unrecoverable(ws, f"move {src} -> {dst} (no copy of the linking files was kept)")
        return
    files = [
        {
            "path": dst if f.path == src else f.path,
            "blob": str(n),
            "before": sha256(f.before),
            "after_len": len(f.after),
            "after": sha256(f.after),
        }
        for n, f in enumerate(outcome.installed)
    ]
    _write_record(
        ws,
        {
            "op": "move",
            "src": src,
            "dst": dst,
            "blobs": outcome.blob_dir.name,
            "files": files,
            "made": made or [],
        },
    )


def records(ws: EditTarget, copies: object) -> bool:
    """Whether the undo record is the one of the move whose copies are in folder `copies`."""
    try:
        record = _read_record(ws)
    except UndoRefused:
        return False
    return record is not None and isinstance(copies, str) and record.get("blobs") == copies


def _write_record(ws: EditTarget, record: dict[str, Any]) -> None:
    """Add a step to the history atomically (a permanent or unrecoverable one replaces it),
    dropping the copies of the steps that leave it. Best effort: an operation already done
    is not failed because its step cannot be written (then `undo` reverts the one before)."""
    record = {"time": time.time(), **record}
    with contextlib.suppress(OSError), _locked(ws.state_dir) as folder:
        try:
            steps = _steps(ws)
        except UndoRefused:
            steps = []  # an unreadable history is started afresh
        dropped: list[dict[str, Any]] = []
        if record["op"] in ("permanent", "unrecoverable"):
            dropped, steps = steps, []
        steps.append(record)
        while len(steps) > MAX_STEPS:
            dropped.append(steps.pop(0))
        for old in dropped:
            _drop_copies(folder, old, keep=record.get("blobs"))
        _save(folder, steps)


def _save(folder: Path, steps: list[dict[str, Any]]) -> None:
    """Write the history (the lock held): a new file, then renamed over the old one."""
    for name in os.listdir(folder):  # left by a process killed while writing one
        if name.startswith(f".{_RECORD}.") and name.endswith(".tmp"):
            remove_file(folder / name)
    if not steps:
        remove_file(folder / _RECORD)
        return
    tmp = folder / f".{_RECORD}.{secrets.token_hex(6)}.tmp"
    data = json.dumps({"version": 2, "steps": steps}, ensure_ascii=False).encode()
    state_files.create_new(tmp, data)
    os.replace(tmp, folder / _RECORD)  # a symlink in its place is replaced, not followed


def _drop_copies(folder: Path, old: dict[str, Any] | None, keep: str | None = None) -> None:
    """Remove the copies an old record kept (not another process's fresh ones)."""
    name = old.get("blobs") if old else None
    if isinstance(name, str) and name != keep and re.fullmatch(r"[0-9a-f]{12}", name):
        shutil.rmtree(folder / name, ignore_errors=True)


@contextlib.contextmanager
def _locked(state_dir: Path) -> Iterator[Path]:
    """One process at a time records or undoes (a lock file beside the record); yields the
    undo folder. Both are checked, never followed: a symlinked state or undo folder is
    refused, a lock file that is not a regular file replaced (never truncated)."""
    folder = state_files.folder_fd(state_dir, UNDO_DIR)
    try:
        fd = state_files.open_lock(UNDO_LOCK, dir_fd=folder)  # openat: in this very folder
    finally:
        os.close(folder)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield state_dir / UNDO_DIR
    finally:
        os.close(fd)


def _steps(ws: EditTarget) -> list[dict[str, Any]]:
    """The history, oldest first ([] when none); `UndoRefused` when it cannot be read."""
    try:
        data = state_files.read_bytes(ws.state_dir / UNDO_DIR / _RECORD)
        stored = json.loads(data.decode("utf-8"))
    except FileNotFoundError:
        return []
    except state_files.NotRegular as exc:
        raise UndoRefused(f"cannot undo: the undo record is {exc.strerror}") from None
    except OSError as exc:
        raise UndoRefused(f"cannot undo: the undo record is unreadable ({exc.strerror})") from None
    except ValueError as exc:
        raise UndoRefused(f"cannot undo: the undo record is unreadable ({exc})") from None
    if not isinstance(stored, dict):
        return []
    if stored.get("version") == 1:  # one step, as earlier versions kept it
        return [stored]
    steps = stored.get("steps") if stored.get("version") == 2 else None
    return [step for step in steps if isinstance(step, dict)] if isinstance(steps, list) else []


def _read_record(ws: EditTarget) -> dict[str, Any] | None:
    """The newest step, checked; None when the history is empty."""
    steps = _steps(ws)
    if not steps:
        return None
    record = steps[-1]
    try:
        _check(ws.root, record)
    except (RemeError, KeyError, TypeError, ValueError):
        # Derived state is never trusted: paths must stay inside the workspace.
        raise UndoRefused("cannot undo: the undo record is damaged") from None
    return record


def _check(root: Path, record: dict[str, Any]) -> None:
    """Refuse a record naming anything outside the workspace (or outside the trash)."""
    op = record.get("op")
    paths: list[str] = []
    if op == "delete":
        paths = [record["path"], record["trash"]]
        if not normalize_relpath(record["trash"]).startswith(f"{TRASH_DIR}/"):
            raise ValueError("not in the trash")
        for folder in record.get("made", []):
            if folder != TRASH_DIR and not record["trash"].startswith(f"{folder}/"):
                raise ValueError("a made folder that is not the trash slot's")
    elif op == "move":
        paths = [record["src"], record["dst"], *(f["path"] for f in record["files"])]
        for folder in record.get("made", []):
            if not record["dst"].startswith(f"{folder}/"):
                raise ValueError("a made folder that is not the destination's")
        if not re.fullmatch(r"[0-9a-f]{12}", record["blobs"]):
            raise ValueError("bad copy folder")
        for f in record["files"]:
            if not str(f["blob"]).isdigit() or not isinstance(f["after_len"], int):
                raise ValueError("bad file entry")
    for rel in paths:
        if normalize_relpath(rel) != rel:
            raise ValueError("not a normalised path")
        resolve_inside(root, rel)


# -- undoing --------------------------------------------------------------------------------------
def undo(ws: EditTarget) -> UndoReport:
    """Revert the newest delete or move left in the history; `UndoRefused` (changing
    nothing) when it cannot."""
    try:
        with ws.write_lock, _locked(ws.state_dir):
            return _undo_locked(ws)
    except OSError as exc:
        raise UndoRefused(f"cannot undo: {exc.strerror} ({exc.filename})") from None


def _undo_locked(ws: EditTarget) -> UndoReport:
    """`undo` with the locks held."""
    record = _read_record(ws)
    op = record.get("op") if record else None
    if record is None or op not in ("delete", "move", "permanent", "unrecoverable"):
        raise UndoRefused("nothing to undo (no delete or move through reme left to revert)")
    if op == "permanent":
        raise UndoRefused(f"cannot undo: the last delete ({record['path']}) was permanent")
    if op == "unrecoverable":
        raise UndoRefused(f"cannot undo the last operation: {record['label']}")
    return _undo_delete(ws, record) if op == "delete" else _undo_move(ws, record)


def clear_after_recovery(ws: EditTarget, info: Mapping[str, Any]) -> None:
    """An undo finished by crash recovery: its record is spent."""
    with contextlib.suppress(OSError, UndoRefused), _locked(ws.state_dir):
        record = _read_record(ws)
        if record is not None and record.get("blobs") == info.get("record"):
            _clear(ws, record)


def _clear(ws: EditTarget, record: dict[str, Any]) -> None:
    """The newest step is spent (the undo lock held): off the history, its copies dropped."""
    folder = ws.state_dir / UNDO_DIR
    try:
        steps = _steps(ws)
    except UndoRefused:
        steps = []
    if steps and steps[-1] == record:
        steps.pop()
    _save(folder, steps)
    _drop_copies(folder, record)


def _remove_made(ws: EditTarget, record: Mapping[str, Any]) -> None:
    """Remove the folders the operation made (innermost first), where empty again."""
    for folder in record.get("made", []):
        with contextlib.suppress(OSError):
            (ws.root / folder).rmdir()


def _undo_delete(ws: EditTarget, record: dict[str, Any]) -> UndoReport:
    path, slot = record["path"], record["trash"]
    what = f"cannot undo the delete of {path}"
    if os.path.lexists(ws.root / path):
        drop_second_name(ws.root / slot, ws.root / path)  # a restore killed halfway
        if not os.path.lexists(ws.root / slot) and _digest(ws.root / path) == record["sha256"]:
            _clear(ws, record)  # restored by an undo killed before it said so: done
            _remove_made(ws, record)
            return UndoReport("delete", path, slot)
        raise UndoRefused(f"{what}: {path} exists again (move it away first)")
    try:
        data = state_files.read_bytes(ws.root / slot)  # named by the record: no FIFO, no link
    except FileNotFoundError:
        raise UndoRefused(f"{what}: {slot} is no longer in the trash") from None
    except OSError as exc:
        raise UndoRefused(f"{what}: cannot read {slot} ({exc.strerror})") from None
    if sha256(data) != record["sha256"]:
        raise UndoRefused(f"{what}: {slot} changed since it was moved to the trash")
    restore_from_trash(ws.root, slot, path)
    _clear(ws, record)
    _remove_made(ws, record)
    if in_scope(ws, path):
        ws.apply(Changes(added=[path]))
    return UndoReport("delete", path, slot)


def _undo_move(ws: EditTarget, record: dict[str, Any]) -> UndoReport:
    src, dst = record["src"], record["dst"]
    what = f"cannot undo the move {src} -> {dst}"
    if os.path.lexists(ws.root / src):
        raise UndoRefused(f"{what}: {src} exists again (move it away first)")
    if not (ws.root / dst).is_file():
        raise UndoRefused(f"{what}: {dst} is gone")
    restore = _restorer(ws, record)
    rewrites = []
    for f in record["files"]:
        try:
            cur = state_files.read_bytes(ws.root / f["path"])
            mode = (ws.root / f["path"]).stat().st_mode & 0o7777
        except OSError as exc:
            raise UndoRefused(f"{what}: cannot read {f['path']} ({exc.strerror})") from None
        new = restore(f["path"], cur)
        if new != cur:
            rewrites.append(Rewrite(f["path"], cur, new, mode))
    move_journal.commit(
        ws,
        "undo",
        f"undo of the move {src} -> {dst}",
        {"record": record["blobs"]},
        rewrites,
        [(dst, src)],
        restore,
        on_done=lambda _: _clear(ws, record),
    )
    _remove_made(ws, record)
    with ws.lock:
        indexed = dst in ws.index.nodes
    others = sorted(rw.path for rw in rewrites if rw.path != dst)
    ws.apply(
        Changes(
            added=[src] if in_scope(ws, src) else [],
            modified=others,
            deleted=[dst] if indexed else [],
        )
    )
    return UndoReport("move", src, dst, others)


def _digest(path: Path) -> str:
    """The file's sha256; "" when it cannot be read as a regular file."""
    try:
        return sha256(state_files.read_bytes(path))
    except OSError:
        return ""


def _restorer(ws: EditTarget, record: Mapping[str, Any]) -> Rebase:
    """The bytes a linking file gets back, from its bytes now: its bytes from before the move
    plus whatever was appended since; refused when it changed otherwise."""
    folder = ws.state_dir / UNDO_DIR / record["blobs"]
    by_path = {f["path"]: f for f in record["files"]}
    what = f"cannot undo the move {record['src']} -> {record['dst']}"

    def restore(path: str, cur: bytes) -> bytes:
        f = by_path[path]
        n = f["after_len"]
        if len(cur) < n or sha256(cur[:n]) != f["after"]:
            raise UndoRefused(f"{what}: {path} changed since (undoing would lose the change)")
        try:
            state_files.check_folder(folder)  # a symlinked copy folder is never read through
            before = state_files.read_bytes(folder / f["blob"])
        except OSError:
            before = b""
        if sha256(before) != f["before"]:
            raise UndoRefused(f"{what}: the copy of {path} kept for undo is damaged or gone")
        return before + cur[n:]

    return restore


def rebaser(ws: EditTarget, info: Mapping[str, Any]) -> Rebase | None:
    """For `move_journal.recover`: the restorer of an undo killed halfway, if still known."""
    try:
        record = _read_record(ws)
    except UndoRefused:
        return None
    if record is None or record.get("op") != "move" or record.get("blobs") != info.get("record"):
        return None
    return _restorer(ws, record)
