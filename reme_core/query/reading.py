"""`read`: a line range of a workspace file, exactly as the chunks count lines."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from reme_core.config import Config
from reme_core.errors import FileRefused, RangeError
from reme_core.files.paths import normalize_relpath, resolve_inside
from reme_core.files.text_decode import decode_text, looks_binary

# `ReadResult.notice`: a text that holds it is part of a note, so writing it back would cut one.
TRUNCATION_RE = re.compile(
    r"^\[truncated at line \d+ of \d+; continue with start_line=\d+\]$", re.MULTILINE
)


@dataclass(slots=True)
class ReadResult:
    """Lines `start_line..end_line` (1-based, inclusive) of `path`, joined with "\\n"."""

    path: str
    start_line: int
    end_line: int
    total_lines: int
    text: str
    truncated: bool = False
    next_start_line: int | None = None

    @property
    def notice(self) -> str:  # TRUNCATION_RE recognises it
        """What to tell a person when the output was cut."""
        if not self.truncated:
            return ""
        return (
            f"[truncated at line {self.end_line} of {self.total_lines}; "
            f"continue with start_line={self.next_start_line}]"
        )


def file_lines(root: Path, path: str, config: Config) -> tuple[str, list[str]]:
    """(normalised path, lines) of a workspace file; refuses escapes, binaries, huge files."""
    rel = normalize_relpath(path)
    target = resolve_inside(root, rel)
    try:
        if not target.is_file():
            raise FileRefused(f"{rel}: no such file in the workspace")
        size = target.stat().st_size
        if size > config.max_file_bytes:
            raise FileRefused(f"{rel}: larger than max_file_bytes ({size} bytes)")
        data = target.read_bytes()
    except OSError as exc:  # a name too long for the file system, a file that went away
        raise FileRefused(f"{rel}: {exc.strerror or exc}") from None
    if looks_binary(data):
        raise FileRefused(f"{rel}: binary file")
    text, _ = decode_text(data, rel, config.encoding, config.invalid_encoding_policy)
    return rel, text.split("\n") if text else []


def read_lines(
    root: Path, path: str, start_line: int | None, end_line: int | None, config: Config
) -> ReadResult:
    """Clamp the range to the file; a start past the end or after the end line is an error."""
    rel, lines = file_lines(root, path, config)
    if lines and lines[-1] == "":
        lines = lines[:-1]
    total = len(lines)
    start = 1 if start_line is None else start_line
    end = total if end_line is None else end_line
    if start < 1:
        start = 1
    if end_line is not None and end_line < 1:
        raise RangeError(f"end_line must be at least 1, got {end_line}")
    if start_line is not None and end_line is not None and start_line > end_line:
        raise RangeError(f"start_line {start_line} is after end_line {end_line}")
    if total == 0:
        if start_line not in (None, 1):
            raise RangeError(f"{rel} is empty; start_line {start_line} is past the end")
        return ReadResult(rel, 1, 0, 0, "")
    if start > total:
        raise RangeError(f"start_line {start} is past the end of {rel} ({total} lines)")
    end = min(end, total)
    truncated = end - start + 1 > config.read_max_lines
    if truncated:
        end = start + config.read_max_lines - 1
    return ReadResult(
        rel,
        start,
        end,
        total,
        "\n".join(lines[start - 1 : end]),
        truncated,
        end + 1 if truncated else None,
    )
