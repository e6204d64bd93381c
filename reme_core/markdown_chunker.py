"""Structure-aware Markdown chunks: whole sections when they fit, exact source lines always.

A chunk is a line range of the original file plus a heading skeleton, so a search hit shows
where it stands in the note and `read(path, start, end)` returns its body byte for byte.

One line scan (CommonMark block rules, GFM tables) finds the top-level blocks: headings (ATX
and Setext, never inside fenced or indented code or list items), paragraphs, lists with their
items, tables, fenced and indented code, quotes and thematic breaks. Headings build the
section tree; sections, then blocks, then table rows / code lines / list items, then single
lines are packed greedily up to `max_bytes`. Nothing is re-rendered and a line is never cut,
so a `[[wikilink]]` (which never spans lines) is never cut either.

The scan stands in for the mistletoe AST because it gives exact line ranges (mistletoe gives
start lines only) at a fraction of the cost: no inline parsing, and a note that fits whole
is never scanned at all. Tests check that it finds the same headings as mistletoe.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any

from reme_core.models import FileChunk

_ATX_RE = re.compile(r"(#{1,6})(?:[ \t]|$)")
_SETEXT_RE = re.compile(r"(?:=+|-+)[ \t]*$")
_THEMATIC_RE = re.compile(r"([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_LIST_RE = re.compile(r"(?:[-+*]|(\d{1,9})[.)])([ \t]+|$)")
_DELIM_RE = re.compile(r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_CELL_SEP_RE = re.compile(r"(?<!\\)\|")
_BLOCK_START = frozenset("#`~-*_>+0123456789")
_PARAGRAPH_ENDS = _BLOCK_START | {"="}

HEADING, PARAGRAPH, LIST, TABLE, FENCE, CODE, QUOTE, BREAK = range(8)


class _Span:
    """A trimmed line range (0-based, inclusive): starts and ends on non-blank lines."""

    __slots__ = ("end", "start")

    def __init__(self, start: int, end: int) -> None:
        self.start = start
        self.end = end


class _Block(_Span):
    """One top-level block. `info`: a heading's level, a list's item starts, a fence's
    (closer line or -1, (char, length)); `skel` a heading's one-line `#` form."""

    __slots__ = ("info", "kind", "skel")

    def __init__(self, kind: int, start: int, end: int, info: Any = None, skel: str = ""):
        self.start = start
        self.end = end
        self.kind = kind
        self.info = info
        self.skel = skel


class _Section(_Span):
    """A heading with everything under it; `units` are its heading, blocks and subsections."""

    __slots__ = ("level", "skel", "units")

    def __init__(self, level: int, skel: str | None) -> None:
        super().__init__(-1, -1)
        self.level = level
        self.skel = skel
        self.units: list[_Span] = []


def chunk_markdown(
    path: str, text: str, body_start_line: int = 1, max_bytes: int = 4096
) -> list[FileChunk]:
    """Chunks of a normalised Markdown file; lines before `body_start_line` are frontmatter.

    A chunk holds `max_bytes` UTF-8 bytes (prefix and suffix included) unless it is a single
    line that is larger on its own. Every non-blank body line is in exactly one chunk.
    """
    if max_bytes < 1:
        raise ValueError("max_bytes must be positive")
    whole = _whole_body(path, text, body_start_line, max_bytes)
    if whole is not None:
        return whole
    lines = text.split("\n")
    first = max(body_start_line - 1, 0)
    while not lines[first].strip():
        first += 1
    last = len(lines) - 1
    while not lines[last].strip():
        last -= 1
    chunker = _Chunker(path, text, lines, max_bytes)
    chunker.section(_tree(_scan(lines, first, last + 1)), [], None)
    return chunker.out


def _whole_body(
    path: str, text: str, body_start_line: int, max_bytes: int
) -> list[FileChunk] | None:
    """The common case without splitting into lines: no body, or a body that fits whole."""
    pos = 0
    for _ in range(body_start_line - 1):
        pos = text.find("\n", pos) + 1
        if not pos:
            return []
    line_no = max(body_start_line, 1)
    while True:  # skip blank lines
        nl = text.find("\n", pos)
        if text[pos : nl if nl >= 0 else len(text)].strip():
            break
        if nl < 0:
            return []
        pos, line_no = nl + 1, line_no + 1
    end = text.find("\n", len(text.rstrip()))
    body = text[pos : end if end >= 0 else len(text)]
    if _blen(body) > max_bytes:
        return None
    return [FileChunk(path, line_no, line_no + body.count("\n"), body)]


# --------------------------------------------------------------------------- the line scan


def _width(line: str, s: str) -> int:
    """Indentation width of `line` whose unindented rest is `s` (tabs to multiples of 4)."""
    k = len(line) - len(s)
    if k and "\t" in line[:k]:
        return len(line[:k].expandtabs(4))
    return k


def _fence_open(s: str) -> tuple[str, int] | None:
    """(char, length) when `s` (already unindented) opens a code fence."""
    ch = s[:1]
    if ch not in ("`", "~"):
        return None
    n = len(s) - len(s.lstrip(ch))
    if n < 3 or (ch == "`" and "`" in s[n:]):
        return None
    return ch, n


def _is_closer(s: str, fence: tuple[str, int]) -> bool:
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
        return _fence_open(s) is not None
    if c == ">" or (c in "-*_" and _THEMATIC_RE.match(s)):
        return True
    m = _LIST_RE.match(s)
    if m is None or not s[m.end() :].strip():
        return False  # an empty list item cannot interrupt a paragraph
    return m.group(1) in (None, "1")


def _cell_count(s: str) -> int:
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


def _scan(lines: list[str], start: int, stop: int) -> list[_Block]:
    """Top-level blocks of `lines[start:stop]`; every non-blank line lands in one block."""
    blocks: list[_Block] = []
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
            block = _Block(CODE, i, _indented_end(lines, i, stop))
        elif c == "#" and (m := _ATX_RE.match(s)):
            block = _Block(HEADING, i, i, len(m.group(1)), s.rstrip())
        elif c in "`~" and (fence := _fence_open(s)):
            end, closer = _fence_end(lines, i + 1, stop, fence, 0)
            block = _Block(FENCE, i, end, (closer, fence))
        elif c in "-*_" and _THEMATIC_RE.match(s):
            block = _Block(BREAK, i, i)
        elif c in "-+*0123456789" and (m := _LIST_RE.match(s)):
            end, items = _list_end(lines, i, stop, ind, s, m)
            block = _Block(LIST, i, end, items)
        elif c == ">":
            block = _Block(QUOTE, i, _quote_end(lines, i, stop))
        elif "|" in s and i + 1 < stop and _starts_table(s, lines[i + 1]):
            block = _Block(TABLE, i, _table_end(lines, i, stop))
        else:
            block = _paragraph(lines, i, stop)
        blocks.append(block)
        i = block.end + 1
    return blocks


def _indented_end(lines: list[str], i: int, stop: int) -> int:
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


def _paragraph(lines: list[str], i: int, stop: int) -> _Block:
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
                return _Block(HEADING, i, j, level, f"{'#' * level} {title}")
            if _interrupts(s) or ("|" in s and j + 1 < stop and _starts_table(s, lines[j + 1])):
                break
        j += 1
    return _Block(PARAGRAPH, i, j - 1)


def _list_end(
    lines: list[str], i: int, stop: int, ind: int, s: str, m: re.Match[str]
) -> tuple[int, list[int]]:
    """(last line, item start lines) of a list starting at line `i`."""
    col = _item_col(ind, s, m)
    fence = _fence_open(s[m.end() :])
    fence_col = col
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
                last, blank = j, False
                continue
            fence = None  # the item holding the fence ended, and the fence with it
        if ind >= col:
            fence, fence_col = _fence_open(s), col
            if fence is None and (m := _LIST_RE.match(s)):  # a nested item opening a fence
                fence, fence_col = _fence_open(s[m.end() :]), _item_col(ind, s, m)
            last, blank = j, False
            continue
        m = _LIST_RE.match(s) if ind < 4 else None
        if m is not None and not _THEMATIC_RE.match(s):
            items.append(j)
            col = fence_col = _item_col(ind, s, m)
            fence = _fence_open(s[m.end() :])
            last, blank = j, False
            continue
        if blank or (ind < 4 and _interrupts(s)):
            break
        last = j  # a lazy continuation line
    return last, items


def _quote_end(lines: list[str], i: int, stop: int) -> int:
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


def _tree(blocks: list[_Block]) -> _Section:
    """Section tree: a heading owns the blocks up to the next heading of its level or above."""
    root = _Section(0, None)
    stack = [root]
    for block in blocks:
        if block.kind == HEADING:
            while stack[-1].level >= block.info:
                _close(stack.pop())
            section = _Section(block.info, block.skel)
            section.units.append(block)
            stack[-1].units.append(section)
            stack.append(section)
        else:
            stack[-1].units.append(block)
    while stack:
        _close(stack.pop())
    return root


def _close(section: _Section) -> None:
    section.start = section.units[0].start
    section.end = section.units[-1].end


# --------------------------------------------------------------------------- packing


def _blen(s: str) -> int:
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


def _skeleton(headings: list[str], max_bytes: int) -> str:
    """Heading lines as a prefix; nearest ones kept when they would take over half the budget."""
    budget = max_bytes // 2
    kept: list[str] = []
    for heading in reversed(headings):
        budget -= _blen(heading) + 1
        if budget < 0:
            break
        kept.append(heading)
    return "".join(f"{h}\n" for h in reversed(kept))


_Lead = tuple[int, int, str]  # (start, end, prefix) of headings waiting for their content
_Split = Callable[[_Span, _Lead | None], None]


class _Chunker:
    """Packs units greedily and splits the ones that do not fit; collects the chunks."""

    def __init__(self, path: str, text: str, lines: list[str], max_bytes: int) -> None:
        self.path = path
        self.lines = lines
        self.max_bytes = max_bytes
        parts = lines if text.isascii() else text.encode("utf-8", "surrogatepass").split(b"\n")
        self.widths = [0, *accumulate(map(len, parts))]
        self.out: list[FileChunk] = []

    def size(self, start: int, end: int) -> int:
        """UTF-8 bytes of lines start..end joined with newlines."""
        return self.widths[end + 1] - self.widths[start] + end - start

    def fits(self, start: int, end: int, prefix: str) -> bool:
        return self.size(start, end) + _blen(prefix) <= self.max_bytes

    def emit(self, start: int, end: int, prefix: str, suffix: str = "") -> None:
        body = "\n".join(self.lines[start : end + 1])
        self.out.append(FileChunk(self.path, start + 1, end + 1, body, prefix, suffix))

    def section(self, section: _Section, ancestors: list[str], lead: _Lead | None) -> None:
        """One chunk when the section fits, else its heading, blocks and subsections packed."""
        own = _skeleton(ancestors, self.max_bytes)
        start, prefix = (lead[0], lead[2]) if lead else (section.start, own)
        if self.fits(start, section.end, prefix):
            self.emit(start, section.end, prefix)
            return
        if section.skel is None:
            inner, head_start, below = own, -1, ancestors
        else:
            below = [*ancestors, section.skel]
            inner, head_start = _skeleton(below, self.max_bytes), section.start

        def split(unit: _Span, unit_lead: _Lead | None) -> None:
            if isinstance(unit, _Section):
                self.section(unit, below, unit_lead)
            else:
                self.block(unit, own if unit.start == head_start else inner, unit_lead)

        self.greedy(section.units, head_start, own, inner, split, lead)

    def greedy(
        self,
        units: Sequence[_Span],
        head_start: int,
        own: str,
        inner: str,
        split: _Split,
        lead: _Lead | None,
    ) -> None:
        """Pack consecutive units; a unit that does not fit alone is split.

        A pack starting at the heading (`head_start`) takes prefix `own`, any other `inner`.
        A pack holding only headings is handed to the split as its lead, so that headings
        open the first part of their content instead of standing alone in a chunk.
        """
        p_start, p_end, p_prefix = lead if lead else (-1, -1, "")
        bare = lead is not None
        for unit in units:
            is_head = unit.start == head_start
            if p_start >= 0 and self.fits(p_start, unit.end, p_prefix):
                p_end, bare = unit.end, bare and is_head
                continue
            prefix = own if is_head else inner
            if self.fits(unit.start, unit.end, prefix):
                if p_start >= 0:
                    self.emit(p_start, p_end, p_prefix)
                p_start, p_end, p_prefix, bare = unit.start, unit.end, prefix, is_head
                continue
            unit_lead = None
            if p_start >= 0:
                if bare:
                    unit_lead = (p_start, p_end, p_prefix)
                else:
                    self.emit(p_start, p_end, p_prefix)
                p_start = -1
            split(unit, unit_lead)
        if p_start >= 0:
            self.emit(p_start, p_end, p_prefix)

    def block(self, block: _Block, prefix: str, lead: _Lead | None) -> None:
        """Split one oversized block by its structure, by lines only as the last resort."""
        lines = self.lines
        if block.kind == TABLE:
            header = block.start
            atoms = [(header, header + 1)] + [(j, j) for j in range(header + 2, block.end + 1)]
            repeat = f"{lines[header]}\n{lines[header + 1]}\n"
            self.pack(atoms, prefix, lead, repeat=repeat)
        elif block.kind == FENCE:
            closer, (ch, n) = block.info
            atoms = [(j, j) for j in range(block.start, block.end + 1) if lines[j].strip()]
            suffix = "\n" + (lines[closer].strip() if closer >= 0 else ch * n)
            repeat = lines[block.start] + "\n"
            self.pack(atoms, prefix, lead, repeat=repeat, suffix=suffix, closer=closer)
        elif block.kind == LIST:
            starts = block.info
            items = []
            for k, item_start in enumerate(starts):
                end = starts[k + 1] - 1 if k + 1 < len(starts) else block.end
                while not lines[end].strip():
                    end -= 1
                items.append(_Span(item_start, end))
            self.greedy(items, -1, prefix, prefix, lambda u, ul: self.by_lines(u, prefix, ul), lead)
        else:
            self.by_lines(block, prefix, lead)

    def by_lines(self, unit: _Span, prefix: str, lead: _Lead | None) -> None:
        lines = self.lines
        atoms = [(j, j) for j in range(unit.start, unit.end + 1) if lines[j].strip()]
        self.pack(atoms, prefix, lead, numbered=True)

    def pack(
        self,
        atoms: list[tuple[int, int]],
        prefix: str,
        lead: _Lead | None,
        *,
        repeat: str = "",
        suffix: str = "",
        closer: int = -1,
        numbered: bool = False,
    ) -> None:
        """Greedy parts of consecutive atoms (line ranges no split may cut).

        Parts after the first add `repeat` (table header, code fence) to the prefix; a part
        not ending on `closer` gets `suffix` (the closing fence); `numbered` parts end their
        prefix with `[Part X/N]`. An atom too large on its own is a part by itself.
        """
        width = 1
        while True:
            parts = self._parts(
                atoms, prefix, lead, repeat, suffix, closer, width if numbered else 0
            )
            if len(str(len(parts))) <= width or not numbered:
                break
            width = len(str(len(parts)))
        if lead is not None and parts[0][0] != lead[0]:
            self.emit(*lead)  # the lead did not fit with the first part
        total = len(parts)
        for k, (start, end, part_prefix, part_suffix) in enumerate(parts, 1):
            if numbered and total > 1:
                part_prefix += f"[Part {k}/{total}]\n"
            self.emit(start, end, part_prefix, part_suffix)

    def _parts(
        self,
        atoms: list[tuple[int, int]],
        prefix: str,
        lead: _Lead | None,
        repeat: str,
        suffix: str,
        closer: int,
        width: int,
    ) -> list[tuple[int, int, str, str]]:
        marker = len("[Part /]\n") + 2 * width if width else 0
        suffix_len = _blen(suffix)
        limit = self.max_bytes - marker

        def cost(start: int, end: int, part_prefix: str) -> int:
            tail = suffix_len if suffix and end != closer else 0
            return self.size(start, end) + _blen(part_prefix) + tail

        parts: list[tuple[int, int, str, str]] = []
        first_start, first_end = atoms[0]
        if lead is not None and cost(lead[0], first_end, lead[2]) <= limit:
            start, end, part_prefix = lead[0], first_end, lead[2]
        else:
            start, end, part_prefix = first_start, first_end, prefix
        for a_start, a_end in atoms[1:]:
            if cost(start, a_end, part_prefix) <= limit:
                end = a_end
                continue
            parts.append((start, end, part_prefix, suffix if end != closer else ""))
            start, end, part_prefix = a_start, a_end, prefix + repeat
        parts.append((start, end, part_prefix, suffix if end != closer else ""))
        return parts
