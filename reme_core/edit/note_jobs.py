"""ReMe's small file jobs over a workspace: `stat`, `frontmatter_*`, `edit`, `save`, `daily_*`.

An agent written for ReMe calls these by name (its `default.yaml`); each is a thin rule over
the one write path (`reme_core.edit.write`: journaled, atomic, indexed before it returns), so
the browser and the index see every change the same way. Times are ISO local timestamps as
ReMe's `stat` gives them, so an agent can hand one back to `save` as `expected_mtime`.
"""

from __future__ import annotations

import datetime as dt
import mimetypes
import os
import re
import stat as stat_module
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from reme_core.dates import is_iso_date
from reme_core.edit.atomic_write import put_file
from reme_core.edit.target import in_scope
from reme_core.edit.write import WriteReport, decode_note, note_target, write
from reme_core.errors import PathRefused, RemeError
from reme_core.files.paths import is_ignored, normalize_relpath, resolve_inside
from reme_core.indexing.indexer import Changes
from reme_core.parse.frontmatter import split_frontmatter
from reme_core.ports import edit_index

if TYPE_CHECKING:
    from reme_core.ports import Facade

DAILY_DIR = "daily"  # ReMe's daily layer: daily/<YYYY-MM-DD>/<name>.md
SESSION_DIR = "session"  # where ReMe keeps conversations: session/dialog/<id>.jsonl
_NAME_RE = re.compile(r"[^/\\\x00]+")
_SESSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
_NOTES_OPEN, _NOTES_CLOSE = "<!-- notes:auto -->", "<!-- /notes:auto -->"  # ReMe's markers
_INDEX_HIDDEN = {"schema_version", "session_id", "source_conversation"}
_AUTO_DESCRIPTION = re.compile(r"No notes today\.|\d+ note\(s\) today\.")


@dataclass(slots=True)
class NoteStat:
    """What `stat` tells: ReMe's fields (`frontmatter` for Markdown files only)."""

    path: str
    exists: bool
    type: str = ""  # "file" or "dir"
    size: int | None = None
    mtime: str | None = None
    ctime: str | None = None
    mime: str | None = None
    frontmatter: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(slots=True)
class EditReport:
    """An `edit`: how many occurrences were replaced in which note."""

    path: str
    count: int
    lines: int


@dataclass(slots=True)
class SaveReport:
    """A `save`: the file as now on disk (its new mtime for the next `expected_mtime`)."""

    path: str
    created: bool
    size: int
    mtime: str
    indexed: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


def iso_mtime(seconds: float) -> str:
    """A file time as ReMe writes it: local, ISO 8601, microseconds kept."""
    return dt.datetime.fromtimestamp(seconds).isoformat()


def stat_path(workspace: Facade, path: str) -> NoteStat:
    """ReMe's `stat` of a workspace file or folder (never outside the workspace)."""
    ws = edit_index(workspace)
    rel = normalize_relpath(path) if path.strip() not in ("", ".") else "."
    full = ws.root if rel == "." else resolve_inside(ws.root, rel)
    try:
        st = full.stat()
    except OSError:
        return NoteStat(rel, exists=False)
    if full.is_dir():
        return NoteStat(
            rel, True, "dir", mtime=iso_mtime(st.st_mtime), ctime=iso_mtime(st.st_ctime)
        )
    is_md = rel.lower().endswith(".md")
    mime = "text/markdown" if is_md else mimetypes.guess_type(rel)[0] or "application/octet-stream"
    found = NoteStat(
        rel, True, "file", st.st_size, iso_mtime(st.st_mtime), iso_mtime(st.st_ctime), mime
    )
    if is_md:
        try:
            found.frontmatter = read_frontmatter(workspace, rel)
        except RemeError:
            found.frontmatter = {}
    return found


def read_frontmatter(workspace: Facade, path: str) -> dict[str, Any]:
    """A note's frontmatter as a mapping (`{}` when it has none); unreadable YAML refused."""
    ws = edit_index(workspace)
    rel, data = note_target(ws, path)
    if data is None:
        raise RemeError(f"{rel}: not found")
    text, _ = decode_note(ws.config.encoding, rel, data)
    fm = split_frontmatter(text)
    if fm.warning:
        raise RemeError(f"{rel}: {fm.warning}")
    return fm.data


def update_frontmatter(
    workspace: Facade,
    path: str,
    metadata: dict[str, Any] | None = None,
    remove: list[str] | None = None,
) -> WriteReport:
    """Merge `metadata` into an existing note's frontmatter and drop the `remove` keys, the
    body and every other key kept as written."""
    ws = edit_index(workspace)
    rel, data = note_target(ws, path)
    if data is None:
        raise RemeError(f"{rel}: not found (frontmatter jobs change existing notes)")
    updates: dict[str, Any] = dict(metadata or {})
    for key in remove or []:
        updates[key] = None
    return write(ws, rel, None, None, None, updates)


def edit_note(workspace: Facade, path: str, old: str, new: str) -> EditReport:
    """Replace every occurrence of `old` in a note's body (frontmatter excluded, as in ReMe);
    refused when `old` is empty or absent, nothing written then."""
    ws = edit_index(workspace)
    if not old:
        raise RemeError("old must be non-empty text")
    with ws.write_lock:
        rel, data = note_target(ws, path)
        if data is None:
            raise RemeError(f"{rel}: not found")
        text, _ = decode_note(ws.config.encoding, rel, data)
        lines = text.replace("\r\n", "\n").split("\n")
        body = "\n".join(lines[split_frontmatter(text).end_line :])
        count = body.count(old)
        if not count:
            raise RemeError(
                f"{rel}: the text to replace was not found in the body (frontmatter is "
                "excluded from edit); read the note and copy the text exactly"
            )
        report = write(ws, rel, body.replace(old, new))
    return EditReport(rel, count, report.lines)


def save_note(
    workspace: Facade, path: str, content: str, expected_mtime: str | None = None
) -> SaveReport:
    """Write a note's whole text verbatim (frontmatter included); refused when
    `expected_mtime` (from `stat`) no longer matches the file, so another writer's change
    is never overwritten unseen."""
    ws = edit_index(workspace)
    if not isinstance(content, str):
        raise RemeError("content must be text")
    with ws.write_lock:
        rel, old = note_target(ws, path)
        full = ws.root / rel
        current = iso_mtime(full.stat().st_mtime) if old is not None else None
        if expected_mtime and current != expected_mtime:
            raise RemeError(
                f"{rel}: changed since {expected_mtime} (now {current or 'missing'}); "
                "read it again before saving"
            )
        put_file(ws, rel, content.encode(ws.config.encoding), old)
        indexed = in_scope(ws, rel)
        if indexed:
            ws.apply(Changes(added=[rel]) if old is None else Changes(modified=[rel]))
        st = full.stat()
    return SaveReport(rel, old is None, st.st_size, iso_mtime(st.st_mtime), indexed)


def list_folder(
    workspace: Facade,
    path: str = "",
    recursive: bool = False,
    extensions: list[str] | None = None,
    newest_first: bool = False,
) -> list[str]:
    """ReMe's `list`: the files in a workspace folder (and below, `recursive`), every kind,
    not only notes, without the state folder, dot-files and temp names; filtered by
    extension (`md` or `.md`), optionally most recently modified first, else by path."""
    ws = edit_index(workspace)
    folder = "" if path.strip().strip("/") in ("", ".") else normalize_relpath(path.strip("/"))
    base = resolve_inside(ws.root, folder) if folder else ws.root
    if not base.is_dir():
        raise RemeError(f"list: {folder} is not a folder in the workspace")
    state = ws.state_dir.name
    exts = {e.strip().lower().lstrip(".") for e in extensions or [] if e.strip()}
    found: dict[str, int] = {}
    for top, dirs, names in os.walk(base):
        rel_top = os.path.relpath(top, ws.root).replace(os.sep, "/")
        rel_top = "" if rel_top == "." else rel_top
        dirs[:] = sorted(d for d in dirs if recursive and not is_ignored(_join(rel_top, d), state))
        for name in names:
            rel = _join(rel_top, name)
            if is_ignored(rel, state) or (exts and name.rsplit(".", 1)[-1].lower() not in exts):
                continue
            try:
                st = os.stat(os.path.join(top, name))
            except OSError:
                continue
            if stat_module.S_ISREG(st.st_mode):
                found[rel] = st.st_mtime_ns
    if newest_first:
        return sorted(found, key=lambda p: (-found[p], p))
    return sorted(found)


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def day_of(date: str | None) -> str:
    """`date` checked as YYYY-MM-DD, or today (local) when empty."""
    if not date:
        return dt.date.today().isoformat()
    if not is_iso_date(date):
        raise RemeError(f"date must be YYYY-MM-DD, got {date!r}")
    return date


def daily_notes(workspace: Facade, date: str | None = None) -> list[dict[str, Any]]:
    """ReMe's `daily_list`: each note directly in daily/<date>/, its frontmatter and path."""
    ws = edit_index(workspace)
    day = day_of(date)
    folder = ws.root / DAILY_DIR / day
    if not folder.is_dir():
        return []
    notes = []
    for entry in sorted(os.listdir(folder)):
        rel = f"{DAILY_DIR}/{day}/{entry}"
        if not entry.endswith(".md") or entry.startswith(".") or not (folder / entry).is_file():
            continue
        try:
            meta = read_frontmatter(workspace, rel)
        except RemeError:
            meta = {}
        notes.append({**meta, "path": rel})
    return notes


def daily_write(
    workspace: Facade,
    name: str,
    description: str,
    session_id: str,
    content: str,
    date: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> WriteReport:
    """ReMe's `daily_write`: daily/<date>/<name>.md with name, description, session_id and a
    source_conversation link to the session's transcript."""
    ws = edit_index(workspace)
    name = name.strip()
    if not _NAME_RE.fullmatch(name) or name.startswith(".") or name in ("..",):
        raise PathRefused(f"name {name!r} must be a file name (no slashes, not hidden)")
    session_id = session_id.strip()
    if not _SESSION_RE.fullmatch(session_id):
        raise RemeError(f"session_id {session_id!r}: letters, digits and . _ : - only")
    reserved = {"name", "description", "session_id", "source_conversation"}
    extra = {k: v for k, v in (metadata or {}).items() if k not in reserved and v is not None}
    extra["session_id"] = session_id
    extra["source_conversation"] = f"[[{SESSION_DIR}/dialog/{session_id}.jsonl]]"
    day = day_of(date)
    with ws.write_lock:
        report = write(ws, f"{DAILY_DIR}/{day}/{name}.md", content, name, description, extra)
        refresh_day_index(workspace, day)
    return report


def refresh_day_index(workspace: Facade, date: str) -> str:
    """Rebuild the list of a day's notes in its index page daily/<date>.md, as ReMe does: one
    `- [[path]] key: value ...` line per note between ReMe's `notes:auto` markers (appended
    when absent), the rest of the page kept. The description is set only when the page has
    none or ReMe's own count: a person's words stay."""
    ws = edit_index(workspace)
    day = day_of(date)
    rel = f"{DAILY_DIR}/{day}.md"
    notes = daily_notes(workspace, day)
    block = "\n".join([_NOTES_OPEN, *(_index_line(n) for n in notes), _NOTES_CLOSE])
    if not notes:
        block = f"{_NOTES_OPEN}\n(none)\n{_NOTES_CLOSE}"
    _, data = note_target(ws, rel)
    text = "" if data is None else decode_note(ws.config.encoding, rel, data)[0]
    fm = split_frontmatter(text)
    old = "\n".join(text.replace("\r\n", "\n").split("\n")[fm.end_line :])
    if _NOTES_OPEN in old and _NOTES_CLOSE in old:
        body = old.split(_NOTES_OPEN, 1)[0] + block + old.split(_NOTES_CLOSE, 1)[1]
    else:
        body = f"{old.rstrip()}\n\n{block}\n" if old.strip() else f"{block}\n"
    meta: dict[str, Any] = {} if fm.data.get("name") else {"name": day}
    described = str(fm.data.get("description") or "")
    if not described or _AUTO_DESCRIPTION.fullmatch(described):
        meta["description"] = f"{len(notes)} note(s) today." if notes else "No notes today."
    return write(ws, rel, body, None, None, meta).path


def _index_line(note: dict[str, Any]) -> str:
    """ReMe's day-index line of a note: its link, then name, description and other keys."""
    keys: list[str] = [k for k in ("name", "description") if k in note]
    keys += [k for k in note if k not in {"path", *keys, *_INDEX_HIDDEN}]
    shown = [
        f"{k}: {' '.join(str(note[k]).splitlines())}" for k in keys if note[k] not in (None, "")
    ]
    return " ".join([f"- [[{note['path']}]]", *shown])
