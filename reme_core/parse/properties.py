"""A note's frontmatter as Obsidian's Properties panel shows it: one typed row per key.

Each key gets the kind Obsidian would give its value (text, list, number, checkbox, date),
its values as people read them, and the source line it is written on (so a row scrolls,
highlights and opens in an editor like any other line). `render_properties` draws the rows
as rendered lines for the top of the rendered view, links inside values labelled and
followable like the body's. `property_value` turns what a person typed back into a value of
a row's kind, for the one write path (`Workspace.write(metadata=...)`, as `write --meta`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from reme_core.errors import RemeError
from reme_core.parse.frontmatter import frontmatter_lines, split_frontmatter
from reme_core.parse.markdown_render import LinkSpan, RenderedLine, cell_width

_KEY_RE = re.compile(r"""(?:"([^"]+)"|'([^']+)'|([^\s#:'"][^:]*?))[ \t]*:(?:[ \t]|$)""")
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?$")
KINDS = ("text", "list", "number", "checkbox", "date")


@dataclass(frozen=True, slots=True)
class Property:
    """One frontmatter key: its kind, its values as shown (one for all but lists), and the
    1-based lines it is written on (`line` its key, `last` its value's last line)."""

    key: str
    kind: str
    values: tuple[str, ...]
    line: int
    last: int


def kind_of(value: Any) -> str:
    """The Properties kind of a YAML value (bool before number: YAML's true is an int)."""
    if isinstance(value, bool):
        return "checkbox"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, list | tuple):
        return "list"
    if isinstance(value, str) and _DATE_RE.match(value.strip()):
        return "date"
    return "text"


def _shown(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ", timespec="minutes")
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def properties(lines: list[str]) -> list[Property]:
    """The note's frontmatter keys in written order, typed (none when it has no mapping)."""
    end = frontmatter_lines(lines)
    if not end:
        return []
    data = split_frontmatter("\n".join(lines[:end])).data
    if not data:
        return []
    starts: dict[str, int] = {}
    for i in range(1, end - 1):
        m = _KEY_RE.match(lines[i])
        if m:
            starts.setdefault(m.group(1) or m.group(2) or m.group(3), i + 1)
    order = [*sorted(starts.values()), end]
    rows = []
    for key, value in data.items():
        line = starts.get(str(key), 1)
        last = next((n - 1 for n in order if n > line), line)
        kind = kind_of(value)
        values = tuple(_shown(v) for v in value) if kind == "list" else (_shown(value),)
        rows.append(Property(str(key), kind, values, line, max(line, last)))
    return rows


def render_properties(
    lines: list[str],
    links: Sequence[LinkSpan] = (),
    width: Callable[[str], int] = cell_width,
) -> list[RenderedLine]:
    """The Properties panel as rendered lines (none without frontmatter): a row per key,
    `key  kind  value`, list items apart, links shown by label and followable (their
    numbers are those of `links`), each row tied to its key's line."""
    rows = properties(lines)
    if not rows:
        return []
    key_width = max(width(row.key) for row in rows)
    out = [RenderedLine("Properties", 1, [(0, 10, "prop-kind")])]
    for row in rows:
        text = row.key + " " * (key_width - width(row.key) + 2)
        styles = [(0, len(row.key), "prop-key")]
        mark = f"{row.kind:<8}  "
        styles.append((len(text), len(text) + len(mark), "prop-kind"))
        text += mark
        spans = [
            (n, lines[s.line - 1][s.start : s.end], s.label)
            for n, s in enumerate(links)
            if row.line <= s.line <= row.last and s.line <= len(lines)
        ]
        found: list[tuple[int, int, int]] = []
        for k, value in enumerate(row.values):
            if k:
                text += "  ·  "
            if row.kind == "checkbox":
                value = "☑ true" if value == "true" else "☐ false"
            start = len(text)
            text, found = _with_links(text, value, spans, found)
            styles.append((start, len(text), "prop-value"))
        out.append(RenderedLine(text, row.line, styles, found))
    out.append(RenderedLine("─" * 40, rows[-1].last, [(0, 40, "rule")]))
    return out


def _with_links(
    text: str,
    value: str,
    spans: list[tuple[int, str, str]],
    found: list[tuple[int, int, int]],
) -> tuple[str, list[tuple[int, int, int]]]:
    """`value` appended to `text`, each written link in it replaced by its label."""
    pos = 0
    while True:
        hits = [(value.find(raw, pos), n, raw, label) for n, raw, label in spans if raw]
        hits = [h for h in hits if h[0] >= 0]
        if not hits:
            return text + value[pos:], found
        at, n, raw, label = min(hits)
        text += value[pos:at]
        found = [*found, (len(text), len(text) + len(label), n)]
        text += label
        pos = at + len(raw)


def property_value(kind: str, typed: str) -> Any:
    """What a person typed for a property of `kind`, as the value to write: a list from
    comma-separated items, a number, true/false, or the text itself (a date stays its text,
    as Obsidian writes it). RemeError for a value that is not of the kind."""
    typed = typed.strip()
    if kind == "list":
        return [item.strip() for item in typed.split(",") if item.strip()]
    if kind == "number":
        try:
            return int(typed)
        except ValueError:
            try:
                return float(typed)
            except ValueError:
                raise RemeError(f"{typed!r} is not a number") from None
    if kind == "checkbox":
        if typed.lower() in ("true", "yes", "x", "1", "on"):
            return True
        if typed.lower() in ("false", "no", "", "0", "off"):
            return False
        raise RemeError(f"{typed!r} is not true or false")
    if kind == "date" and typed and not _DATE_RE.match(typed):
        raise RemeError(f"{typed!r} is not a date (YYYY-MM-DD)")
    return typed
