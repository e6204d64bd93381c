"""Markdown rendered as lines for a terminal reader, each one tied to the source line it shows.

A reader that draws only the visible rows needs the rendered note as a list of lines, and
the hits, `#L9` anchors and heading jumps of the source view need to find their place in
it: every `RenderedLine` carries its 1-based source line. Blocks come from the line scan of
`markdown_blocks` (one pass, exact ranges); inline text from `markdown_inline`. Obsidian's
forms are rendered as Obsidian shows them: callouts `> [!note] Title` with type and title,
links by their label (computed by the caller, who knows the targets), `%%comments%%` and
`^block-ids` hidden, tables with every column aligned. Style names are plain strings (`h1`,
`strong`, `callout-warning`, ...) that a UI maps to its own styles.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from reme_core.parse.frontmatter import frontmatter_lines
from reme_core.parse.markdown_blocks import (
    BREAK,
    CODE,
    FENCE,
    HEADING,
    LIST,
    QUOTE,
    TABLE,
    Block,
    code_lines,
    scan_blocks,
)
from reme_core.parse.markdown_inline import LineBuilder, render_inline
from reme_core.parse.markdown_table import Link, table_rows

_ATX_RE = re.compile(r"(#{1,6})(?:[ \t]+|$)")
_CLOSING_RE = re.compile(r"[ \t]+#+[ \t]*$|[ \t]+$")
_LIST_RE = re.compile(r"([-+*]|\d{1,9}[.)])([ \t]+|$)(?:\[([ xX/-])\][ \t]+)?")
_CALLOUT_RE = re.compile(r"\[!([\w-]+)\]([+-]?)[ \t]*(.*)$")
_BLOCK_ID_RE = re.compile(r"[ \t]\^[\w-]+[ \t]*$")
_WIKILINK_RE = re.compile(r"!?\[\[([^\]|#]*)[^\]|]*(?:\|([^\]]*))?\]\]")
_BULLETS = "•◦▪"
_RULE = "─" * 40
# Obsidian's callout types and their aliases, by the colour family they are drawn in.
_CALLOUTS = {
    "info": "note info todo",
    "tip": "tip hint important abstract summary tldr",
    "success": "success check done",
    "question": "question help faq",
    "warning": "warning caution attention",
    "danger": "failure fail missing danger error bug",
    "example": "example",
    "quote": "quote cite",
}
_FAMILY = {name: family for family, names in _CALLOUTS.items() for name in names.split()}
# Every style name a rendered line may carry (a UI declares one style for each).
STYLE_NAMES = frozenset(
    [f"h{level}" for level in range(1, 7)]
    + ["strong", "em", "strike", "mark", "code", "url", "tag", "bullet", "done"]
    + ["quote", "quote-bar", "fence", "rule", "th", "table-rule", "callout-type"]
    + ["callout-title", "embed-frame", "embed-title", "embed-missing"]
    + ["prop-key", "prop-kind", "prop-value"]
    + [f"callout-{family}" for family in _CALLOUTS]
)


@dataclass(frozen=True, slots=True)
class LinkSpan:
    """A link as written (1-based line, 0-based columns) and the text it shows as."""

    line: int
    start: int
    end: int
    label: str


@dataclass(slots=True)
class RenderedLine:
    """One line of the rendered note: its text, style spans, links and source line.

    `styles` are (start, end, style name); `links` (start, end, n) where n indexes the
    `links` given to `render_markdown`. `path` names the file `source` counts in when it
    is not the note rendered (a line shown inside an embed), else it is "".
    """

    text: str
    source: int
    styles: list[tuple[int, int, str]] = field(default_factory=list)
    links: list[tuple[int, int, int]] = field(default_factory=list)
    path: str = ""


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading of the outline: its 1-based line, level and text."""

    line: int
    level: int
    title: str


def body_start(lines: Sequence[str]) -> int:
    """Index of the first line after YAML frontmatter (0 when there is none)."""
    return frontmatter_lines(lines)


def outline(lines: list[str]) -> list[Heading]:
    """The note's headings (ATX and Setext, never in code), for an outline pane."""
    blocks = scan_blocks(lines, body_start(lines), len(lines))
    headings = []
    for b in blocks:
        if b.kind == HEADING:
            builder = LineBuilder()
            title = _WIKILINK_RE.sub(lambda m: m.group(2) or m.group(1), b.skel.lstrip("#"))
            render_inline(builder, title, 0, len(title), [], [])
            headings.append(Heading(b.start + 1, b.info, builder.text.strip()))
    return headings


def cell_width(text: str) -> int:
    """Terminal cells of `text` by East Asian width (a UI passes its own exact measure)."""
    if text.isascii():
        return len(text)
    return sum(
        0
        if unicodedata.combining(c) or c == "\ufe0f"
        else 2
        if unicodedata.east_asian_width(c) in "WF"
        else 1
        for c in text
    )


def render_markdown(
    lines: list[str],
    links: Sequence[LinkSpan] = (),
    width: Callable[[str], int] = cell_width,
) -> list[RenderedLine]:
    """Render a note's lines (frontmatter included, then hidden) into styled lines;
    `width` measures a table cell in terminal cells, to align the columns."""
    first = body_start(lines)
    blocks = scan_blocks(lines, first, len(lines))
    by_line: dict[int, list[Link]] = {}
    for number, link in enumerate(links):
        by_line.setdefault(link.line - 1, []).append((link.start, link.end, number, link.label))
    hidden = _hidden_spans(lines, blocks)
    renderer = _Renderer(lines, by_line, hidden, width)
    previous = first - 1
    for block in blocks:
        if block.start > previous + 1:
            renderer.blank(previous + 1)
        renderer.block(block)
        previous = block.end
    return renderer.out


def _hidden_spans(lines: list[str], blocks: list[Block]) -> dict[int, list[tuple[int, int]]]:
    """Per line, the spans not drawn: `%%comments%%` (across lines too) and `^block-ids`."""
    hidden: dict[int, list[tuple[int, int]]] = {}
    open_at: int | None = None  # a comment open since an earlier line
    for block in blocks:
        if block.kind in (FENCE, CODE):
            continue
        for i in range(block.start, block.end + 1):
            line = lines[i]
            spans: list[tuple[int, int]] = []
            start = 0 if open_at is not None else -1
            pos = line.find("%%")
            while pos != -1:
                if start >= 0:
                    spans.append((start, pos + 2))
                    start, open_at = -1, None
                else:
                    start, open_at = pos, i
                pos = line.find("%%", pos + 2)
            if start >= 0:
                spans.append((start, len(line)))
            if "^" in line and (m := _BLOCK_ID_RE.search(line)):
                spans.append((m.start(), len(line)))
            if spans:
                hidden[i] = spans
    return hidden


class _Renderer:
    """Renders blocks into `out`; one instance per note."""

    def __init__(
        self,
        lines: list[str],
        links: dict[int, list[Link]],
        hidden: dict[int, list[tuple[int, int]]],
        width: Callable[[str], int],
    ) -> None:
        self.width = width
        self.lines = lines
        self.links = links
        self.hidden = hidden
        self.out: list[RenderedLine] = []

    def blank(self, index: int) -> None:
        """One empty line for a run of blank source lines (not two in a row)."""
        if self.out and self.out[-1].text:
            self.out.append(RenderedLine("", index + 1))

    def push(self, builder: LineBuilder, index: int) -> None:
        self.out.append(RenderedLine(builder.text, index + 1, builder.styles, builder.links))

    def inline(
        self, builder: LineBuilder, index: int, start: int, styles: tuple[str, ...] = ()
    ) -> None:
        line = self.lines[index]
        render_inline(
            builder,
            line,
            start,
            len(line),
            self.links.get(index, []),
            self.hidden.get(index, []),
            styles,
        )

    def all_hidden(self, index: int) -> bool:
        """Is the whole line (but blanks) inside a comment?"""
        spans = self.hidden.get(index)
        if not spans:
            return False
        line, pos = self.lines[index], 0
        for start, end in spans:
            if line[pos:start].strip():
                return False
            pos = max(pos, end)
        return not line[pos:].strip()

    def block(self, block: Block) -> None:
        kind = block.kind
        if kind == HEADING:
            self.heading(block)
        elif kind == FENCE:
            self.fence(block)
        elif kind == CODE:
            for i in range(block.start, block.end + 1):
                b = LineBuilder()
                b.add(self.lines[i][4:], ("code",))
                self.push(b, i)
        elif kind == TABLE:
            self.table(block)
        elif kind == QUOTE:
            self.quote(block)
        elif kind == BREAK:
            b = LineBuilder()
            b.add(_RULE, ("rule",))
            self.push(b, block.start)
        else:
            self.text_lines(block, list_block=kind == LIST)

    def heading(self, block: Block) -> None:
        style = (f"h{block.info}",)
        if block.start == block.end:  # ATX: `## Title ##`
            line = self.lines[block.start]
            s = line.lstrip()
            m = _ATX_RE.match(s)
            start = len(line) - len(s) + (m.end() if m else 0)
            end = start + len(_CLOSING_RE.sub("", line[start:]))
            b = LineBuilder()
            hidden = self.hidden.get(block.start, [])
            render_inline(b, line, start, end, self.links.get(block.start, []), hidden, style)
            self.push(b, block.start)
            return
        for i in range(block.start, block.end):  # Setext: the underline is not drawn
            b = LineBuilder()
            line = self.lines[i]
            self.inline(b, i, len(line) - len(line.lstrip()), style)
            self.push(b, i)

    def fence(self, block: Block) -> None:
        closer, (_, length) = block.info
        opener = self.lines[block.start].lstrip()
        b = LineBuilder()
        b.add(f"╭─ {opener[length:].strip()}".rstrip(), ("fence",))
        self.push(b, block.start)
        indent = len(self.lines[block.start]) - len(opener)
        last = closer - 1 if closer != -1 else block.end
        for i in range(block.start + 1, last + 1):
            line = self.lines[i]
            cut = min(indent, len(line) - len(line.lstrip(" ")))
            b = LineBuilder()
            b.add("│ ", ("fence",))
            b.add(line[cut:], ("code",))
            self.push(b, i)
        b = LineBuilder()
        b.add("╰─", ("fence",))
        self.push(b, closer if closer != -1 else block.end)

    def text_lines(self, block: Block, list_block: bool) -> None:
        """Paragraph and list lines, one rendered line each; list markers as bullets."""
        for i in range(block.start, block.end + 1):
            if self.all_hidden(i):
                continue
            line = self.lines[i]
            s = line.lstrip()
            if not s:
                self.blank(i)
                continue
            indent = len(line) - len(s)
            b = LineBuilder()
            m = _LIST_RE.match(s) if list_block else None
            if m is None:
                b.add(" " * indent if list_block else "")
                self.inline(b, i, indent)
            else:
                b.add(" " * indent)
                b.add(self.marker(m, indent), ("bullet",))
                task = m.group(3)
                style = ("done",) if task and task in "xX" else ()
                self.inline(b, i, indent + m.end(), style)
            self.push(b, i)

    @staticmethod
    def marker(m: re.Match[str], indent: int) -> str:
        task = m.group(3)
        if task is not None:
            return "☑ " if task in "xX" else "☐ "
        if m.group(1)[0].isdigit():
            return f"{m.group(1)} "
        return f"{_BULLETS[(indent // 2) % len(_BULLETS)]} "

    def quote(self, block: Block) -> None:
        """Block quotes with a bar per level; `[!type] Title` makes a callout of one. Code
        inside (`> ```css`) is drawn as code: no tags, links or emphasis in it."""
        family: dict[int, str] = {}
        depth = 0
        code = {
            i
            for a, b in code_lines(self.lines, block.start, block.end + 1)
            for i in range(a, b + 1)
        }
        for i in range(block.start, block.end + 1):
            line = self.lines[i]
            s = line.lstrip()
            pos = len(line) - len(s)
            level = 0
            while line.startswith(">", pos):
                level += 1
                pos += 1
                if line.startswith(" ", pos):
                    pos += 1
            depth = level or depth  # a lazy line continues the quote it follows
            for deeper in [k for k in family if k > depth]:
                del family[deeper]
            callout = _CALLOUT_RE.match(line, pos)
            if callout:
                family[depth] = _FAMILY.get(callout.group(1).lower(), "info")
            b = LineBuilder()
            for k in range(1, depth + 1):
                b.add("▌ ", (f"callout-{family[k]}" if k in family else "quote-bar",))
            if i in code:
                b.add(line[pos:], ("code",))
            elif callout:
                self.callout_title(b, i, callout, family[depth])
            elif self.all_hidden(i):
                continue
            else:
                self.inline(b, i, pos, ("quote",) if depth not in family else ())
            self.push(b, i)

    def callout_title(self, b: LineBuilder, index: int, m: re.Match[str], family: str) -> None:
        kind = m.group(1)
        b.add(kind.upper(), (f"callout-{family}", "callout-type"))
        if m.group(3).strip():
            b.add("  ")
            self.inline(b, index, m.start(3), (f"callout-{family}", "callout-title"))

    def table(self, block: Block) -> None:
        """Every column, padded to its widest cell; the delimiter row becomes a rule."""
        rows = table_rows(self.lines, block.start, block.end, self.links, self.hidden, self.width)
        for index, builder in rows:
            self.push(builder, index)
