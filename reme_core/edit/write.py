"""`write`: create or replace a note's body and merge fields into its frontmatter (seed 003).

An agent rewrites memory through this one call, so it must never lose what it was not asked
to change: keys it does not name keep their exact text and order (comments, quoting, dates
stay as written), and an existing note keeps its body when no new one is given. The file is
written to a hidden temp file in the same folder, then moved over the old one (`atomic_write`),
so a reader (the browser, a watcher, another agent) sees the old note or the new one, never
half of it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reme_core.edit.atomic_write import put_file
from reme_core.edit.file_ops import check_new_path, existing_rel
from reme_core.edit.target import in_scope
from reme_core.errors import PathRefused, RemeError
from reme_core.files.paths import is_ignored, normalize_relpath, resolve_inside
from reme_core.files.text_decode import decode_text, looks_binary
from reme_core.indexing.indexer import Changes
from reme_core.parse.frontmatter import split_frontmatter
from reme_core.query.reading import TRUNCATION_RE

if TYPE_CHECKING:
    from reme_core.ports import EditIndex

# A top-level key starts at column 0; anything else (indented lines, `- item` lines of a
# block sequence, blank lines, comments) continues the key above it.
_CONTINUATION = re.compile(r"(?:[ \t]|-(?:[ \t]|$)|#|$)")
_TRAILER = re.compile(r"(?:#.*|[ \t]*)")  # comment or blank lines kept after a replaced key


@dataclass(slots=True)
class WriteReport:
    """What a write did: the note, whether it is new, which frontmatter keys it set or removed,
    and whether the index holds it (a path outside the indexed folders is written, not indexed)."""

    path: str
    created: bool
    lines: int
    set_keys: list[str] = field(default_factory=list)
    removed_keys: list[str] = field(default_factory=list)
    body_replaced: bool = True
    indexed: bool = True

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (`reme-tui write --json`, the MCP tool)."""
        return {
            "path": self.path,
            "created": self.created,
            "lines": self.lines,
            "set_keys": list(self.set_keys),
            "removed_keys": list(self.removed_keys),
            "body_replaced": self.body_replaced,
            "indexed": self.indexed,
        }


def write(
    ws: EditIndex,
    path: str,
    content: str | None = None,
    name: str | None = None,
    description: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> WriteReport:
    """Create or replace the note at `path` and index it at once.

    `content` is the body (the text after the frontmatter); None keeps an existing body. A
    `content` that starts with its own frontmatter block (what `read` returned, edited) is
    not nested: its keys that differ from the note's are merged like `metadata`.
    `name`, `description` and `metadata` are merged into the frontmatter: `name` and
    `description` win over the same keys in `metadata`, a `metadata` value of None removes
    that key, and every other key stays as written. Raises `PathRefused` for escapes, the
    state folder, ignored or non-Markdown paths, `FileRefused` / `RemeError` for a note that
    cannot be merged safely; nothing is written then.
    """
    updates = _updates(name, description, metadata)
    if content is not None and not isinstance(content, str):
        raise RemeError("content must be text")
    with ws.write_lock:
        rel, old = note_target(ws, path)
        if old is None:
            text, crlf = "", False
        else:
            text, crlf = decode_note(ws.config.encoding, rel, old)
        if content is not None:
            if TRUNCATION_RE.search(content):
                raise RemeError(
                    f"{rel}: content holds read's truncation notice, so it is only part of the "
                    "note; read the rest (start_line=...) first, or change it with edit"
                )
            content, carried = _carried_frontmatter(rel, content, text)
            updates = {**carried, **updates}
        new_text, set_keys, removed = _merge(rel, text, content, updates)
        data = (new_text.replace("\n", "\r\n") if crlf else new_text).encode(ws.config.encoding)
        put_file(ws, rel, data, old)
        indexed = in_scope(ws, rel)
        if indexed:
            ws.apply(Changes(added=[rel]) if old is None else Changes(modified=[rel]))
    return WriteReport(
        rel,
        created=old is None,
        lines=len(new_text.splitlines()),
        set_keys=set_keys,
        removed_keys=removed,
        body_replaced=content is not None,
        indexed=indexed,
    )


def _carried_frontmatter(rel: str, content: str, text: str) -> tuple[str, dict[str, Any]]:
    """`content` without a leading frontmatter block, and that block's keys whose values differ
    from the note's (unchanged keys keep their exact text). A block that is not YAML is
    refused: merging it would guess, nesting it would corrupt the note."""
    block = split_frontmatter(content)
    if not block.end_line:
        return content, {}
    if block.warning:
        raise RemeError(
            f"{rel}: content starts with a frontmatter block that cannot be read "
            f"({block.warning}); send the body alone and the fields as metadata"
        )
    current = split_frontmatter(text).data
    changed = {k: v for k, v in block.data.items() if k not in current or current[k] != v}
    body = "\n".join(content.replace("\r\n", "\n").split("\n")[block.end_line :])
    return body, changed


def _updates(
    name: str | None, description: str | None, metadata: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The keys to set (value) or remove (None), in the order they will be added."""
    if metadata is not None and not isinstance(metadata, Mapping):
        raise RemeError("metadata must be a mapping of frontmatter keys to values")
    updates: dict[str, Any] = {}
    for key, value in (("name", name), ("description", description)):
        if value is not None:
            if not isinstance(value, str):
                raise RemeError(f"{key} must be text")
            updates[key] = value
    for key, value in (metadata or {}).items():
        if not isinstance(key, str) or not key.strip():
            raise RemeError(f"metadata key {key!r}: keys must be non-empty text")
        updates.setdefault(key, value)
    return updates


def note_target(ws: EditIndex, path: str) -> tuple[str, bytes | None]:
    """The checked path and its current bytes (None for a new note)."""
    rel = normalize_relpath(path)
    state = ws.state_dir.name
    if is_ignored(rel, state):
        raise PathRefused(f"{rel}: the index ignores this path ({state}/, dot-files, temp names)")
    if not rel.endswith(".md"):
        raise PathRefused(f"{rel}: write takes Markdown notes; end the path with .md")
    full = resolve_inside(ws.root, rel)
    if not os.path.lexists(full):
        check_new_path(ws, rel)
        return rel, None
    existing_rel(ws, rel)
    if full.is_symlink():
        raise PathRefused(f"{rel}: is a symbolic link; write the file it points to instead")
    try:
        return rel, full.read_bytes()
    except OSError as exc:
        raise RemeError(f"{rel}: cannot read ({exc.strerror})") from None


def decode_note(encoding: str, rel: str, data: bytes) -> tuple[str, bool]:
    """The note's text (strictly decoded: a rewrite must not turn bad bytes into U+FFFD) and
    whether it used CRLF line ends (kept)."""
    if looks_binary(data):
        raise PathRefused(f"{rel}: is a binary file, not a note")
    text, _ = decode_text(data, rel, encoding, "strict")
    return text, b"\r\n" in data


def _merge(
    rel: str, text: str, content: str | None, updates: dict[str, Any]
) -> tuple[str, list[str], list[str]]:
    """The new text of the note, the keys set and the keys removed."""
    fm = split_frontmatter(text)
    lines = text.split("\n")
    if fm.end_line:
        opening, block, closing = lines[0], lines[1 : fm.end_line - 1], lines[fm.end_line - 1]
        old_body = "\n".join(lines[fm.end_line :])
    else:
        opening, block, closing = "---", [], "---"
        old_body = text
    body = old_body if content is None else _body(content)
    set_keys = [k for k, v in updates.items() if v is not None]
    if not updates:
        header = "\n".join([opening, *block, closing]) + "\n" if fm.end_line else ""
        return header + body, [], []
    if fm.warning:
        raise RemeError(f"{rel}: {fm.warning}; fix the frontmatter before merging fields into it")
    new_block, removed = _merge_block(rel, block, updates)
    if not new_block and not fm.end_line:
        return body, set_keys, removed
    return "\n".join([opening, *new_block, closing]) + "\n" + body, set_keys, removed


def _body(content: str) -> str:
    """The body as it will be stored: LF line ends, ending in a newline when not empty."""
    content = content.replace("\r\n", "\n").replace("\r", "\n")
    return content if not content or content.endswith("\n") else content + "\n"


def _merge_block(
    rel: str, block: list[str], updates: dict[str, Any]
) -> tuple[list[str], list[str]]:
    """Frontmatter lines with `updates` applied: a named key's lines replaced in place, new keys
    appended, every other line kept. Checked by parsing the result."""
    segments = _segments(block)
    keys: list[str | None] = [_segment_key(seg) for seg in segments]
    pending = dict(updates)
    out: list[str] = []
    removed: list[str] = []
    for seg, key in zip(segments, keys):
        if key is None or key not in pending:
            out.extend(seg)
            continue
        value = pending.pop(key)
        trailer = _trailer(seg)
        if value is None:
            removed.append(key)
        else:
            out.extend(_dump(rel, key, value))
        out.extend(trailer)
    for key, value in pending.items():
        if value is not None:
            out.extend(_dump(rel, key, value))
    _check(rel, block, out, updates)
    return out, removed


def _segments(block: list[str]) -> list[list[str]]:
    """The frontmatter lines grouped by top-level key (leading comments form their own group)."""
    segments: list[list[str]] = []
    for line in block:
        if segments and _CONTINUATION.match(line):
            segments[-1].append(line)
        else:
            segments.append([line])
    return segments


def _segment_key(segment: list[str]) -> str | None:
    """The one top-level key a group of lines defines, as YAML reads it; None otherwise."""
    import yaml

    try:
        data = yaml.safe_load("\n".join(segment))
    except yaml.YAMLError:
        return None
    if isinstance(data, dict) and len(data) == 1:
        return str(next(iter(data)))
    return None


def _trailer(segment: list[str]) -> list[str]:
    """Comment and blank lines at the end of a key's lines: they belong to what follows."""
    n = len(segment)
    while n > 1 and _TRAILER.fullmatch(segment[n - 1]):
        n -= 1
    return segment[n:]


def _dump(rel: str, key: str, value: Any) -> list[str]:
    import yaml

    try:
        text = yaml.safe_dump({key: value}, allow_unicode=True, sort_keys=False, width=1 << 20)
    except yaml.YAMLError as exc:
        raise RemeError(f"{rel}: {key} cannot be written as YAML ({exc})") from None
    return text.rstrip("\n").split("\n")


def _check(rel: str, old: list[str], new: list[str], updates: dict[str, Any]) -> None:
    """Refuse a merge whose result does not read back as the old mapping plus the updates
    (frontmatter this line-wise merge does not understand, such as a flow mapping)."""
    import yaml

    try:
        before = yaml.safe_load("\n".join(old)) or {}
        after = yaml.safe_load("\n".join(new)) or {}
        expected = {**before}
        for key, value in updates.items():
            if value is None:
                expected.pop(key, None)
            else:
                expected[key] = yaml.safe_load(yaml.safe_dump(value, allow_unicode=True))
        same = isinstance(before, dict) and after == expected
    except (yaml.YAMLError, ValueError, TypeError):
        same = False
    if not same:
        raise RemeError(
            f"{rel}: cannot merge into this frontmatter safely (write block-style YAML keys)"
        )
