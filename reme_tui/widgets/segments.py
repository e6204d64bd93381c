"""Rich text to the segments a line-based widget hands Textual, each with a style.

`Text.render` gives a text without spans one `Segment` with no style at all (its own base
style dropped), and `Segment.apply_style` leaves segments alone when the base style is null,
as it is under `NO_COLOR`. Textual's monochrome filter reads every segment's style, so one
unstyled segment crashed the reader there: every row goes through `styled_segments`.
"""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

# Turns a row into segments; rows carry their own styles, so no app setting changes them.
SEGMENT_CONSOLE = Console(color_system=None, force_terminal=False, legacy_windows=False)


def styled_segments(text: Text, base: Style, console: Console = SEGMENT_CONSOLE) -> list[Segment]:
    """`text`'s segments on `base`: each one's style is `base` plus its own, never None."""
    return [
        Segment(part, base + style if style is not None else base, control)
        for part, style, control in text.render(console)
    ]
