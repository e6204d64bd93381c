"""A placed local graph drawn as rows of terminal cells: braille edges under the labels.

Edges are lines of braille dots (2 x 4 per cell, so slopes look smooth at any angle) from a
node's label to its parent's, styled by direction; labels are written over them. Each row
comes out as text plus (start, end, style) spans in character offsets, which the view turns
into styled strips. Pure: the same layout gives the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len

from reme_tui.widgets.graph.layout import Layout

_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))  # [row][column] of a cell


@dataclass(slots=True)
class CanvasRow:
    """One row: its text and style spans (character offsets)."""

    text: str
    spans: list[tuple[int, int, str]]


def draw(
    layout: Layout,
    edges: list[tuple[str, str, str]],
    label_styles: dict[str, str],
) -> list[CanvasRow]:
    """The rows of the picture: `edges` (parent, child, direction) as `edge-<direction>`
    dots, each placed label in its `label_styles` style (default `node`)."""
    width, height = layout.width, layout.height
    dots = [[0] * width for _ in range(height)]
    dot_style: list[list[str]] = [[""] * width for _ in range(height)]
    for a, b, direction in edges:
        pa, pb = layout.placed.get(a), layout.placed.get(b)
        if pa is None or pb is None:
            continue
        (x0, y0), (x1, y1) = pa.centre, pb.centre
        _line(dots, dot_style, x0 * 2 + 1, y0 * 4 + 2, x1 * 2 + 1, y1 * 4 + 2, direction)
    cells: list[list[tuple[str, str]]] = [
        [(chr(0x2800 + d) if d else " ", s) for d, s in zip(dots[y], dot_style[y], strict=True)]
        for y in range(height)
    ]
    for key, placed in layout.placed.items():
        style = label_styles.get(key, "node")
        x = placed.x
        for ch in placed.text:
            w = cell_len(ch)
            if x + w > width:
                break
            cells[placed.y][x] = (ch, style)
            for k in range(1, w):
                cells[placed.y][x + k] = ("", style)  # the second cell of a wide character
            x += w
    return [_row(row) for row in cells]


def _row(cells: list[tuple[str, str]]) -> CanvasRow:
    text = ""
    spans: list[tuple[int, int, str]] = []
    for ch, style in cells:
        if not ch:
            continue
        start = len(text)
        text += ch
        if style:
            if spans and spans[-1][1] == start and spans[-1][2] == style:
                spans[-1] = (spans[-1][0], start + 1, style)
            else:
                spans.append((start, start + 1, style))
    return CanvasRow(text, spans)


def _line(
    dots: list[list[int]],
    styles: list[list[str]],
    x0: int,
    y0: int,
    x1: int,
    y1: int,
    direction: str,
) -> None:
    """Bresenham's line in dot coordinates."""
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
    err = dx + dy
    height, width = len(dots), len(dots[0]) if dots else 0
    style = f"edge-{direction or 'fold'}"
    while True:
        cx, cy = x0 // 2, y0 // 4
        if 0 <= cy < height and 0 <= cx < width:
            dots[cy][cx] |= _BITS[y0 % 4][x0 % 2]
            styles[cy][cx] = style
        if x0 == x1 and y0 == y1:
            return
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy
