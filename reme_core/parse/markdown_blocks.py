"""The line scan behind Markdown chunking: top-level blocks with exact line ranges.

One pass over the lines (CommonMark block rules, GFM tables) finds headings (ATX and Setext,
never inside fenced or indented code or list items), paragraphs, lists with their items,
tables, fenced and indented code, quotes and thematic breaks; `section_tree` then nests them
under their headings.

The scan stands in for the mistletoe AST because it gives exact line ranges (mistletoe gives
start lines only) at a fraction of the cost: no inline parsing. mistletoe stays the reference:
tests/test_block_scanner_vs_mistletoe.py checks every heading, fence, list and table boundary
against it on the demo and the public vaults.
"""

from __future__ import annotations

import re
from typing import Any

_ATX_RE = re.compile(r"(#{1,6})(?:[ \t]|$)")
_SETEXT_RE = re.compile(r"(?:=+|-+)[ \t]*$")
_THEMATIC_RE = re.compile(r"([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_LIST_RE = re.compile(r"(?:[-+*]|(\d{1,9})[.)])([ \t]+|$)")
_DELIM_RE = re.compile(r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_CELL_SEP_RE = re.compile(r"(?<!\\)\|")
_BLOCK_START = frozenset("#`~-*_>+0123456789")
_PARAGRAPH_ENDS = _BLOCK_START | {"="}

HEADING, PARAGRAPH, LIST, TABLE, FENCE, CODE, QUOTE, BREAK = range(8)


class Span:
    """A trimmed line range (0-based, inclusive): starts and ends on non-blank lines."""

    __slots__ = ("end", "start")

    def __init__(self, start: int, end: int) -> None:
        self.start = start
        self.end = end


class Block(Span):
    """One top-level block. `info`: a heading's level, a list's item starts, a fence's
    (closer line or -1, (char, length)); `skel` a heading's one-line `#` form."""

    __slots__ = ("info", "kind", "skel")

    def __init__(self, kind: int, start: int, end: int, info: Any = None, skel: str = ""):
        self.start = start
        self.end = end
        self.kind = kind
        self.info = info
        self.skel = skel


class Section(Span):
    """A heading with everything under it; `units` are its heading, blocks and subsections."""

    __slots__ = ("level", "skel", "units")

    def __init__(self, level: int, skel: str | None) -> None:
        super().__init__(-1, -1)
        self.level = level
        self.skel = skel
        self.units: list[Span] = []


def _width(line: str, s: str) -> int:
    """Indentation width of `line` whose unindented rest is `s` (tabs to multiples of 4)."""
    k = len(line) - len(s)
    if k and "\t" in line[:k]:
        return len(line[:k].expandtabs(4))
    return k


def fence_open(s: str) -> tuple[str, int] | None:
    """(char, length) when `s` (already unindented) opens a code fence."""
    ch = s[:1]
    if ch not in ("`", "~"):
        return None
    n = len(s) - len(s.lstrip(ch))
    if n < 3 or (ch == "`" and "`" in s[n:]):
        return None
    return ch, n


def _is_closer(s: str, fence: tuple[str, int]) -> bool:
    """Does the unindented line `s` close `fence` (same char, at least as long, nothing else)?"""
    ch, n = fence
    return s.startswith(ch * n) and not s.rstrip().strip(ch)


def _interrupts(s: str) -> bool:
    """Does the unindented line `s` start a block that ends a paragraph (or a lazy line)?"""
    c = s[0]
    if c not in _BLOCK_START:
        return False
    if c == "#":
        return _ATX_RE.match(s) is not None
    if c in "`~":
        return fence_open(s) is not None
    if c == ">" or (c in "-*_" and _THEMATIC_RE.match(s)):
        return True
    m = _LIST_RE.match(s)
    if m is None or not s[m.end() :].strip():
        return False  # an empty list item cannot interrupt a paragraph
    return m.group(1) in (None, "1")


def _cell_count(s: str) -> int:
    """Cells of a table row; outer pipes and escaped `\\|` do not separate cells."""
    s = s.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return len(_CELL_SEP_RE.split(s))


def _starts_table(s: str, next_line: str) -> bool:
    """GFM: a header row followed by a delimiter row with as many cells."""
    if "|" not in next_line or "-" not in next_line:
        return False
    d = next_line.lstrip()
    if _width(next_line, d) >= 4 or not _DELIM_RE.match(d):
        return False
    return _cell_count(s) == _cell_count(d)


def _item_col(ind: int, s: str, m: re.Match[str]) -> int:
    """Content column of a list item whose marker line is `s` at indentation `ind`."""
    marker_end = ind + m.start(2)
    gap = len(m.group(2).expandtabs(4))
    if not s[m.end() :].strip() or gap > 4:
        return marker_end + 1
    return marker_end + gap


def _marker(s: str, m: re.Match[str]) -> str:
    """What a list item's marker says of its list: the bullet (`-`, `+`, `*`), or an ordered
    item's delimiter (`.`, `)`). An item with another marker starts a new list."""
    return s[0] if m.group(1) is None else s[m.end(1)]


def scan_blocks(
    lines: list[str], start: int, stop: int, fences: list[tuple[int, int]] | None = None
) -> list[Block]:
    """Top-level blocks of `lines[start:stop]`; every non-blank line lands in one block.

    `fences`, when given, receives the (first, last) lines of each fenced code block inside
    a list item (top-level fences are FENCE blocks)."""
    blocks: list[Block] = []
    i = start
    while i < stop:
        line = lines[i]
        s = line.lstrip()
        if not s:
            i += 1
            continue
        c = s[0]
        if c not in _BLOCK_START and "|" not in s and not line[0].isspace():
            block = _paragraph(lines, i, stop)  # the common case, decided cheaply
        elif (ind := _width(line, s)) >= 4:
            block = Block(CODE, i, _indented_end(lines, i, stop))
        elif c == "#" and (m := _ATX_RE.match(s)):
            block = Block(HEADING, i, i, len(m.group(1)), s.rstrip())
        elif c in "`~" and (fence := fence_open(s)):
            end, closer = _fence_end(lines, i + 1, stop, fence, 0)
            block = Block(FENCE, i, end, (closer, fence))
        elif c in "-*_" and _THEMATIC_RE.match(s):
            block = Block(BREAK, i, i)
        elif c in "-+*0123456789" and (m := _LIST_RE.match(s)):
            end, items = _list_end(lines, i, stop, ind, s, m, fences)
            block = Block(LIST, i, end, items)
        elif c == ">":
            block = Block(QUOTE, i, _quote_end(lines, i, stop))
        elif "|" in s and i + 1 < stop and _starts_table(s, lines[i + 1]):
            block = Block(TABLE, i, _table_end(lines, i, stop))
        else:
            block = _paragraph(lines, i, stop)
        blocks.append(block)
        i = block.end + 1
    return blocks


def code_lines(lines: list[str], start: int, stop: int) -> list[tuple[int, int]]:
    """(first, last) lines of the code in `lines[start:stop]`: fenced and indented code
    blocks, also inside list items, block quotes and callouts (`> ```css`), at any depth up
    to `_MAX_NESTING`. The one rule for what is block code (the link and tag finders skip it)."""
    fences: list[tuple[int, int]] = []
    return code_in(lines, scan_blocks(lines, start, stop, fences), fences)


def code_in(
    lines: list[str], blocks: list[Block], fences: list[tuple[int, int]], depth: int = 0
) -> list[tuple[int, int]]:
    """`code_lines` of a scan of `lines` already made: the list items' fences it collected,
    its fenced and indented code blocks, then the code inside its quotes and list items
    (each container's lines stripped of their markers or indentation and scanned again)."""
    out = fences + [(b.start, b.end) for b in blocks if b.kind == FENCE or b.kind == CODE]
    if depth >= _MAX_NESTING:
        return out
    for b in blocks:
        if b.kind == QUOTE and _may_hold_more_code(lines, b):
            inner = [_unquote(lines[j]) for j in range(b.start, b.end + 1)]
            out += _shifted(_nested_code(inner, depth), b.start)
        elif b.kind == LIST and _may_hold_more_code(lines, b):
            known = set(out)
            for first, last in _items(b):
                inner = _item_lines(lines, first, last)
                found = _shifted(_nested_code(inner, depth), first)
                out += [span for span in found if span not in known]
    return out


# Containers nested deeper than this are not looked into for code (bounded work per line:
# a line of a thousand `>` is not a thousand scans).
_MAX_NESTING = 8
# What code in a container needs: a fence, or an indented line after a (quoted) blank one.
_INDENTED_AFTER_BLANK_RE = re.compile(r"\n[ \t>]*\n[ \t>]*?(?: {4}|\t)")
_CODE_HINT_RE = re.compile(r"```|~~~|" + _INDENTED_AFTER_BLANK_RE.pattern)


def _nested_code(inner: list[str], depth: int) -> list[tuple[int, int]]:
    """The code of a container's stripped lines, found as at the top."""
    fences: list[tuple[int, int]] = []
    return code_in(inner, scan_blocks(inner, 0, len(inner), fences), fences, depth + 1)


def _shifted(spans: list[tuple[int, int]], by: int) -> list[tuple[int, int]]:
    return [(first + by, last + by) for first, last in spans]


def _unquote(line: str) -> str:
    """A quote's line without its `>` (and the one space after it); a lazy line as it is."""
    s = line.lstrip()
    if not s.startswith(">") or _width(line, s) >= 4:
        return s
    rest = s[1:]
    if rest[:1] == " ":
        return rest[1:]
    if rest[:1] == "\t":
        return "  " + rest[1:]  # the tab's columns past the optional space
    return rest


def _may_hold_more_code(lines: list[str], b: Block) -> bool:
    """Whether a quote or list may hold code its scan did not collect: a cheap test before
    scanning its lines again. A quote: a fence, or an indented line after a blank one (or
    first); a list (whose own fences the scan collected): the same, and for a fence a quote."""
    text = "\n".join(lines[b.start : b.end + 1])
    if b.kind == QUOTE:
        return _CODE_HINT_RE.search("\n\n" + text) is not None
    if ">" in text:
        return _CODE_HINT_RE.search("\n" + text) is not None
    return _INDENTED_AFTER_BLANK_RE.search(text) is not None


def _items(b: Block) -> list[tuple[int, int]]:
    """(first, last) lines of each item of a list block."""
    starts: list[int] = b.info
    return [
        (first, starts[n + 1] - 1 if n + 1 < len(starts) else b.end)
        for n, first in enumerate(starts)
    ]


def _item_lines(lines: list[str], first: int, last: int) -> list[str]:
    """A list item's lines with its marker and content indentation taken away."""
    line = lines[first]
    s = line.lstrip()
    ind = _width(line, s)
    m = _LIST_RE.match(s)
    assert m is not None  # the scan started an item here
    col = _item_col(ind, s, m)
    rest = s[m.end() :]
    gap = len(m.group(2).expandtabs(4))
    head = " " * (gap - 1) + rest.lstrip() if gap > 4 and rest.strip() else rest.lstrip()
    out = [head]
    for j in range(first + 1, last + 1):
        line = lines[j]
        s = line.lstrip()
        width = _width(line, s)
        out.append(" " * (width - col) + s if width >= col else s)
    return out


def _indented_end(lines: list[str], i: int, stop: int) -> int:
    """Last line of indented code from line `i` (blank lines inside it do not end it)."""
    end = i
    for j in range(i + 1, stop):
        line = lines[j]
        s = line.lstrip()
        if s:
            if _width(line, s) < 4:
                break
            end = j
    return end


def _fence_end(
    lines: list[str], j: int, stop: int, fence: tuple[str, int], col: int
) -> tuple[int, int]:
    """(last line, closer line or -1) of a fence opened before `j` in a container at `col`."""
    last = j - 1
    ch = fence[0]
    while j < stop:
        line = lines[j]
        s = line.lstrip()
        if s:
            if col or s[0] == ch:
                ind = _width(line, s)
                if ind < col:
                    break
                if ind - col < 4 and _is_closer(s, fence):
                    return j, j
            last = j
        j += 1
    return last, -1


def _paragraph(lines: list[str], i: int, stop: int) -> Block:
    """A paragraph from line `i`, or a Setext heading when an underline closes it."""
    j = i + 1
    while j < stop:
        line = lines[j]
        s = line.lstrip()
        if not s:
            break
        c = s[0]
        if (c in _PARAGRAPH_ENDS or "|" in s) and _width(line, s) < 4:
            if c in "=-" and _SETEXT_RE.match(s):
                level = 1 if c == "=" else 2
                title = " ".join(part.strip() for part in lines[i:j])
                return Block(HEADING, i, j, level, f"{'#' * level} {title}")
            if _interrupts(s) or ("|" in s and j + 1 < stop and _starts_table(s, lines[j + 1])):
                break
        j += 1
    return Block(PARAGRAPH, i, j - 1)


def _list_end(
    lines: list[str],
    i: int,
    stop: int,
    ind: int,
    s: str,
    m: re.Match[str],
    fences: list[tuple[int, int]] | None = None,
) -> tuple[int, list[int]]:
    """(last line, item start lines) of a list starting at line `i`; the fences inside its
    items go to `fences` when given."""
    col = _item_col(ind, s, m)
    marker = _marker(s, m)
    fence = fence_open(s[m.end() :])
    fence_col = col
    opened = i  # the line that opened `fence`
    items = [i]
    last = i
    blank = False
    for j in range(i + 1, stop):
        line = lines[j]
        s = line.lstrip()
        if not s:
            blank = True
            continue
        ind = _width(line, s)
        if fence is not None:
            if ind >= fence_col:
                if ind - fence_col < 4 and _is_closer(s, fence):
                    fence = None
                    if fences is not None:
                        fences.append((opened, j))
                last, blank = j, False
                continue
            fence = None  # the item holding the fence ended, and the fence with it
            if fences is not None:
                fences.append((opened, last))
        if ind >= col:
            fence, fence_col, opened = fence_open(s), col, j
            nested = _LIST_RE.match(s) if fence is None else None
            if nested is not None:  # a nested item opening a fence
                fence, fence_col = fence_open(s[nested.end() :]), _item_col(ind, s, nested)
            last, blank = j, False
            continue
        item = _LIST_RE.match(s) if ind < 4 else None
        if item is not None and not _THEMATIC_RE.match(s):
            if _marker(s, item) != marker:
                break
            items.append(j)
            col = fence_col = _item_col(ind, s, item)
            fence, opened = fence_open(s[item.end() :]), j
            last, blank = j, False
            continue
        if blank or (ind < 4 and _interrupts(s)):
            break
        last = j  # a lazy continuation line
    if fence is not None and fences is not None:
        fences.append((opened, last))  # an unclosed fence ends with its list
    return last, items


def _quote_end(lines: list[str], i: int, stop: int) -> int:
    """Last line of a block quote from line `i`, lazy continuation lines included."""
    last = i
    for j in range(i + 1, stop):
        line = lines[j]
        s = line.lstrip()
        if not s:
            break
        if s[0] != ">" and s[0] in _BLOCK_START and _width(line, s) < 4 and _interrupts(s):
            break
        last = j
    return last


def _table_end(lines: list[str], i: int, stop: int) -> int:
    """Last row of a table whose header is line `i` (the delimiter row is `i + 1`)."""
    last = i + 1
    for j in range(i + 2, stop):
        line = lines[j]
        s = line.lstrip()
        if not s or "|" not in s:
            break
        if s[0] in _BLOCK_START and _width(line, s) < 4 and _interrupts(s):
            break
        last = j
    return last


def section_tree(blocks: list[Block]) -> Section:
    """Section tree: a heading owns the blocks up to the next heading of its level or above."""
    root = Section(0, None)
    stack = [root]
    for block in blocks:
        if block.kind == HEADING:
            while stack[-1].level >= block.info:
                _close(stack.pop())
            section = Section(block.info, block.skel)
            section.units.append(block)
            stack[-1].units.append(section)
            stack.append(section)
        else:
            stack[-1].units.append(block)
    while stack:
        _close(stack.pop())
    return root


def _close(section: Section) -> None:
    """Give a finished section the line range of its units."""
    section.start = section.units[0].start
    section.end = section.units[-1].end
