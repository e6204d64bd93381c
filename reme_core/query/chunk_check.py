"""Stored chunk text is served only when it matches the file it claims to come from.

The database is derived state that a workspace may bring from anywhere: its chunk text could
say anything while the file on disk says something else, and its stored content hash proves
nothing (whoever wrote the rows could compute it). So the first time a chunk is shown, its
body is compared with the file's own lines `start..end` (decoded as indexing decodes them),
and its prefix and suffix (heading skeleton, `[Part k/N]` marker, repeated table header or
code fence) must be lines of that file too. A chunk that does not match is shown as the
file's lines instead; one whose file cannot be read is not shown. Each chunk is checked once
per loaded index: chunks this process indexed itself are known to match.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reme_core.errors import RemeError
from reme_core.files.paths import normalize_relpath, resolve_inside
from reme_core.files.text_decode import decode_text, looks_binary
from reme_core.models import chunk_id
from reme_core.parse.markdown_blocks import HEADING, fence_open, scan_blocks

if TYPE_CHECKING:
    from reme_core.config import Config

# (chunk id, prefix, body, suffix), as `Store.chunk_texts` gives them.
ChunkText = tuple[str, str, str, str]
# (rowid, chunk id, start, end, prefix, body, suffix), as `Store.file_chunks` gives them.
ChunkRow = tuple[int, str, int, int, str, str, str]
_PART = re.compile(r"\[Part \d+/\d+\]")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# Never blocks on a FIFO put where a note was; never follows a symlink unchecked.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class ChunkCheck:
    """Checks chunks against their files for one search (each file is read at most once).

    `checked`: the rowids known to match (`MemoryIndex.checked_rows`), added to as chunks pass;
    `config`: how indexing reads a file (size cap, encoding).
    """

    def __init__(self, root: Path, config: Config, checked: set[int]) -> None:
        self.root = root
        self.config = config
        self.checked = checked
        self._texts: dict[str, str | None] = {}
        self._folders: dict[str, bool] = {}  # folder -> its real path is inside the root

    def text(self, rowid: int, path: str, start: int, end: int, row: ChunkText) -> ChunkText | None:
        """``row`` when it matches the file, else the file's lines ``start..end`` as the chunk
        (no prefix or suffix); None when the file cannot be read or has no such lines."""
        if rowid in self.checked:
            return row
        text = self._file(path)
        if text is None:
            return None
        _, prefix, body, suffix = row
        if _at_lines(text, body, start, end) and _derived(prefix, suffix, text):
            self.checked.add(rowid)
            return row
        disk = "\n".join(text.split("\n")[start - 1 : end])
        if not disk.strip():
            return None
        return chunk_id(path, start, end, disk), "", disk, ""

    def rows(self, path: str, rows: Sequence[ChunkRow]) -> list[ChunkRow]:
        """`Store.file_chunks` rows of one file, each as `text` would show it."""
        out = []
        for rowid, cid, start, end, prefix, body, suffix in rows:
            row = self.text(rowid, path, start, end, (cid, prefix, body, suffix))
            if row is not None:
                out.append((rowid, row[0], start, end, row[1], row[2], row[3]))
        return out

    def _file(self, path: str) -> str | None:
        if path not in self._texts:
            try:
                self._texts[path] = self._read(path)
            except (OSError, RemeError, ValueError):
                self._texts[path] = None
        return self._texts[path]

    def _read(self, path: str) -> str | None:
        """The file's text as indexing decodes it; None when it is not a regular text file
        inside the workspace. What `reading.file_lines` does, with each folder checked once
        (`_inside`) and the file opened without following a symlink (a linked note is
        resolved the slow way): this runs for every hit not checked yet."""
        root, config = self.root, self.config
        rel = normalize_relpath(path)
        folder = rel.rpartition("/")[0]
        inside = self._folders.get(folder)
        if inside is None:
            inside = self._folders[folder] = _inside(str(root), folder)
        if not inside:
            return None
        try:
            fd = os.open(os.path.join(root, rel), _READ_FLAGS)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            fd = os.open(resolve_inside(root, rel), _READ_FLAGS & ~_NOFOLLOW)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > config.max_file_bytes:
                return None
            parts = [os.read(fd, st.st_size + 1)]
            while parts[-1] and sum(map(len, parts)) <= config.max_file_bytes:
                parts.append(os.read(fd, 1 << 16))  # it grew since the fstat
        finally:
            os.close(fd)
        data = b"".join(parts)
        if len(data) > config.max_file_bytes or looks_binary(data):
            return None
        return decode_text(data, rel, config.encoding, config.invalid_encoding_policy)[0]


def _inside(root: str, folder: str) -> bool:
    """Whether a folder below the (resolved) root really is inside it: one `lstat` per
    segment, and the full resolution only when one of them is a symlink."""
    path = root
    for part in folder.split("/") if folder else ():
        path = f"{path}{os.sep}{part}"
        if stat.S_ISLNK(os.lstat(path).st_mode):
            real = os.path.realpath(os.path.join(root, folder))
            return real == root or real.startswith(f"{root}{os.sep}")
    return True


def _at_lines(text: str, body: str, start: int, end: int) -> bool:
    """Whether ``body`` is exactly lines ``start..end`` of ``text`` (found with C-level
    searches, without splitting the file: a few occurrences are tried), or a window of line
    ``start`` when that one line was too long for a chunk (reme_core.parse.text_chunker)."""
    if not body or body.count("\n") != end - start:
        return False
    pos = text.find(body)
    for _ in range(8):
        if pos < 0:
            break
        after = pos + len(body)
        if (
            (pos == 0 or text[pos - 1] == "\n")
            and (after == len(text) or text[after] == "\n")
            and text.count("\n", 0, pos) == start - 1
        ):
            return True
        pos = text.find(body, pos + 1)
    lines = text.split("\n")
    if "\n".join(lines[start - 1 : end]) == body:
        return True
    return start == end and 0 < start <= len(lines) and body in lines[start - 1]


def _derived(prefix: str, suffix: str, text: str) -> bool:
    """Whether a prefix and suffix are made of the file's own lines, as the chunkers make them
    (headings in their one-line `#` form, `[Part k/N]`, a repeated table header or fence line;
    a closing fence: a line of the file, or a bare fence run as the chunker closes an unclosed
    fence with)."""
    if not prefix and not suffix:
        return True
    wrapped = f"\n{text}\n"
    if prefix:
        if not prefix.endswith("\n"):
            return False
        headings: set[str] | None = None
        for line in prefix[:-1].split("\n"):
            if f"\n{line}\n" in wrapped or _PART.fullmatch(line):
                continue
            if headings is None:  # a Setext or indented heading: as the chunker writes it
                lines = text.split("\n")
                blocks = scan_blocks(lines, 0, len(lines))
                headings = {b.skel for b in blocks if b.kind == HEADING}
            if line not in headings:
                return False
    if suffix:
        closer = suffix[1:]
        if not suffix.startswith("\n") or "\n" in closer or not closer.strip():
            return False
        own_line = re.compile(rf"^[ \t]*{re.escape(closer)}[ \t]*$", re.MULTILINE)
        if fence_open(closer) != (closer[0], len(closer)) and own_line.search(text) is None:
            return False
    return True
