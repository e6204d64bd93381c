"""YAML frontmatter: a note's metadata block, kept JSON-safe so the store can save it as is."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reme_core.dates import is_iso_date

# `key: plain words`, `key: [a, b]`, `date: 2026-06-20` lines are read without YAML: most
# notes have only such lines, and the result is what yaml.safe_load gives for them.
_SIMPLE_LINE_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):[ ]+(.*?)[ ]*", re.ASCII)
_PLAIN_RE = re.compile(r"[^\W\d_][^#:]*")
_FLOW_PLAIN_RE = re.compile(r"[^\W\d_][^#:,\[\]{}]*")
_KEYWORDS = frozenset(
    form
    for word in ("yes", "no", "true", "false", "on", "off", "null", "y", "n")
    for form in (word, word.upper(), word.title())
)

# Aliases let a few lines of YAML expand into a huge structure; stop well before that.
_MAX_NODES = 20_000


@dataclass(slots=True)
class Frontmatter:
    """The parsed mapping, the line number of the closing `---` (0 when none), any warning."""

    data: dict[str, Any] = field(default_factory=dict)
    end_line: int = 0
    warning: str | None = None


class _TooLarge(Exception):
    """Raised while converting a value that expands past `_MAX_NODES` nodes."""


def _opens(line: str) -> bool:
    return line.rstrip(" \t\r") == "---"


def _closes(line: str) -> bool:
    return line.rstrip(" \t\r") in ("---", "...")


def frontmatter_lines(lines: Sequence[str]) -> int:
    """How many leading lines a YAML block takes (the number of its closing line), 0 when
    there is none: the one rule for where frontmatter ends, for every reader of notes."""
    if not lines or not _opens(lines[0]):
        return 0
    return next((i + 1 for i in range(1, len(lines)) if _closes(lines[i])), 0)


def split_frontmatter(text: str) -> Frontmatter:
    """Find and parse a leading YAML block; broken YAML never stops the body being indexed.

    The block exists only when line 1 is `---` and a later line is `---` or `...`.
    Broken YAML or a non-mapping gives `data={}` and a short warning, `end_line` unchanged.
    """
    first_end = text.find("\n")
    if first_end < 0 or not _opens(text[:first_end]):
        return Frontmatter()
    start = first_end + 1
    pos = start
    line_no = 2
    while True:
        nl = text.find("\n", pos)
        line = text[pos:] if nl < 0 else text[pos:nl]
        if _closes(line):
            return _parse(text[start:pos], line_no)
        if nl < 0:
            return Frontmatter()
        pos = nl + 1
        line_no += 1


def _parse(source: str, end_line: int) -> Frontmatter:
    simple = _simple_mapping(source)
    if simple is not None:
        return Frontmatter(simple, end_line)
    import yaml  # imported on first use: most frontmatter is simple lines (start-up cost)

    try:
        # The C loader is the same safe loader, several times faster (50k files at start-up).
        raw = yaml.load(source, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 2}" if mark is not None else ""
        reason = exc.problem or exc.context or "syntax error"
        return Frontmatter({}, end_line, f"broken YAML frontmatter{where}: {reason}")
    except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
        # Constructors raise plain errors too, e.g. `date: 2024-13-40` gives a ValueError.
        return Frontmatter({}, end_line, f"broken YAML frontmatter: {exc}")
    if raw is None:
        return Frontmatter({}, end_line)
    if not isinstance(raw, dict):
        kind = type(raw).__name__
        return Frontmatter({}, end_line, f"frontmatter is not a mapping (got {kind}); ignored")
    try:
        data = _json_safe(raw, [0], set())
    except (_TooLarge, RecursionError):
        return Frontmatter({}, end_line, "frontmatter is too large or too deeply nested; ignored")
    return Frontmatter(data, end_line)


def _simple_mapping(source: str) -> dict[str, Any] | None:
    """The mapping when every line is a simple `key: value`, else None (then YAML decides)."""
    data: dict[str, Any] = {}
    for line in source.split("\n")[:-1] if source else ():
        m = _SIMPLE_LINE_RE.fullmatch(line)
        if m is None or m[1] in _KEYWORDS:
            return None
        value = m[2]
        if value.startswith("[") and value.endswith("]"):
            items = [item.strip() for item in value[1:-1].split(",")]
            if items == [""]:
                data[m[1]] = []
            elif all(_plain(item, _FLOW_PLAIN_RE) for item in items):
                data[m[1]] = items
            else:
                return None
        elif _plain(value, _PLAIN_RE) or is_iso_date(value):
            data[m[1]] = value
        else:
            return None
    return data


def _plain(value: str, pattern: re.Pattern[str]) -> bool:
    return value not in _KEYWORDS and value.isprintable() and pattern.fullmatch(value) is not None


def _json_safe(value: Any, count: list[int], active: set[int]) -> Any:
    """A copy of `value` made of JSON types: str keys, dates as ISO strings, no cycles."""
    count[0] += 1
    if count[0] > _MAX_NODES:
        raise _TooLarge
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, (dict, list, set, tuple)):
        if id(value) in active:
            return "<recursive>"
        active.add(id(value))
        try:
            if isinstance(value, dict):
                return {_key(k): _json_safe(v, count, active) for k, v in value.items()}
            items = sorted(value, key=str) if isinstance(value, set) else value
            return [_json_safe(v, count, active) for v in items]
        finally:
            active.discard(id(value))
    return str(value)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, (dt.date, dt.time)):
        return key.isoformat()
    return str(key)
