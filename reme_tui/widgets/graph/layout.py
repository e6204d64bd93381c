"""Where a local graph's nodes go on a grid of terminal cells: rings, angular order, no overlap.

The open note sits in the centre, its direct links on a first ring, their links on a second.
Each ring is ordered by angle around the centre: ring one by folder then name (a folder's
notes stay together), ring two by the angle of the note it hangs from, so its edges stay
short. A label is a box one row high; a label that would cover another is moved a few rows
or columns, then shortened, and only when nothing fits is it left out (`Layout.hidden`).
Pure and deterministic (the same nodes and size give the same picture) and fast: a byte
grid of taken cells, no physics; 200 nodes in a few milliseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rich.cells import cell_len

_SHORTER = (24, 14, 8)  # label lengths tried when the full one does not fit
_NUDGES = [(0, 0)] + [
    (dx, dy) for d in (1, 2, 3) for dy in (-d, d, 0) for dx in ((0,) if dy else (-2 * d, 2 * d))
]


@dataclass(frozen=True, slots=True)
class LayoutNode:
    """A node to place: `ring` 0 (centre), 1 or 2; `order` its angular sort key; `parent`
    (ring 2) the ring-one node it hangs from; `weight` who gets its place first."""

    key: str
    label: str
    ring: int
    order: str = ""
    parent: str = ""
    weight: int = 0


@dataclass(frozen=True, slots=True)
class Placed:
    """A placed label: its first cell `x`, row `y` and the text drawn (maybe shortened)."""

    key: str
    x: int
    y: int
    text: str

    @property
    def width(self) -> int:
        return cell_len(self.text)

    @property
    def centre(self) -> tuple[int, int]:
        return self.x + self.width // 2, self.y


@dataclass(slots=True)
class Layout:
    """The placed labels by key, and the keys left out for want of room."""

    width: int
    height: int
    placed: dict[str, Placed] = field(default_factory=dict)
    hidden: list[str] = field(default_factory=list)


def _shorten(label: str, size: int) -> str:
    if cell_len(label) <= size:
        return label
    out = ""
    for ch in label:
        if cell_len(out + ch) > size - 1:
            break
        out += ch
    return out + "…"


def layout(nodes: list[LayoutNode], width: int, height: int) -> Layout:
    """Place `nodes` on a `width` x `height` grid (see the module's word)."""
    result = Layout(width, height)
    if width < 4 or height < 1 or not nodes:
        result.hidden = [n.key for n in nodes]
        return result
    rings = max(n.ring for n in nodes)
    ideal: dict[str, tuple[float, float]] = {}
    cx, cy = (width - 1) / 2, (height - 1) / 2
    angle: dict[str, float] = {}
    for ring in range(rings + 1):
        members = [n for n in nodes if n.ring == ring]
        if ring == 0:
            for n in members:
                ideal[n.key] = (cx, cy)
            continue
        if ring == 1:
            members.sort(key=lambda n: (n.order, n.key))
        else:
            members.sort(key=lambda n: (angle.get(n.parent, 0.0), n.order, n.key))
        count = len(members)
        longest = max(min(cell_len(n.label), _SHORTER[0]) for n in members)
        rx = max(1.0, (width / 2 - longest / 2 - 1) * ring / rings)
        ry = max(1.0, (height / 2 - 1) * ring / rings)
        turn = math.pi / count if ring == 2 else 0.0  # ring two between ring one's spokes
        for i, n in enumerate(members):
            a = -math.pi / 2 + 2 * math.pi * i / count + turn
            angle[n.key] = a
            ideal[n.key] = (cx + rx * math.cos(a), cy + ry * math.sin(a))
    taken = [bytearray(width) for _ in range(height)]
    for n in sorted(nodes, key=lambda n: (n.ring, -n.weight, n.key)):
        spot = _place(n, ideal[n.key], taken, width, height)
        if spot is None:
            result.hidden.append(n.key)
        else:
            result.placed[n.key] = spot
    return result


def _place(
    node: LayoutNode, at: tuple[float, float], taken: list[bytearray], width: int, height: int
) -> Placed | None:
    """The first free spot near `at` for the node's label, full then shorter; marks it."""
    texts = [node.label] + [_shorten(node.label, s) for s in _SHORTER]
    for text in dict.fromkeys(texts):  # each distinct length once, longest first
        size = cell_len(text)
        if size > width:
            continue
        for dx, dy in _NUDGES:
            y = round(at[1]) + dy
            x = min(max(0, round(at[0] - size / 2) + dx), width - size)
            if not 0 <= y < height:
                continue
            row = taken[y]
            lo, hi = max(0, x - 1), min(width, x + size + 1)  # one cell apart
            if any(row[lo:hi]):
                continue
            row[x : x + size] = b"\x01" * size
            return Placed(node.key, x, y, text)
    return None


_DIRECTIONS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}


def nearest(placed: dict[str, Placed], key: str, direction: str) -> str | None:
    """The node an arrow key moves to from `key`: the closest one lying that way (rows
    count double, a cell being about twice as high as wide), off-axis distance costing
    more; None when nothing lies that way."""
    here = placed.get(key)
    if here is None:
        return None
    ux, uy = _DIRECTIONS[direction]
    x0, y0 = here.centre
    best: tuple[float, str] | None = None
    for other in placed.values():
        if other.key == key:
            continue
        x, y = other.centre
        dx, dy = x - x0, (y - y0) * 2
        along = dx * ux + dy * uy
        if along <= 0:
            continue
        across = abs(dx * uy) + abs(dy * ux)
        if across > 2 * along + 4:  # outside a wide cone that way
            continue
        score = along + 2 * across
        if best is None or (score, other.key) < best:
            best = (score, other.key)
    return best[1] if best else None
