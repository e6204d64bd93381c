"""The rendered view's Markdown styles, on a hidden widget of their own beside the panes.

Textual resolves every component class of a widget (a stylesheet pass each) whenever it
restyles the widget; the reader's view is restyled on each focus move into or out of the
reader pane (its `:focus-within` border restyles the whole pane). With the 37 Markdown styles
among the view's classes that was ~8 ms of each such move (the files tree's opening has two);
here, outside any pane, they are resolved when the stylesheet or the theme changes.
"""

from __future__ import annotations

from typing import ClassVar

from textual.widget import Widget

from reme_core import MARKDOWN_STYLES


class MarkdownStyles(Widget):
    """Carries the `md--*` styles the reader's view draws the rendered view in. Its CSS gives
    it the view's background, which their translucent colours are blended over."""

    DEFAULT_CSS = "MarkdownStyles { display: none; }"
    COMPONENT_CLASSES: ClassVar[set[str]] = {f"md--{name}" for name in MARKDOWN_STYLES}
