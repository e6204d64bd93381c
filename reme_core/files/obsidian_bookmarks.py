"""Obsidian's bookmarks file (`.obsidian/bookmarks.json`), read and written so Obsidian and
reme-tui share one list.

The file is `{"items": [...]}`; an item has a `type` (`file` — with a `subpath` such as
`#Heading` or `#^block` for a place in the note —, `folder`, `search` with its `query`, `url`,
`group` with `items` of its own), a `ctime` in milliseconds and an optional `title`. Obsidian
writes it as `JSON.stringify(data, null, 2)`. Entries and fields this module does not know
are kept as they were: a change adds or removes one item and writes the rest back unchanged,
atomically (a temp file beside it, then a rename), and only over the bytes it read (a
concurrent write by Obsidian is refused, not lost). A file that is not JSON is never
overwritten. In memory mode the browser keeps the same format in its own state folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reme_core.errors import RemeError
from reme_core.files.state_files import NEW_FILE, SAFE_OPEN

BOOKMARKS_FILE = ".obsidian/bookmarks.json"
MAX_BOOKMARKS_BYTES = 4 * 1024 * 1024  # far beyond any real list: bounded work
MAX_GROUP_DEPTH = 32
_IDENTITY = ("type", "path", "subpath", "query", "url")


class BookmarksError(RemeError):
    """The bookmarks file cannot be read or written (it is left as it was)."""


@dataclass(frozen=True, slots=True)
class Bookmark:
    """One bookmark as a list shows it; `where` is its place in the file's item tree."""

    kind: str  # file, folder, search, url, group, or another type Obsidian may add
    title: str  # the entry's own title, else what it points at
    path: str = ""
    subpath: str = ""  # "#Heading" or "#^block" for a place in a note
    query: str = ""
    url: str = ""
    group: str = ""  # the titles of the groups it sits in, " / "-joined
    where: tuple[int, ...] = ()


@dataclass(slots=True)
class BookmarkFile:
    """A bookmarks file as read: its parsed data, and the bytes (None: no file yet)."""

    path: Path
    data: dict[str, Any]
    raw: bytes | None

    def bookmarks(self) -> list[Bookmark]:
        """Every bookmark in file order, groups' members after their group."""
        out: list[Bookmark] = []
        _flatten(self.data.get("items"), (), (), out)
        return out


def load_bookmarks(path: Path) -> BookmarkFile:
    """The bookmarks at `path` (none when it does not exist); `BookmarksError` when it cannot
    be read or is not a bookmarks file."""
    raw = _read(path)
    if raw is None:
        return BookmarkFile(path, {"items": []}, None)
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BookmarksError(f"{path.name}: not readable JSON ({exc}); left as it is") from None
    if not isinstance(data, dict) or not isinstance(data.get("items", []), list):
        raise BookmarksError(f"{path.name}: not a bookmarks file (no list of items)")
    data.setdefault("items", [])
    return BookmarkFile(path, data, raw)


def bookmark_entry(
    kind: str, *, path: str = "", subpath: str = "", query: str = "", title: str = ""
) -> dict[str, Any]:
    """A new item in Obsidian's key order (type, ctime, path, subpath, query, title)."""
    entry: dict[str, Any] = {"type": kind, "ctime": int(time.time() * 1000)}
    for key, value in (("path", path), ("subpath", subpath), ("query", query)):
        if value:
            entry[key] = value
    if title:
        entry["title"] = title
    return entry


def add_bookmark(path: Path, entry: dict[str, Any]) -> tuple[Bookmark, bool]:
    """Append `entry` (see `bookmark_entry`) unless the same place is bookmarked already; returns
    the bookmark and whether it was added."""
    book = load_bookmarks(path)
    same = tuple(entry.get(k, "") for k in _IDENTITY)
    for mark in book.bookmarks():
        if (mark.kind, mark.path, mark.subpath, mark.query, mark.url) == same:
            return mark, False
    items: list[Any] = book.data["items"]
    items.append(entry)
    _write(book)
    return _as_bookmark(entry, (len(items) - 1,)), True


def remove_bookmark(path: Path, mark: Bookmark) -> None:
    """Remove the item at `mark.where`, after checking it is still that bookmark."""
    book = load_bookmarks(path)
    found = next((b for b in book.bookmarks() if b.where == mark.where), None)
    if found is None or found != mark:
        raise BookmarksError("the bookmarks changed meanwhile; open the list again")
    items: list[Any] = book.data["items"]
    for index in mark.where[:-1]:
        items = items[index]["items"]
    del items[mark.where[-1]]
    _write(book)


def _flatten(
    items: object, where: tuple[int, ...], groups: tuple[str, ...], out: list[Bookmark]
) -> None:
    if not isinstance(items, list) or len(where) > MAX_GROUP_DEPTH:
        return
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        mark = _as_bookmark(item, (*where, index), " / ".join(groups))
        out.append(mark)
        if mark.kind == "group":
            _flatten(item.get("items"), mark.where, (*groups, mark.title), out)


def _as_bookmark(item: dict[str, Any], where: tuple[int, ...] = (), group: str = "") -> Bookmark:
    def text(key: str) -> str:
        value = item.get(key)
        return value if isinstance(value, str) else ""

    kind = text("type") or "unknown"
    path, subpath, query, url = text("path"), text("subpath"), text("query"), text("url")
    shown = text("title") or (f"{path}{subpath}" if path else query or url or kind)
    return Bookmark(kind, shown, path, subpath, query, url, group, where)


def _read(path: Path) -> bytes | None:
    """The file's bytes (None when absent), bounded; never through a symlink or a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | SAFE_OPEN)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BookmarksError(f"{path.name}: cannot read ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(MAX_BOOKMARKS_BYTES + 1)
    if len(data) > MAX_BOOKMARKS_BYTES:
        raise BookmarksError(f"{path.name}: larger than {MAX_BOOKMARKS_BYTES:,} bytes; not read")
    return data


def dump_bookmarks(data: dict[str, Any], newline: bool = False) -> bytes:
    """The bytes Obsidian writes for `data` (two-space JSON, text unescaped)."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n" * newline).encode("utf-8")


def _write(book: BookmarkFile) -> None:
    """Replace the file atomically, only if it still holds the bytes that were read."""
    newline = book.raw is not None and book.raw.endswith(b"\n")
    data = dump_bookmarks(book.data, newline)
    folder = book.path.parent
    temp = folder / f".{book.path.name}.{secrets.token_hex(6)}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(temp, NEW_FILE, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if _read(book.path) != book.raw:
            raise BookmarksError(f"{book.path.name}: changed while being written; try again")
        os.replace(temp, book.path)
    except OSError as exc:
        raise BookmarksError(f"{book.path.name}: cannot write ({exc.strerror})") from None
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()
