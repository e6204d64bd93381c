"""Text from notes is data: control characters never reach the terminal through a widget, and
nothing is drawn whose width the terminal and rich disagree on.

A note (or its frontmatter) may hold escape sequences (a terminal title, an OSC 52 clipboard
write); the widgets draw its text without them. The emoji variation selector U+FE0F is dropped
too: rich counts `🗂️` (U+1F5C2 U+FE0F) as two cells, tmux and wcwidth-based terminals draw
one, so a pane's border would shift; without the selector they all agree. Tabs and line
breaks are the caller's.
"""

from __future__ import annotations

import re

# C0 controls but tab and line feed, DEL, the C1 controls (0x9b is a one-byte CSI), and U+FE0F.
UNDRAWABLE_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufe0f]")


def drawable(text: str) -> str:
    """`text` without control characters or emoji variation selectors."""
    return UNDRAWABLE_RE.sub("", text)
