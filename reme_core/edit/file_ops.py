"""Link-safe file operations: move (rewriting the links it breaks), delete, create, undo.

"Memory as files" only holds if the graph survives edits: a move rewrites every `[[old path]]`
that points at the file, a delete says which links it leaves dangling (seed 003, "Human and
Agent Editing"). Planning the link edits is `link_rewrite`'s work, writing them all-or-nothing
(across crashes, without losing concurrent edits) `move_journal`'s; a delete moves the file to
`.trash/` (`trash`), and the last delete or move can be undone (`undo`). This module checks
paths, runs the operations and keeps the index in step.

Case-only renames on case-insensitive file systems are out of scope: the destination "already
exists" there and is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reme_core.edit import journal_recovery, move_journal, undo
from reme_core.edit.atomic_write import put_file
from reme_core.edit.folders import missing_folders
from reme_core.edit.link_rewrite import (
    InboundLink,
    LinkEdit,
    inbound_of,
    plan_move,
    replan_file,
)
from reme_core.edit.replace_phase import Rebase
from reme_core.edit.target import in_scope
from reme_core.edit.trash import trash_slot
from reme_core.errors import PathRefused, RemeError
from reme_core.files.paths import normalize_relpath, resolve_inside
from reme_core.indexing.indexer import Changes
from reme_core.ports import edit_index

if TYPE_CHECKING:
    from reme_core.ports import EditIndex, Facade

# A wikilink target ends at `#` or `|` and cannot hold brackets or a line break, so a path
# with any of them could not be linked to after the move.
_UNLINKABLE = re.compile(r"[\[\]#|\n\r]")


@dataclass(slots=True)
class MoveReport:
    """What a move did (or, with `dry_run`, would do).

    `untouched` lists the links the move breaks and does not rewrite, each with its reason
    (with `rewrite_links=False`, every one). `warnings` says what to know before moving, such
    as a note leaving `.md` (it stops being a note).
    """

    src: str
    dst: str
    dry_run: bool
    edits: list[LinkEdit] = field(default_factory=list)
    untouched: list[InboundLink] = field(default_factory=list)
    indexed: bool = True
    warnings: list[str] = field(default_factory=list)

    @property
    def files(self) -> list[str]:
        """The files whose text changed (or would change), sorted."""
        return sorted({e.path for e in self.edits})

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (`reme-tui move --json`)."""
        return {
            "src": self.src,
            "dst": self.dst,
            "dry_run": self.dry_run,
            "indexed": self.indexed,
            "files": self.files,
            "edits": [asdict(e) for e in self.edits],
            "untouched": [asdict(i) for i in self.untouched],
            "warnings": list(self.warnings),
        }


def suffix_warnings(src: str, dst: str) -> list[str]:
    """What a move changing a note's suffix must say first: it is a note no longer."""
    if src.lower().endswith(".md") and not dst.lower().endswith(".md"):
        suffix = posixpath.splitext(dst)[1] or "no suffix"
        return [
            f"{dst} does not end in .md ({suffix}): it will no longer be a note, and links "
            "to it must name the suffix"
        ]
    return []


@dataclass(slots=True)
class DeleteReport:
    """A deleted file, where it went (`trash`, None when deleted for good) and the inbound
    links that now dangle (to clean up by hand)."""

    path: str
    inbound: list[InboundLink] = field(default_factory=list)
    trash: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (`reme-tui delete --json`)."""
        return {
            "path": self.path,
            "trash": self.trash,
            "inbound": [asdict(i) for i in self.inbound],
        }


# -- public operations ------------------------------------------------------------------------
def move(
    ws: EditIndex, src: str, dst: str, rewrite_links: bool = True, dry_run: bool = False
) -> MoveReport:
    """Move `src` to `dst`, rewrite the links the move would break, update the index at once.

    Only links that resolve to `src` change (and, in a vault, the moved note's own links its
    new folder breaks), and only their target: `!`, anchor, alias and any spacing stay, and
    in a vault each keeps its written form (`link_forms`). Links in code are left alone; in
    memory mode Markdown links are not links (ReMe's rule). Raises `PathRefused` /
    `FileRefused` before touching anything, or `RemeError` after putting every file back.
    A dry run (the rename dialog's preview, on every keystroke) plans without the writer
    lock: it waits for no batch, and the move itself plans again under the lock.
    """
    with contextlib.nullcontext() if dry_run else ws.write_lock:
        src_rel = existing_rel(ws, src)
        dst_rel = check_new_path(ws, dst)
        if dst_rel == src_rel:
            raise PathRefused(f"{dst}: is the file being moved")
        plan = plan_move(ws, src_rel, dst_rel, rewrite_links)
        report = MoveReport(
            src_rel,
            dst_rel,
            dry_run,
            plan.edits,
            plan.untouched,
            in_scope(ws, dst_rel),
            suffix_warnings(src_rel, dst_rel),
        )
        if dry_run:
            return report
        rebase = _MoveRebase(ws, src_rel, dst_rel)
        copies = undo.blob_folder(ws)
        made = missing_folders(ws.root, dst_rel)
        outcome = move_journal.commit(
            ws,
            "move",
            f"move {src_rel} -> {dst_rel}",
            {"src": src_rel, "dst": dst_rel, "undo": copies.name},
            plan.writes,
            [(src_rel, dst_rel)],
            rebase,
            copies,
            lambda done: undo.record_move(ws, src_rel, dst_rel, done, made),
        )
        if outcome.rebased:  # files that changed meanwhile: their edits as finally made
            again = {dst_rel if p == src_rel else p for p in outcome.rebased}
            kept = [e for e in report.edits if e.path not in again]
            report.edits = sorted(kept + rebase.edits(), key=lambda e: (e.path, e.line))
        _index_move(ws, src_rel, dst_rel, report.indexed, plan.rewritten)
    return report


def _index_move(
    ws: EditIndex, src: str, dst: str, dst_in_scope: bool, rewritten: Iterable[str]
) -> None:
    """Tell the index what a move changed on disk: the moved file, the files whose links
    were rewritten; an attachment that moved relinks the links that name it."""
    src_indexed = ws.node(src) is not None
    ws.apply(
        Changes(
            added=[dst] if dst_in_scope else [],
            modified=sorted(p for p in rewritten if p != src),
            deleted=[src] if src_indexed else [],
        )
    )
    if not src_indexed and ws.index.resolver is not None:
        with ws.lock:  # an attachment moved: links find it by its new name from now on
            ws.index.relink_all()


class _MoveRebase:
    """Plans a linking file again from the bytes it holds now (it changed after planning)."""

    def __init__(self, ws: EditIndex, src: str, dst: str) -> None:
        self.ws, self.src, self.dst = ws, src, dst
        self.by_file: dict[str, list[LinkEdit]] = {}

    def __call__(self, path: str, data: bytes) -> bytes:
        new, edits = replan_file(self.ws, path, data, self.src, self.dst)
        self.by_file[path] = edits
        return new

    def edits(self) -> list[LinkEdit]:
        """The edits of every file planned again."""
        return [e for edits in self.by_file.values() for e in edits]


def delete(ws: EditIndex, path: str, permanent: bool = False) -> DeleteReport:
    """Move a file to `.trash/` (or, `permanent`, remove it), drop it from the index, and
    return the links that still point at it. The last delete can be undone (`undo`)."""
    with ws.write_lock:
        rel = existing_rel(ws, path)
        inbound = [link for link in inbound_of(ws, rel) if link.path != rel]
        slot = None
        if permanent:
            try:
                (ws.root / rel).unlink()
            except OSError as exc:
                raise RemeError(f"{rel}: cannot delete ({exc.strerror})") from None
            undo.record_permanent(ws, rel)
        else:
            try:
                digest = hashlib.sha256((ws.root / rel).read_bytes()).hexdigest()
            except OSError as exc:
                raise RemeError(f"{rel}: cannot read ({exc.strerror})") from None
            slot = _trash(ws, rel, digest)
        if ws.node(rel) is not None:
            ws.apply(Changes(deleted=[rel]))
    return DeleteReport(rel, inbound, slot)


def _trash(ws: EditIndex, rel: str, digest: str) -> str:
    """Move `rel` to the trash through a journal, so that a kill at any point leaves it in
    place or in the trash with its undo record (recovery finishes the move and records it)."""
    slot = trash_slot(ws.root, rel)
    made = missing_folders(ws.root, slot)
    move_journal.commit(
        ws,
        "delete",
        f"delete {rel}",
        {"path": rel, "trash": slot, "sha256": digest},
        [],
        [(rel, slot)],
        _no_rebase,
        on_done=lambda _: undo.record_delete(ws, rel, slot, digest, made),
    )
    return slot


def _no_rebase(path: str, data: bytes) -> bytes:
    raise RemeError(f"{path}: nothing to plan again")  # a delete rewrites no file


def undo_last(ws: EditIndex) -> undo.UndoReport:
    """Revert the last delete or move made through reme (any process); see `reme_core.edit.undo`."""
    return undo.undo(ws)


def recover(ws: EditIndex) -> bool:
    """At open: finish or roll back operations a crash interrupted, what was done kept in
    `ws.recovery`; True when files changed (the start-up diff must then walk afresh)."""
    factories: dict[str, journal_recovery.RebaseFactory] = {
        "move": lambda info: _move_rebase(ws, info),
        "undo": lambda info: undo.rebaser(ws, info),
    }
    with ws.write_lock:
        notes = journal_recovery.recover(ws, factories)
        ws.recovery.extend(notes)
        done = [op for op in notes if isinstance(op, journal_recovery.Recovered)]
        for op in done:
            if op.finished and op.kind == "move" and not undo.records(ws, op.info.get("undo")):
                undo.record_unrecoverable(ws, f"{op.label} (finished after a crash)")
            elif op.finished and op.kind == "undo":
                undo.clear_after_recovery(ws, op.info)
            elif op.finished and op.kind == "delete":
                undo.record_recovered_delete(ws, op.info)
    return any(op.changed for op in done)


def _move_rebase(ws: EditIndex, info: Mapping[str, Any]) -> Rebase | None:
    src, dst = info.get("src"), info.get("dst")
    return _MoveRebase(ws, src, dst) if isinstance(src, str) and isinstance(dst, str) else None


def create(
    ws: EditIndex,
    path: str,
    name: str | None = None,
    description: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    body: str = "",
) -> Path:
    """Write a new Markdown note, its frontmatter per `new_note_fields`. Returns the absolute
    path."""
    import yaml

    stem = posixpath.splitext(posixpath.basename(str(path)))[0]
    fields = new_note_fields(ws.mode, stem, name, description, metadata)
    try:
        header = yaml.safe_dump(fields, allow_unicode=True, sort_keys=False) if fields else ""
    except yaml.YAMLError as exc:
        raise RemeError(f"{path}: metadata cannot be written as YAML ({exc})") from None
    if body and not body.endswith("\n"):
        body += "\n"
    text = f"---\n{header}---\n{body}" if header else body
    data = text.encode(ws.config.encoding)
    with ws.write_lock:
        rel = check_new_path(ws, path)
        if not rel.endswith(".md"):
            raise PathRefused(f"{rel}: a note is Markdown; end the path with .md")
        target = ws.root / rel
        put_file(ws, rel, data, None, "new")  # whole or not at all, its temp journaled
        if in_scope(ws, rel):
            ws.apply(Changes(added=[rel]))
    return target


def new_note_fields(
    mode: str,
    stem: str,
    name: str | None,
    description: str | None,
    metadata: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The frontmatter of a new note, the one rule for every way a note is created: in memory
    mode ReMe's `name` (the file's stem when not given) and `description` ("" when not given)
    come first and win over the same keys in `metadata`; in a vault only what the caller gave
    (Obsidian users write no `name:`/`description:`), so often no frontmatter at all."""
    given = {k: v for k, v in (("name", name), ("description", description)) if v}
    if mode == "vault":
        fields: dict[str, Any] = dict(given)
    else:
        fields = {"name": name or stem, "description": description or ""}
    for key, value in (metadata or {}).items():
        fields.setdefault(str(key), value)
    return fields


# -- path checks ------------------------------------------------------------------------------
def existing_file(ws: Facade, path: str) -> str:
    """The normalised path of an existing regular file of the workspace, or `PathRefused`."""
    return existing_rel(edit_index(ws), path)


def existing_rel(ws: EditIndex, path: str) -> str:
    """`existing_file` for code that holds the port already."""
    rel = normalize_relpath(path)
    state = ws.state_dir.name
    if rel.split("/")[0] == state:
        raise PathRefused(f"{rel}: {state}/ holds the index, not notes")
    full = resolve_inside(ws.root, rel)
    if not full.is_file():
        what = "a folder" if full.is_dir() else "missing"
        raise PathRefused(f"{rel}: not a file ({what})")
    return rel


def check_new_path(ws: EditIndex, path: str) -> str:
    """The normalised path for a file about to be written, refusing anything unsafe.

    Refused: absolute paths, escapes (also through symlinks), characters a wikilink cannot
    hold, paths the index ignores, an existing path, and a folder that is really a file.
    """
    if isinstance(path, str) and ("\n" in path or "\r" in path):
        raise PathRefused(f"{path!r}: a path with a line break cannot be linked to")
    rel = normalize_relpath(path)
    bad = _UNLINKABLE.search(rel)
    if bad:
        raise PathRefused(f"{rel}: contains {bad.group()!r}; [ ] # | cannot appear in a wikilink")
    if ws.watch_scope.ignores(rel):  # the state folder, dot-paths, temp names, excludes
        state = ws.state_dir.name
        raise PathRefused(f"{rel}: the index ignores this path ({state}/, dot-files, temp names)")
    full = resolve_inside(ws.root, rel)
    if os.path.lexists(full):
        raise PathRefused(f"{rel}: already exists")
    parent = full.parent
    while parent != ws.root and not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise PathRefused(
            f"{rel}: {parent.relative_to(ws.root).as_posix()} is a file, not a folder"
        )
    return rel
