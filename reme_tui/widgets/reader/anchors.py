"""Where a link's `#…` anchor points in a note: `#L9-L12` line ranges, `#Heading`, `#^block`."""

from __future__ import annotations

import re

_LINE_ANCHOR_RE = re.compile(r"^L(\d+)(?:-L?(\d+))?$", re.IGNORECASE)


def parse_line_anchor(anchor: str) -> list[tuple[int, int]]:
    """`L9`, `L9-L10` or `L9-L10,L15-L20` → line ranges; anything else → []."""
    ranges: list[tuple[int, int]] = []
    for part in anchor.split(","):
        match = _LINE_ANCHOR_RE.match(part.strip())
        if not match:
            return []
        start = int(match.group(1))
        end = int(match.group(2) or start)
        ranges.append((min(start, end), max(start, end)))
    return ranges


def find_anchor_line(lines: list[str], anchor: str) -> int | None:
    """The 1-based line of a `#Heading` or `#^block` anchor, if the note has it."""
    wanted = anchor.strip().lower()
    if wanted.startswith("^"):
        return next((i for i, ln in enumerate(lines, 1) if ln.rstrip().endswith(anchor)), None)
    for number, line in enumerate(lines, 1):
        stripped = line.lstrip()
        if stripped.startswith("#") and stripped.lstrip("#").strip().lower() == wanted:
            return number
    return None
