"""Web links in a note: `[text](https://…)`, `<https://…>` and bare `https://…` addresses,
outside code, for the reader to select and hand to the system browser.

Only `http` and `https` addresses are links here: nothing else a note says is ever opened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reme_core.parse.wikilinks import live_matches

_WEB_RE = re.compile(
    r"\[(?P<text>[^\]\n]*)\]\((?P<dest><https?://[^>\s]+>|https?://(?:[^()\s]|\([^()\s]*\))+)\)"
    r"|<(?P<auto>https?://[^>\s]+)>"
    r"|(?P<bare>https?://[^\s<>()\[\]\"'`]+)",
    re.IGNORECASE,
)
_TRAILING = ".,;:!?*_~"  # sentence punctuation and emphasis after a bare address


@dataclass(frozen=True, slots=True)
class WebLinkMatch:
    """One web address (1-based `line`, 0-based columns of what is written) and the text a
    Markdown link shows for it (the address itself otherwise)."""

    line: int
    start: int
    end: int
    url: str
    text: str
    raw: str  # as written
    # Read like a note link's by the reader: no anchor, never an embed, the address its target.
    anchor: str = ""
    embed: bool = False

    @property
    def target(self) -> str:
        return self.url


def find_web_links(text: str) -> list[WebLinkMatch]:
    """Every web link of `text` outside code spans and blocks, in document order."""
    if "http" not in text and "HTTP" not in text:
        return []
    found = []
    for m, lineno, line_start in live_matches(text, _WEB_RE):
        start, end = m.start() - line_start, m.end() - line_start
        if m.group("dest"):
            url, shown = m.group("dest").strip("<>"), m.group("text") or m.group("dest")
        elif m.group("auto"):
            url = shown = m.group("auto")
        else:
            url = m.group("bare").rstrip(_TRAILING)
            end -= len(m.group("bare")) - len(url)
            shown = url
        found.append(WebLinkMatch(lineno, start, end, url, shown, m.group(0)[: end - start]))
    return found
