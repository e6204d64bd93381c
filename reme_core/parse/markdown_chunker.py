"""Structure-aware Markdown chunks: whole sections when they fit, exact source lines always.

A chunk is a line range of the original file plus a heading skeleton, so a search hit shows
where it stands in the note and `read(path, start, end)` returns its body byte for byte.

The blocks and the section tree come from the line scan in `markdown_blocks`. Sections, then
blocks, then table rows / code lines / list items, then single lines are packed greedily up to
`max_bytes`. Nothing is re-rendered and a line is never cut, so a `[[wikilink]]` (which never
spans lines) is never cut either. A note that fits whole is never scanned at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import accumulate

from reme_core.models import FileChunk
from reme_core.parse.markdown_blocks import (
    FENCE,
    LIST,
    TABLE,
    Block,
    Section,
    Span,
    code_in,
    scan_blocks,
    section_tree,
)


def chunk_markdown(
    path: str, text: str, body_start_line: int = 1, max_bytes: int = 4096
) -> list[FileChunk]:
    """Chunks of a normalised Markdown file; lines before `body_start_line` are frontmatter.

    A chunk holds `max_bytes` UTF-8 bytes (prefix and suffix included) unless it is a single
    line that is larger on its own. Every non-blank body line is in exactly one chunk.
    """
    return chunk_markdown_scanned(path, text, body_start_line, max_bytes)[0]


def chunk_markdown_scanned(
    path: str, text: str, body_start_line: int = 1, max_bytes: int = 4096
) -> tuple[list[FileChunk], list[tuple[int, int]] | None]:
    """`chunk_markdown`, and the block code its scan met (`code_lines` of the body: the link
    and tag finders take it instead of scanning the note again), or None when the note
    fitted whole and was not scanned."""
    if max_bytes < 1:
        raise ValueError("max_bytes must be positive")
    whole = _whole_body(path, text, body_start_line, max_bytes)
    if whole is not None:
        return whole, None
    lines = text.split("\n")
    first = max(body_start_line - 1, 0)
    while not lines[first].strip():
        first += 1
    last = len(lines) - 1
    while not lines[last].strip():
        last -= 1
    chunker = _Chunker(path, text, lines, max_bytes)
    fences: list[tuple[int, int]] = []
    blocks = scan_blocks(lines, first, last + 1, fences)
    chunker.section(section_tree(blocks), [], None)
    return chunker.out, code_in(lines, blocks, fences)


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


def _blen(s: str) -> int:
    """UTF-8 byte length (ASCII fast path); `surrogatepass` so that no text can make it raise."""
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
_Split = Callable[[Span, _Lead | None], None]


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
        """Do lines start..end with `prefix` fit in one chunk?"""
        return self.size(start, end) + _blen(prefix) <= self.max_bytes

    def emit(self, start: int, end: int, prefix: str, suffix: str = "") -> None:
        """Add the chunk of lines start..end (0-based) with its prefix and suffix."""
        body = "\n".join(self.lines[start : end + 1])
        self.out.append(FileChunk(self.path, start + 1, end + 1, body, prefix, suffix))

    def section(self, section: Section, ancestors: list[str], lead: _Lead | None) -> None:
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

        def split(unit: Span, unit_lead: _Lead | None) -> None:
            if isinstance(unit, Section):
                self.section(unit, below, unit_lead)
            elif isinstance(unit, Block):
                self.block(unit, own if unit.start == head_start else inner, unit_lead)

        self.greedy(section.units, head_start, own, inner, split, lead)

    def greedy(
        self,
        units: Sequence[Span],
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

    def block(self, block: Block, prefix: str, lead: _Lead | None) -> None:
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
                items.append(Span(item_start, end))
            self.greedy(items, -1, prefix, prefix, lambda u, ul: self.by_lines(u, prefix, ul), lead)
        else:
            self.by_lines(block, prefix, lead)

    def by_lines(self, unit: Span, prefix: str, lead: _Lead | None) -> None:
        """The last resort: numbered parts of whole non-blank lines."""
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
        """(start, end, prefix, suffix) of each part, leaving room for a `[Part X/N]` marker
        of `width` digits."""
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
