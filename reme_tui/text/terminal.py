"""Text bound for a terminal: control characters made visible, so no note can drive it.

A note (or a file name) may hold escape sequences: a terminal title, an OSC 52 clipboard
write, a cursor dance that hides lines. Printed raw by `search` or `read` they would act on
the user's terminal. What goes to a terminal shows them as `cat -v` does (`^[`, `^?`,
`M-^[`), keeping newlines and tabs; piped output stays exact. JSON is exact either way: JSON
escapes control characters itself, and `json_text` escapes the rest (DEL, C1).
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

# C0 but tab and newline, DEL, C1; and lone surrogates, which no terminal encoding can take.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_JSON_RAW = re.compile("[\x7f-\x9f\ud800-\udfff]")  # what json.dumps leaves unescaped


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return "^" + chr(code + 0x40)
    if code == 0x7F:
        return "^?"
    if code < 0xA0:
        return "M-^" + chr(code - 0x40)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of a file name
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control character but newline and tab shown as `cat -v` shows it."""
    return _CONTROL.sub(_shown, text)


def json_text(data: Any) -> str:
    """Indented JSON with no raw control character in it (the same data once parsed)."""
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


class _Visible:
    """A text stream whose writes go through `visible` (other attributes are the stream's)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(visible(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def terminal_safe_stdout() -> Iterator[None]:
    """While it lasts, what is printed to a terminal on stdout shows its control characters;
    a pipe or file gets the exact text."""
    stream = sys.stdout
    if stream is None or not _is_terminal(stream):
        yield
        return
    sys.stdout = _Visible(stream)
    try:
        yield
    finally:
        sys.stdout = stream


def message(text: str) -> None:
    """Print a message on stderr (a warning, an error naming a file), made visible there when
    stderr is a terminal."""
    print(visible(text) if _is_terminal(sys.stderr) else text, file=sys.stderr)
