"""Inline `#tags` of a note's body, as Obsidian has them.

A tag is `#` at the start of a line or after whitespace, then letters, digits, `_`, `-` and
`/` (nesting: `#a/b`), with at least one character that is not a digit (`#123` is an issue
number, not a tag). Not tags: anything in fenced, indented or inline code, in a heading line,
in a URL (`https://x.org/#part`: the `#` follows no space), escaped (`\\#x`), or in the
frontmatter (its tags are read from `tags`/`tag`).
"""

from __future__ import annotations

import re

from reme_core.parse.wikilinks import live_matches

# `#` first, then "not after a non-space" looked back on: a literal start is several
# times faster to search for than a leading lookbehind.
_TAG_RE = re.compile(r"#(?<!\S#)([\w/-]+)")
_HEADING_RE = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")


def inline_tags(text: str, body_line: int = 1) -> list[str]:
    """The body's tags in first-seen order, once each (case as first written), from line
    `body_line` on (the first line after the frontmatter)."""
    if "#" not in text:
        return []
    found: dict[str, str] = {}
    heading_lines: dict[int, bool] = {}
    for m, lineno, line_start in live_matches(text, _TAG_RE):
        if lineno < body_line:
            continue
        heading = heading_lines.get(lineno)
        if heading is None:
            heading = heading_lines[lineno] = bool(_HEADING_RE.match(text, line_start))
        if heading:
            continue
        tag = m.group(1).strip("/")
        if not tag or tag.replace("/", "").isdigit() or "//" in tag:
            continue
        found.setdefault(tag.lower(), tag)
    return list(found.values())
