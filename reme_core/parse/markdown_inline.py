"""Inline Markdown of one rendered line: emphasis, code, links shown by their label, tags.

The renderer of `markdown_render` calls `render_inline` for each stretch of a source line
(a paragraph line, a heading's text, a table cell). Links found by `find_wikilinks` /
`find_markdown_links` arrive as source spans with the text they show as: each one becomes a
single placeholder character before the inline scan (so `**see [[X]]**` makes a strong link)
and its label afterwards, and the line records where the label landed. Hidden spans (`%%…%%`
comments, block ids) are removed first. Output is plain text plus style names, no UI.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PLACE = 0xE000  # placeholders: private-use characters, one per link of a stretch
_PLACE_RE = re.compile("[\ue000-\uf8ff]")
_SPECIAL_RE = re.compile(r"[`\\*_~=\[<#\ue000-\uf8ff]|://")
# Each alternative is one outer group, so `m.lastgroup` names the token (it closes last).
# An emphasis's text is one character unless more are needed (`??`): a link stands as one
# placeholder, and `**[[a]]** and **[[b]]**` is two strong links, not one span from the first
# `**` to the last with `** and **` shown inside.
_INLINE_RE = re.compile(
    r"(?P<code>(?P<tick>`+)(?P<code_text>.+?)(?<!`)(?P=tick)(?!`))"
    r"|(?P<esc>\\(?P<esc_char>[!-/:-@\[-`{-~]))"
    r"|(?P<strongem>\*\*\*(?P<strongem_text>[^\s*](?:.*?[^\s*])??)\*\*\*)"
    r"|(?P<strong>\*\*(?P<strong_text>\S(?:.*?\S)??)\*\*)"
    r"|(?P<strong2>(?<!\w)__(?P<strong2_text>\S(?:.*?\S)??)__(?!\w))"
    r"|(?P<em>\*(?P<em_text>[^\s*](?:.*?[^\s*])??)\*)"
    r"|(?P<em2>(?<!\w)_(?P<em2_text>[^\s_](?:.*?[^\s_])??)_(?!\w))"
    r"|(?P<strike>~~(?P<strike_text>\S(?:.*?\S)??)~~)"
    r"|(?P<mark>==(?P<mark_text>\S(?:.*?\S)??)==)"
    r"|(?P<link>(?P<img>!)?\[(?P<text>[^\]\n]*)\]\((?P<url>[^)\s]*)(?:\s+\"[^\"]*\")?\))"
    r"|(?P<auto><(?P<auto_url>[a-z][\w+.-]*://[^>\s]+)>)"
    r"|(?P<bare>\bhttps?://[^\s<>()\[\]]+[^\s<>()\[\].,;:!?'\"])"
    r"|(?P<tag>(?<![\w#&/\\])#(?P<tag_name>[\w/-]*[^\W\d][\w/-]*))"
)
_NESTED: dict[str, tuple[str, ...]] = {
    "strong": ("strong",),
    "strong2": ("strong",),
    "em": ("em",),
    "em2": ("em",),
}
_NESTED |= {"strongem": ("strong", "em"), "strike": ("strike",), "mark": ("mark",)}


class LineBuilder:
    """One rendered line being built: text parts, style spans, link positions."""

    __slots__ = ("links", "n", "parts", "styles")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.n = 0
        self.styles: list[tuple[int, int, str]] = []
        self.links: list[tuple[int, int, int]] = []

    def add(self, text: str, styles: Iterable[str] = ()) -> None:
        """Append text under the given style names."""
        if not text:
            return
        start = self.n
        self.parts.append(text)
        self.n += len(text)
        for name in styles:
            self.styles.append((start, self.n, name))

    def add_link(self, label: str, number: int, styles: Iterable[str] = ()) -> None:
        """Append a link's label; the line remembers where link `number` is."""
        start = self.n
        self.add(label or "\u00a0", styles)  # an empty label still takes a cell to select
        self.links.append((start, self.n, number))

    def extend(self, other: LineBuilder, styles: Iterable[str] = ()) -> None:
        """Append another builder's line (a table cell), shifting its spans."""
        base = self.n
        self.parts.extend(other.parts)
        self.n += other.n
        self.styles.extend((s + base, e + base, name) for s, e, name in other.styles)
        self.links.extend((s + base, e + base, k) for s, e, k in other.links)
        for name in styles:
            self.styles.append((base, self.n, name))

    @property
    def text(self) -> str:
        return "".join(self.parts)


def render_inline(
    out: LineBuilder,
    line: str,
    start: int,
    end: int,
    links: list[tuple[int, int, int, str]],
    hidden: list[tuple[int, int]],
    styles: tuple[str, ...] = (),
) -> None:
    """Render `line[start:end]` into `out`; `links` are (start, end, number, label) and
    `hidden` (start, end) spans in source columns, both sorted."""
    if not links and not hidden:
        masked = line[start:end]
        labels: dict[str, tuple[int, str]] = {}
    else:
        masked, labels = _mask(line, start, end, links, hidden)
    if not _SPECIAL_RE.search(masked):
        out.add(masked, styles)
        return
    _emit(out, masked, styles, labels)


def _mask(
    line: str,
    start: int,
    end: int,
    links: list[tuple[int, int, int, str]],
    hidden: list[tuple[int, int]],
) -> tuple[str, dict[str, tuple[int, str]]]:
    """The stretch with each link replaced by one placeholder and hidden spans removed."""
    cuts: list[tuple[int, int, tuple[int, str] | None]] = [
        (s, e, (k, label)) for s, e, k, label in links if s >= start and e <= end
    ]
    cuts += [(s, e, None) for s, e in hidden if e > start and s < end]
    cuts.sort(key=lambda c: (c[0], c[1]))
    parts: list[str] = []
    labels: dict[str, tuple[int, str]] = {}
    pos = start
    for s, e, what in cuts:
        if s < pos:
            continue  # overlapping spans (a link inside a comment): the first wins
        parts.append(line[pos:s])
        if what is not None:
            char = chr(_PLACE + len(labels) % 6400)
            labels[char] = what
            parts.append(char)
        pos = e
    parts.append(line[pos:end])
    return "".join(parts), labels


def _emit(
    out: LineBuilder, text: str, styles: tuple[str, ...], labels: dict[str, tuple[int, str]]
) -> None:
    """Scan `text` for inline tokens, adding plain runs, styled runs and links to `out`."""
    pos = 0
    for m in _INLINE_RE.finditer(text):
        _plain(out, text[pos : m.start()], styles, labels)
        pos = m.end()
        kind = m.lastgroup
        if kind == "code":
            code = m.group("code_text")
            _plain(out, code.strip(" ") or code, (*styles, "code"), labels)
        elif kind == "esc":
            out.add(m.group("esc_char"), styles)
        elif kind in _NESTED:
            _emit(out, m.group(f"{kind}_text"), (*styles, *_NESTED[kind]), labels)
        elif kind == "link":
            label = m.group("text") or m.group("url")
            if m.group("img"):
                out.add(f"[image: {label}]", (*styles, "url"))
            else:
                _emit(out, label, (*styles, "url"), labels)
        elif kind == "auto":
            out.add(m.group("auto_url"), (*styles, "url"))
        elif kind == "bare":
            out.add(m.group("bare"), (*styles, "url"))
        else:
            out.add(f"#{m.group('tag_name')}", (*styles, "tag"))
    _plain(out, text[pos:], styles, labels)


def _plain(
    out: LineBuilder, text: str, styles: tuple[str, ...], labels: dict[str, tuple[int, str]]
) -> None:
    """Add text as is, expanding link placeholders into their labels."""
    if not labels or not _PLACE_RE.search(text):
        out.add(text, styles)
        return
    pos = 0
    for m in _PLACE_RE.finditer(text):
        out.add(text[pos : m.start()], styles)
        found = labels.get(m.group())
        if found is None:
            out.add(m.group(), styles)
        else:
            out.add_link(found[1], found[0], styles)
        pos = m.end()
    out.add(text[pos:], styles)
