"""Text from notes is data: control characters never reach the terminal through a widget.

A note (or its frontmatter) may hold escape sequences (a terminal title, an OSC 52 clipboard
write); the widgets draw its text without them. Tabs and line breaks are the caller's.
"""

from __future__ import annotations

import re

# C0 controls but tab and line feed, DEL, and the C1 controls (0x9b is a one-byte CSI).
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def drawable(text: str) -> str:
    """`text` without control characters."""
    return CONTROL_RE.sub("", text)
