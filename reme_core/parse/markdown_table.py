"""GFM tables rendered for a terminal: every column, each padded to its widest cell.

A part of `markdown_render`: each row stays one line tied to its source line (the delimiter
row becomes a rule), cells are rendered inline (links keep their places), and widths are
measured by the caller's cell measure, so CJK cells line up.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from reme_core.parse.markdown_inline import LineBuilder, render_inline

Link = tuple[int, int, int, str]  # (start, end, number, label) in one source line
_CELL_RE = re.compile(r"(?<!\\)\|")


def table_rows(
    lines: list[str],
    start: int,
    end: int,
    links: dict[int, list[Link]],
    hidden: dict[int, list[tuple[int, int]]],
    width: Callable[[str], int],
) -> list[tuple[int, LineBuilder]]:
    """(0-based source line, rendered line) for the table on lines `start..end`."""
    rows: list[tuple[int, list[LineBuilder]]] = []
    for i in range(start, end + 1):
        if i != start + 1:
            rows.append((i, _cells(lines[i], links.get(i, []), hidden.get(i, []), i == start)))
    delimiter = lines[start + 1]
    aligns = [_align(delimiter[a:b]) for a, b in _split_cells(delimiter, [])]
    columns = max(len(cells) for _, cells in rows)
    widths = [0] * columns
    for _, cells in rows:
        for c, cell in enumerate(cells):
            widths[c] = max(widths[c], width(cell.text))
    out: list[tuple[int, LineBuilder]] = []
    for i, cells in rows:
        b = LineBuilder()
        for c in range(columns):
            cell = cells[c] if c < len(cells) else LineBuilder()
            gap = widths[c] - width(cell.text)
            align = aligns[c] if c < len(aligns) else "left"
            left = gap // 2 if align == "center" else gap if align == "right" else 0
            if c:
                b.add(" │ ", ("table-rule",))
            b.add(" " * left)
            b.extend(cell)
            b.add(" " * (gap - left))
        out.append((i, b))
        if i == start:
            rule = LineBuilder()
            rule.add("─┼─".join("─" * w for w in widths), ("table-rule",))
            out.append((start + 1, rule))
    return out


def _cells(
    line: str, links: list[Link], hidden: list[tuple[int, int]], header: bool
) -> list[LineBuilder]:
    cells = []
    for start, end in _split_cells(line, links):
        b = LineBuilder()
        inside = [link for link in links if start <= link[0] and link[1] <= end]
        render_inline(b, line, start, end, inside, hidden, ("th",) if header else ())
        cells.append(b)
    return cells


def _split_cells(line: str, links: list[Link]) -> list[tuple[int, int]]:
    """Cell spans (trimmed) of a table row: unescaped pipes outside links separate cells."""
    seps = [
        m.start()
        for m in _CELL_RE.finditer(line)
        if not any(s <= m.start() < e for s, e, _, _ in links)
    ]
    left = len(line) - len(line.lstrip())
    right = len(line.rstrip())
    if seps and seps[0] == left:
        left = seps.pop(0) + 1
    if seps and seps[-1] == right - 1:
        right = seps.pop()
    bounds = [left - 1, *seps, right]
    spans = []
    for a, b in pairwise(bounds):
        cell = line[a + 1 : b]
        lead = len(cell) - len(cell.lstrip())
        spans.append((a + 1 + lead, a + 1 + len(cell.rstrip())))
    return spans


def _align(cell: str) -> str:
    """`:--`, `:-:` or `--:` of a delimiter cell."""
    if cell.endswith(":"):
        return "center" if cell.startswith(":") else "right"
    return "left"
