"""Find wikilinks and local Markdown links in a note, with exact spans, skipping code.

What is block code (fenced, indented, a fence in a list item) is the block scanner's call
(`markdown_blocks.code_lines`, checked against mistletoe); inline code spans are found here.
The indexer runs this over every file, so the common cases are cheap: a text with no `[[`
(or no `](`) returns at once, the link pattern is searched over the whole text, the block
scan runs only once a match needs it and the text has a fence run or an indented line, and
inline code spans are only looked for on lines that hold a candidate link.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from reme_core.parse.frontmatter import frontmatter_lines
from reme_core.parse.markdown_blocks import code_lines


@dataclass(frozen=True, slots=True)
class WikilinkMatch:
    """One `[[...]]` / `![[...]]`: `line` is 1-based, `start`/`end` are 0-based columns
    (end exclusive) of the whole link in that line, `raw` is the exact source text."""

    line: int
    start: int
    end: int
    target: str
    anchor: str
    alias: str
    embed: bool
    raw: str


@dataclass(frozen=True, slots=True)
class MarkdownLinkMatch:
    """One inline `[text](dest)` (or image `![alt](dest)`, then `embed`) to a local file.

    `target` is the URL-decoded destination without its `#fragment`, which is `anchor`;
    `dest` is the destination exactly as written (with `<…>` and fragment), at column
    `dest_start` of the line (what a move rewrites).
    """

    line: int
    start: int
    end: int
    target: str
    anchor: str
    text: str
    raw: str
    embed: bool = False
    dest: str = ""
    dest_start: int = -1


# `[[target#anchor|alias]]` (a `!` before it, checked by hand, makes an embed: a pattern
# starting with a literal is much faster to search for). Bracket-free content means that in
# `[[[x]]]` or `[related:: [[x]]]` the inner link is the one found, and `[[a [b] c]]` is none.
_WIKILINK_RE = re.compile(r"\[\[([^\[\]\n|#]*)(?:#([^\[\]\n|]*))?(?:\|([^\[\]\n]*))?\]\]")

# Inline link: text may hold one level of nested brackets (an image inside a link);
# destination is `<...>` or a run without spaces (balanced parentheses allowed once);
# an optional title follows.
_MDLINK_RE = re.compile(
    r"\[((?:[^\[\]\\\n]|\\.|\[[^\[\]\n]*\])*)\]"
    r"\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)"
)
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_BACKTICKS_RE = re.compile(r"`+")
# A line that may be indented code: at the top, or inside quotes (`>     code`).
_INDENTED_LINE_RE = re.compile(r"\n(?:[ \t]*>[ >\t]*)?(?: {4}| {0,3}\t)")


def find_wikilinks(text: str) -> list[WikilinkMatch]:
    """Every wikilink outside code, in document order.

    `[[#Heading]]` is returned with an empty target so callers can treat it as a same-note
    link; `[[]]` and links without target and anchor are not links.
    """
    if "[[" not in text:
        return []
    found: list[WikilinkMatch] = []
    for m, lineno, line_start in live_matches(text, _WIKILINK_RE):
        target, anchor, alias = m.groups()
        if alias is not None:
            # `\|` escapes the pipe inside a table cell; the backslash is not part of the link.
            if anchor is not None:
                anchor = anchor[:-1] if anchor.endswith("\\") else anchor
            elif target.endswith("\\"):
                target = target[:-1]
            alias = alias.strip()
        target = target.strip()
        anchor = anchor.strip() if anchor else ""
        if not target and not anchor:
            continue
        start = _embed_start(text, m.start(), line_start)
        end = m.end()
        found.append(
            WikilinkMatch(
                lineno,
                start - line_start,
                end - line_start,
                target,
                anchor,
                alias or "",
                start != m.start(),
                text[start:end],
            )
        )
    return found


def find_markdown_links(text: str) -> list[MarkdownLinkMatch]:
    """Inline Markdown links and images to local files, outside code, in document order.

    Destinations with a URL scheme and pure `#fragment` links are skipped; the rest are
    URL-decoded and split into target and anchor. Whether a target stays inside the
    workspace is decided later (`link_resolution.normalize_target`).
    """
    if "](" not in text:
        return []
    found: list[MarkdownLinkMatch] = []
    for m, lineno, line_start in live_matches(text, _MDLINK_RE):
        _add_markdown_link(text, m, lineno, line_start, found)
    found.sort(key=lambda m: (m.line, m.start))
    return found


def _add_markdown_link(
    text: str,
    m: re.Match[str],
    lineno: int,
    line_start: int,
    out: list[MarkdownLinkMatch],
) -> None:
    """Record one link match, and the links inside its text (an image inside a link)."""
    label = m.group(1)
    if "](" in label:
        for inner in _MDLINK_RE.finditer(text, m.start(1), m.end(1)):
            _add_markdown_link(text, inner, lineno, line_start, out)
    written = m.group(2)
    dest = written[1:-1] if written.startswith("<") else written
    dest = dest.strip()
    if not dest or dest.startswith("#") or _SCHEME_RE.match(dest):
        return
    path, _, fragment = dest.partition("#")
    start = _embed_start(text, m.start(), line_start)
    end = m.end()
    out.append(
        MarkdownLinkMatch(
            lineno,
            start - line_start,
            end - line_start,
            unquote(path),
            unquote(fragment),
            label,
            text[start:end],
            start != m.start(),
            written,
            m.start(2) - line_start,
        )
    )


def _embed_start(text: str, bracket: int, line_start: int) -> int:
    """Start of the link: one earlier when an unescaped `!` marks it as an embed."""
    bang = bracket - 1
    if bang >= line_start and text[bang] == "!" and not _escaped(text, bang):
        return bang
    return bracket


def live_matches(text: str, pattern: re.Pattern[str]) -> Iterator[tuple[re.Match[str], int, int]]:
    """Matches outside code and not escaped, as `(match, lineno, line_start)`, in order
    (links here, inline tags in `reme_core.parse.tags`).

    Works on the whole text so lines without a match cost nothing; the block-code mask and
    a line's inline code spans are only computed once a match needs them.
    """
    mask: list[bool] | None = None
    mask_ready = False
    lineno = 1
    counted = 0
    line_start = 0
    line_end = -1
    in_code = False
    spans: list[tuple[int, int]] = []
    for m in pattern.finditer(text):
        pos = m.start()
        if pos > line_end:
            if not mask_ready:
                mask, mask_ready = _block_code_mask(text), True
            lineno += text.count("\n", counted, pos)
            counted = pos
            line_start = text.rfind("\n", 0, pos) + 1
            line_end = text.find("\n", pos)
            if line_end < 0:
                line_end = len(text)
            in_code = mask is not None and mask[lineno - 1]
            spans = []
            if not in_code:
                line = text[line_start:line_end]
                if "`" in line:
                    spans = _code_spans(line)
        if in_code or _escaped(text, pos):
            continue
        if spans and _in_spans(pos - line_start, spans):
            continue
        yield m, lineno, line_start


def _escaped(text: str, pos: int) -> bool:
    """True when the character at `pos` follows an odd run of backslashes."""
    n = 0
    while pos > 0 and text[pos - 1] == "\\":
        n += 1
        pos -= 1
    return n % 2 == 1


def _in_spans(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def _block_code_mask(text: str) -> list[bool] | None:
    """Per line: inside block code, as the block scanner has it (`code_lines`, after the
    frontmatter). None when the text cannot hold any: no fence run and no indented line.

    The last text's mask is kept: parsing a note asks for it up to three times (wikilinks,
    Markdown links, tags), and the scan is the costly part of all three."""
    global _LAST_MASK
    last_text, last_mask = _LAST_MASK
    if text is last_text:
        return last_mask
    mask: list[bool] | None = None
    if "```" in text or "~~~" in text or _INDENTED_LINE_RE.search("\n" + text):
        lines = text.split("\n")
        mask = _mask(len(lines), code_lines(lines, frontmatter_lines(lines), len(lines)))
    _LAST_MASK = (text, mask)
    return mask


def remember_code_lines(text: str, code: list[tuple[int, int]]) -> None:
    """The block code of ``text`` as a scan of it already found (`code_lines` of its body:
    the chunker's scan), so the finders that run next on it need not scan it again."""
    global _LAST_MASK
    _LAST_MASK = (text, _mask(text.count("\n") + 1, code) if code else None)


def _mask(n_lines: int, code: list[tuple[int, int]]) -> list[bool]:
    mask = [False] * n_lines
    for first, last in code:
        mask[first : last + 1] = [True] * (last + 1 - first)
    return mask


# The text `_block_code_mask` last saw, and its mask (a str is immutable: same object, same mask).
_LAST_MASK: tuple[str | None, list[bool] | None] = (None, None)


def _code_spans(line: str) -> list[tuple[int, int]]:
    """Inline code spans of one line as `(start, end)`: a backtick run closed by the next run
    of the same length; an unmatched run is literal text. A backslash can keep a backtick
    from opening a span, but not from closing one (code spans take backslashes literally)."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS_RE.finditer(line)]
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        start, end = runs[i]
        i += 1
        if _escaped(line, start):
            start += 1
        length = end - start
        if length == 0:
            continue
        for j in range(i, len(runs)):
            if runs[j][1] - runs[j][0] == length:
                spans.append((start, runs[j][1]))
                i = j + 1
                break
    return spans
