"""Embeds (`![[Note]]`, `![[Note#Heading]]`, `![[Note#^block]]`) drawn inline in the rendered view.

Obsidian shows an embedded note's text in place; a reader should not have to follow each one.
`expand_embeds` renders a note and, below each embed of a note, the part it names framed and
titled with its source path: the whole body, a heading's section (to the next heading of the
same or a higher level) or a block (the paragraph or list item ending in `^id`). Every
embedded line keeps its own file and line (`RenderedLine.path`, `.source`) and its links their
own note's numbering (`Expanded.links`), so following a link or editing from inside an embed
reaches the embedded file. Embeds stop at `MAX_EMBED_DEPTH` levels and never repeat a note
already being shown (a cycle); a target that is not there says so where the embed is.

Which file an embed names is the caller's: the same resolution as every link (the graph's
`LinkFinder`), handed in through `EmbedNote.embeds` and the `load` callback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from reme_core.parse.markdown_blocks import LIST, scan_blocks
from reme_core.parse.markdown_render import (
    LinkSpan,
    RenderedLine,
    body_start,
    cell_width,
    outline,
    render_markdown,
)

MAX_EMBED_DEPTH = 3
_FRAME = "│ "
_BLOCK_ID_AT_END = re.compile(r"(?:^|[ \t])\^([\w-]+)[ \t]*$")


@dataclass(frozen=True, slots=True)
class EmbedRef:
    """What one embed names: `target` the file it resolves to (None: no such file),
    `anchor` as written (`Heading`, `^id` or ""), `written` the target as written, and
    for an attachment its size in bytes (`size` None for a note)."""

    target: str | None
    anchor: str
    written: str
    attachment: bool = False
    size: int | None = None


@dataclass(frozen=True, slots=True)
class EmbedNote:
    """A note as the expansion reads it: its lines (frontmatter included), its link spans
    labelled as `render_markdown` takes them, and the embeds among them by link number."""

    path: str
    lines: list[str]
    links: Sequence[LinkSpan] = ()
    embeds: Mapping[int, EmbedRef] = field(default_factory=dict)


@dataclass(slots=True)
class Expanded:
    """The rendered lines with embeds drawn in; link n of a line is `links[n]`: (the path of
    the note it is written in, its number among that note's links). The open note's own
    links keep their numbers."""

    lines: list[RenderedLine]
    links: list[tuple[str, int]]


def embed_section(lines: list[str], anchor: str) -> tuple[int, int] | None:
    """The 1-based inclusive source lines an anchor names in a note: its body for "", a
    heading's section, or a `^id` block; None when the note has no such heading or block."""
    first = body_start(lines)
    if not anchor:
        return (first + 1, len(lines)) if len(lines) > first else None
    if anchor.startswith("^"):
        return _block_lines(lines, first, anchor[1:])
    wanted = _heading_key(anchor.split("#")[-1])
    headings = outline(lines)
    for i, heading in enumerate(headings):
        if (
            _heading_key(heading.title) == wanted
            or _heading_key(lines[heading.line - 1].strip().lstrip("#")) == wanted
        ):
            end = len(lines)
            for later in headings[i + 1 :]:
                if later.level <= heading.level:
                    end = later.line - 1
                    break
            return heading.line, end
    return None


def _heading_key(title: str) -> str:
    return " ".join(title.split()).casefold()


def _block_lines(lines: list[str], first: int, block_id: str) -> tuple[int, int] | None:
    """The paragraph or list item whose last line ends in `^id` (or the block just above a
    line holding only `^id`, as Obsidian writes one after a table or a quote)."""
    for i in range(first, len(lines)):
        m = _BLOCK_ID_AT_END.search(lines[i])
        if m is None or m.group(1) != block_id:
            continue
        alone = not lines[i][: m.start()].strip()
        blocks = scan_blocks(lines, first, len(lines))
        if alone:
            above = [b for b in blocks if b.end < i]
            return (above[-1].start + 1, above[-1].end + 1) if above else (i + 1, i + 1)
        for block in blocks:
            if block.start <= i <= block.end:
                if block.kind == LIST:
                    return _list_item(lines, block.start, block.end, i)
                return block.start + 1, block.end + 1
        return i + 1, i + 1
    return None


def _list_item(lines: list[str], start: int, end: int, at: int) -> tuple[int, int]:
    """The list item holding line `at`: from its marker line to before the next line
    indented as little or less."""

    def indent(line: str) -> int:
        return len(line) - len(line.lstrip())

    head = at
    while head > start and (not lines[head].strip() or indent(lines[head]) > indent(lines[at])):
        head -= 1
    if indent(lines[head]) > indent(lines[at]):
        head = at
    last = at
    for j in range(at + 1, end + 1):
        if lines[j].strip() and indent(lines[j]) <= indent(lines[head]):
            break
        last = j
    return head + 1, last + 1


def expand_embeds(
    note: EmbedNote,
    load: Callable[[str], EmbedNote | None],
    width: Callable[[str], int] = cell_width,
    max_depth: int = MAX_EMBED_DEPTH,
    rendered: list[RenderedLine] | None = None,
) -> Expanded:
    """The note rendered with each embed of a note drawn below it (see the module's word).

    `load(path)` gives an embedded note (None when it cannot be read); `rendered` the
    note's own rendering when the caller has it.
    """
    expander = _Expander(load, width, max_depth)
    own = rendered if rendered is not None else render_markdown(note.lines, note.links, width)
    expander.links = [(note.path, n) for n in range(len(note.links))]
    expander.lines_of(note, own, (note.path,), "", root=True)
    return Expanded(expander.out, expander.links)


class _Expander:
    def __init__(
        self, load: Callable[[str], EmbedNote | None], width: Callable[[str], int], depth: int
    ) -> None:
        self.load = load
        self.width = width
        self.depth = depth
        self.out: list[RenderedLine] = []
        self.links: list[tuple[str, int]] = []
        self._notes: dict[str, tuple[EmbedNote, list[RenderedLine]] | None] = {}

    def _note(self, path: str) -> tuple[EmbedNote, list[RenderedLine]] | None:
        if path not in self._notes:
            note = self.load(path)
            self._notes[path] = (
                None
                if note is None
                else (note, render_markdown(note.lines, note.links, self.width))
            )
        return self._notes[path]

    def lines_of(
        self,
        note: EmbedNote,
        rendered: list[RenderedLine],
        chain: tuple[str, ...],
        prefix: str,
        root: bool = False,
    ) -> None:
        """Append `rendered` (lines of `note`) under `prefix`, each embed followed by its frame."""
        numbers = {n: n for n in range(len(note.links))}
        if not root:
            base = len(self.links)
            self.links += [(note.path, n) for n in range(len(note.links))]
            numbers = {n: base + n for n in range(len(note.links))}
        path = "" if root else note.path
        for line in rendered:
            embeds = [(s, e, n) for s, e, n in line.links if n in note.embeds]
            alone = len(embeds) == 1 and not (
                line.text[: embeds[0][0]].strip() or line.text[embeds[0][1] :].strip()
            )
            if not alone:
                self._push(line, prefix, path, numbers)
            for s, e, n in embeds:
                title = (line.text[s:e], numbers[n]) if alone else None
                self.frame(note.embeds[n], chain, prefix, line, path, title)

    def _push(self, line: RenderedLine, prefix: str, path: str, numbers: Mapping[int, int]) -> None:
        shift = len(prefix)
        styles = [(0, shift, "embed-frame")] if prefix else []
        styles += [(s + shift, e + shift, name) for s, e, name in line.styles]
        links = [(s + shift, e + shift, numbers[n]) for s, e, n in line.links]
        self.out.append(RenderedLine(prefix + line.text, line.source, styles, links, path))

    def _say(self, text: str, style: str, at: RenderedLine, path: str) -> RenderedLine:
        line = RenderedLine(text, at.source, [(0, len(text), style)], [], path)
        self.out.append(line)
        return line

    def frame(
        self,
        ref: EmbedRef,
        chain: tuple[str, ...],
        prefix: str,
        at: RenderedLine,
        path: str,
        title: tuple[str, int] | None,
    ) -> None:
        """One embed: a titled frame around the part it names, or one line saying why not."""
        shown = ref.written + (f"#{ref.anchor}" if ref.anchor else "")
        head = prefix + "╭─ "
        label = ref.target or shown
        if ref.anchor and ref.target:
            label += f" > {ref.anchor.lstrip('^')}"
        if ref.attachment and ref.target:
            size = "" if ref.size is None else f" ({_size(ref.size)})"
            label = f"▣ {ref.target}{size}"
            head = prefix + "  "
        line = self._say(head + label, "embed-title", at, path)
        line.styles.insert(0, (0, len(head), "embed-frame"))
        if title is not None:
            line.links.append((len(head), len(line.text), title[1]))
        if ref.attachment and ref.target:
            return
        why = ""
        loaded = self._note(ref.target) if ref.target else None
        section = embed_section(loaded[0].lines, ref.anchor) if loaded else None
        if ref.target is None:
            why = f"⚠ {ref.written or shown} does not exist"
        elif loaded is None:
            why = f"⚠ {ref.target} cannot be read"
        elif section is None:
            why = f"⚠ {ref.target} has no {'block' if ref.anchor[:1] == '^' else 'heading'} "
            why += ref.anchor
        elif ref.target in chain:
            why = f"↻ {ref.target} is already shown above (an embed loop)"
        elif len(chain) > self.depth:
            why = f"… embeds stop at {self.depth} levels"
        inner = prefix + _FRAME
        if why or loaded is None or section is None:
            self._say(inner + why, "embed-missing", at, path).styles.insert(
                0, (0, len(inner), "embed-frame")
            )
        else:
            note, rendered = loaded
            first, last = section
            part = [r for r in rendered if first <= r.source <= last]
            while part and not part[-1].text.strip():
                part.pop()
            self.lines_of(note, part, (*chain, note.path), inner)
        end = self._say(prefix + "╰─", "embed-frame", at, path)
        end.styles[:] = [(0, len(end.text), "embed-frame")]


def _size(size: int) -> str:
    """A file size as people read it: 812 B, 14 KB, 2.3 MB."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size // 1024} KB"
    return f"{size / (1024 * 1024):.1f} MB"
