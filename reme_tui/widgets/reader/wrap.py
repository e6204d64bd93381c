"""Soft wrapping of the reader's lines, measured in cells exactly as rich measures them.

A row must never hold more cells than rich will draw for it, or the row is cropped and
the pane border pushed: widths are taken per grapheme (`rich.cells.split_graphemes`), so an
emoji with a variation selector (🗂️ = U+1F5C2 U+FE0F, two cells) is one unit of two cells,
never split from its selector. Latin text breaks after spaces; CJK text may break between
any two characters, as Obsidian and browsers do.
"""

from __future__ import annotations

import unicodedata

from rich.cells import cell_len, split_graphemes


def _breaks_around(char: str) -> bool:
    """May a line break before or after this character (wide CJK, kana, fullwidth forms)?"""
    return unicodedata.east_asian_width(char) in ("W", "F")


def wrap_cuts(line: str, width: int) -> list[int]:
    """Character offsets where the rows of a soft-wrapped line start (always begins with 0).

    Breaks at the last opportunity in reach (after a space, before or after a wide CJK
    character), else mid-word; a grapheme (a wide character, an emoji and its selector)
    is never split.
    """
    cuts = [0]
    cells = cell_len(line)
    if width < 4 or cells <= width:
        return cuts
    if line.isascii() or (cells == len(line) and "\ufe0f" not in line and "\u200d" not in line):
        # One cell per character (Latin with accents, bullets, box drawing): by offsets.
        pos = 0
        while len(line) - pos > width:
            space = line.rfind(" ", pos + 1, pos + width)
            pos = space + 1 if space > pos else pos + width
            cuts.append(pos)
        return cuts
    spans, _ = split_graphemes(line)
    cells = 0  # cells of the current row, up to the grapheme being placed
    start = 0  # where the current row starts (a character offset)
    brk = -1  # the latest break opportunity in this row (a character offset)
    brk_cells = 0  # cells of the row before `brk`
    for first, end, size in spans:
        char = line[first]
        if cells + size > width and first > start:
            if brk > start:
                start, cells = brk, cells - brk_cells
            else:
                start, cells = first, 0
            cuts.append(start)
            brk = -1
        if first > start and _breaks_around(char):
            brk, brk_cells = first, cells
        cells += size
        if char == " " or _breaks_around(char):
            brk, brk_cells = end, cells
    return cuts
