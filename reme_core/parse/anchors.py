"""Line anchors of links (`#L9`, `#L9-L10`, `#L9-L10,L15-L20`): one reading for every caller.

Anchors stay strings everywhere else (SPEC §4); this is where a reader that understands line
anchors turns one into 1-based inclusive ranges.
"""

from __future__ import annotations

import re

_LINE_RANGE = re.compile(r"L(\d+)(?:-L?(\d+))?", re.IGNORECASE)


def line_ranges(anchor: str) -> list[tuple[int, int]]:
    """`L9` -> [(9, 9)], `L12-L9` -> [(9, 12)], `L9-L10,L15-L20` -> both; [] when any part
    is not a line range or names line 0."""
    ranges: list[tuple[int, int]] = []
    for part in anchor.split(","):
        m = _LINE_RANGE.fullmatch(part.strip())
        if not m:
            return []
        start, end = int(m[1]), int(m[2] or m[1])
        if min(start, end) < 1:
            return []
        ranges.append((min(start, end), max(start, end)))
    return ranges
