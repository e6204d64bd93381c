"""Find wikilinks and local Markdown links in a note, with exact spans, skipping code.

The indexer runs this over every file, so the common cases are cheap: a text with no
`[[` (or no `](`) returns at once, block-level code is found in one pass over the lines,
and inline code spans are only looked for on lines that hold a candidate link.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote


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

    `target` is the URL-decoded destination without its `#fragment`, which is `anchor`.
    """

    line: int
    start: int
    end: int
    target: str
    anchor: str
    text: str
    raw: str
    embed: bool = False


# `[[` + content without brackets or newlines + `]]`. Bracket-free content means that in
# `[[[x]]]` or `[related:: [[x]]]` the inner link is the one found, and `[[a [b] c]]` is none.
_WIKILINK_RE = re.compile(r"\[\[([^\[\]\n]*)\]\]")

# Inline link: text may hold one level of nested brackets (an image inside a link);
# destination is `<...>` or a run without spaces (balanced parentheses allowed once);
# an optional title follows.
_MDLINK_RE = re.compile(
    r"\[((?:[^\[\]\\\n]|\\.|\[[^\[\]\n]*\])*)\]"
    r"\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)"
)
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_FENCE_RE = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")
_LIST_ITEM_RE = re.compile(r"[ \t]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_ATX_HEADING_RE = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_BACKTICKS_RE = re.compile(r"`+")


def find_wikilinks(text: str) -> list[WikilinkMatch]:
    """Every wikilink outside code, in document order.

    `[[#Heading]]` is returned with an empty target so callers can treat it as a same-note
    link; `[[]]` and links without target and anchor are not links.
    """
    if "[[" not in text:
        return []
    found: list[WikilinkMatch] = []
    for lineno, line, spans in _candidate_lines(text, "[["):
        for m in _WIKILINK_RE.finditer(line):
            start = m.start()
            if _escaped(line, start) or _in_spans(start, spans):
                continue
            target, anchor, alias = _split_wikilink(m.group(1))
            if not target and not anchor:
                continue
            embed = start > 0 and line[start - 1] == "!" and not _escaped(line, start - 1)
            if embed:
                start -= 1
            found.append(
                WikilinkMatch(
                    lineno, start, m.end(), target, anchor, alias, embed, line[start : m.end()]
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
    for lineno, line, spans in _candidate_lines(text, "]("):
        _scan_markdown_links(line, lineno, 0, len(line), spans, found)
    found.sort(key=lambda m: (m.line, m.start))
    return found


def _scan_markdown_links(
    line: str,
    lineno: int,
    pos: int,
    endpos: int,
    spans: list[tuple[int, int]],
    out: list[MarkdownLinkMatch],
) -> None:
    """Collect links in `line[pos:endpos]`, descending into link text (image inside a link)."""
    for m in _MDLINK_RE.finditer(line, pos, endpos):
        start = m.start()
        if _escaped(line, start) or _in_spans(start, spans):
            continue
        embed = start > 0 and line[start - 1] == "!" and not _escaped(line, start - 1)
        if embed:
            start -= 1
        if "](" in m.group(1):
            _scan_markdown_links(line, lineno, m.start(1), m.end(1), spans, out)
        dest = m.group(2)
        if dest.startswith("<"):
            dest = dest[1:-1]
        dest = dest.strip()
        if not dest or dest.startswith("#") or _SCHEME_RE.match(dest):
            continue
        path, _, fragment = dest.partition("#")
        out.append(
            MarkdownLinkMatch(
                lineno,
                start,
                m.end(),
                unquote(path),
                unquote(fragment),
                m.group(1),
                line[start : m.end()],
                embed,
            )
        )


def _split_wikilink(inner: str) -> tuple[str, str, str]:
    """`target#anchor|alias` -> stripped parts. `\\|` (a pipe escaped for a table cell)
    separates the alias too, and its backslash is not part of the target."""
    head, bar, alias = inner.partition("|")
    if bar and head.endswith("\\"):
        head = head[:-1]
    target, _, anchor = head.partition("#")
    return target.strip(), anchor.strip(), alias.strip()


def _escaped(line: str, pos: int) -> bool:
    """True when the character at `pos` follows an odd run of backslashes."""
    n = 0
    while pos > 0 and line[pos - 1] == "\\":
        n += 1
        pos -= 1
    return n % 2 == 1


def _in_spans(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def _candidate_lines(text: str, needle: str) -> Iterator[tuple[int, str, list[tuple[int, int]]]]:
    """Yield `(lineno, line, code_spans)` for non-code lines that contain `needle`."""
    lines = text.split("\n")
    code = _block_code_mask(lines)
    for i, line in enumerate(lines):
        if needle in line and not (code and code[i]):
            spans = _code_spans(line) if "`" in line else []
            yield i + 1, line, spans


def _frontmatter_end(lines: list[str]) -> int:
    """Index of the closing `---` of a leading YAML block, or -1. Frontmatter is not code."""
    if not lines or lines[0].rstrip() != "---":
        return -1
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return i
    return -1


def _indent(line: str) -> int:
    """Leading whitespace width, tabs to the next multiple of 4 (CommonMark)."""
    width = 0
    for ch in line:
        if ch == " ":
            width += 1
        elif ch == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def _block_code_mask(lines: list[str]) -> list[bool] | None:
    """Per line: inside a fenced or indented code block. None when the text cannot hold any.

    Indented code needs a blank line (or a heading, a closed fence, the start of the body)
    before it and no open list, since an indented line after a list item is its continuation.
    """
    fm_end = _frontmatter_end(lines)
    body = lines[fm_end + 1 :]
    has_fence = any(("```" in ln or "~~~" in ln) for ln in body)
    has_indent = any(ln[:1] == "\t" or ln[:4] == "    " for ln in body)
    if not has_fence and not has_indent:
        return None

    mask = [False] * len(lines)
    fence_char = ""
    fence_len = fence_indent = 0
    in_indented = in_list = False
    prev_blank = prev_allows_code = True  # the start of the body counts as after a blank
    for i in range(fm_end + 1, len(lines)):
        line = lines[i]
        width = _indent(line)
        if fence_char:
            mask[i] = True
            stripped = line.strip()
            if (
                width < fence_indent + 4
                and stripped.startswith(fence_char * fence_len)
                and stripped.strip(fence_char) == ""
            ):
                fence_char = ""
                prev_blank, prev_allows_code = False, True
            continue

        blank = not line.strip()
        if in_indented:
            if blank or width >= 4:
                mask[i] = not blank
                continue
            in_indented = False
        if blank:
            prev_blank = prev_allows_code = True
            continue

        if width >= 4 and prev_allows_code and not in_list:
            in_indented = True
            mask[i] = True
            continue

        fence = _FENCE_RE.match(line.lstrip()) if in_list or width < 4 else None
        if fence and not (fence.group(2)[0] == "`" and "`" in fence.group(3)):
            fence_char = fence.group(2)[0]
            fence_len = len(fence.group(2))
            fence_indent = width
            mask[i] = True
            continue

        heading = _ATX_HEADING_RE.match(line) is not None
        if _LIST_ITEM_RE.match(line):
            in_list = True
        elif width == 0 and (prev_blank or heading):
            in_list = False  # a new top-level block; a line right after an item is lazy text
        prev_blank = False
        prev_allows_code = heading
    return mask


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
