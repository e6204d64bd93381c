"""Where a link's `#…` anchor points in a note: `#L9-L12` line ranges, `#Heading`, `#^block`."""

from __future__ import annotations

from reme_core import line_ranges as parse_line_anchor

__all__ = ["find_anchor_line", "parse_line_anchor"]


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
