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
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reme_core.edit import move_journal
from reme_core.edit import undo_history as history
from reme_core.edit.journal_files import UNDO_DIR
from reme_core.edit.link_rewrite import Rewrite
from reme_core.edit.move_journal import Outcome, sha256
from reme_core.edit.replace_phase import Rebase
from reme_core.edit.target import in_scope
from reme_core.edit.trash import drop_second_name, restore_from_trash
from reme_core.edit.undo_history import UndoRefused
from reme_core.files import state_files
from reme_core.indexing.indexer import Changes

if TYPE_CHECKING:
    from reme_core.ports import EditIndex


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


# -- recording ------------------------------------------------------------------------------------
def record_delete(
    ws: EditIndex, path: str, slot: str, digest: str, made: list[str] | None = None
) -> None:
    """After a delete into the trash: `undo` moves `slot` back to `path` (and removes the
    trash folders in `made`, innermost first, when emptied)."""
    record = {"op": "delete", "path": path, "trash": slot, "sha256": digest}
    history.write_step(ws, {**record, "made": made or []})


def record_recovered_delete(ws: EditIndex, info: Mapping[str, Any]) -> None:
    """A delete finished by crash recovery: recorded as if it had run to its end (unless
    it was), so `undo` brings the note back from any kill point."""
    path, slot, digest = info.get("path"), info.get("trash"), info.get("sha256")
    if not (isinstance(path, str) and isinstance(slot, str) and isinstance(digest, str)):
        return
    with contextlib.suppress(UndoRefused):
        record = history.newest(ws)
        if record is not None and record.get("op") == "delete" and record.get("trash") == slot:
            return
    record_delete(ws, path, slot, digest)


def record_permanent(ws: EditIndex, path: str) -> None:
    """After a permanent delete: the last operation cannot be undone (and says why)."""
    history.write_step(ws, {"op": "permanent", "path": path})


def record_unrecoverable(ws: EditIndex, label: str) -> None:
    """After an operation finished by crash recovery, which keeps no undo copy."""
    history.write_step(ws, {"op": "unrecoverable", "label": label})


def blob_folder(ws: EditIndex) -> Path:
    """A fresh folder path for the next move's `before` bytes (`move_journal.commit`)."""
    return ws.state_dir / UNDO_DIR / uuid.uuid4().hex[:12]


def record_move(
    ws: EditIndex, src: str, dst: str, outcome: Outcome, made: list[str] | None = None
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
    history.write_step(
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


def records(ws: EditIndex, copies: object) -> bool:
    """Whether the undo record is the one of the move whose copies are in folder `copies`."""
    try:
        record = history.newest(ws)
    except UndoRefused:
        return False
    return record is not None and isinstance(copies, str) and record.get("blobs") == copies


# -- undoing --------------------------------------------------------------------------------------
def undo(ws: EditIndex) -> UndoReport:
    """Revert the newest delete or move left in the history; `UndoRefused` (changing
    nothing) when it cannot."""
    try:
        with ws.write_lock, history.locked(ws.state_dir):
            return _undo_locked(ws)
    except OSError as exc:
        raise UndoRefused(f"cannot undo: {exc.strerror} ({exc.filename})") from None


def _undo_locked(ws: EditIndex) -> UndoReport:
    """`undo` with the locks held."""
    record = history.newest(ws)
    op = record.get("op") if record else None
    if record is None or op not in ("delete", "move", "permanent", "unrecoverable"):
        raise UndoRefused("nothing to undo (no delete or move through reme left to revert)")
    if op == "permanent":
        raise UndoRefused(f"cannot undo: the last delete ({record['path']}) was permanent")
    if op == "unrecoverable":
        raise UndoRefused(f"cannot undo the last operation: {record['label']}")
    return _undo_delete(ws, record) if op == "delete" else _undo_move(ws, record)


def clear_after_recovery(ws: EditIndex, info: Mapping[str, Any]) -> None:
    """An undo finished by crash recovery: its record is spent."""
    with contextlib.suppress(OSError, UndoRefused), history.locked(ws.state_dir):
        record = history.newest(ws)
        if record is not None and record.get("blobs") == info.get("record"):
            history.spend(ws, record)


def _remove_made(ws: EditIndex, record: Mapping[str, Any]) -> None:
    """Remove the folders the operation made (innermost first), where empty again."""
    for folder in record.get("made", []):
        with contextlib.suppress(OSError):
            (ws.root / folder).rmdir()


def _undo_delete(ws: EditIndex, record: dict[str, Any]) -> UndoReport:
    path, slot = record["path"], record["trash"]
    what = f"cannot undo the delete of {path}"
    if os.path.lexists(ws.root / path):
        drop_second_name(ws.root / slot, ws.root / path)  # a restore killed halfway
        if not os.path.lexists(ws.root / slot) and _digest(ws.root / path) == record["sha256"]:
            history.spend(ws, record)  # restored by an undo killed before it said so: done
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
    history.spend(ws, record)
    _remove_made(ws, record)
    if in_scope(ws, path):
        ws.apply(Changes(added=[path]))
    return UndoReport("delete", path, slot)


def _undo_move(ws: EditIndex, record: dict[str, Any]) -> UndoReport:
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
        on_done=lambda _: history.spend(ws, record),
    )
    _remove_made(ws, record)
    indexed = ws.node(dst) is not None
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


def _restorer(ws: EditIndex, record: Mapping[str, Any]) -> Rebase:
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


def rebaser(ws: EditIndex, info: Mapping[str, Any]) -> Rebase | None:
    """For `move_journal.recover`: the restorer of an undo killed halfway, if still known."""
    try:
        record = history.newest(ws)
    except UndoRefused:
        return None
    if record is None or record.get("op") != "move" or record.get("blobs") != info.get("record"):
        return None
    return _restorer(ws, record)
