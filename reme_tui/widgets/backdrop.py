"""A dialog's dimmed backdrop, drawn once: the screen beneath as it was when the dialog opened.

Textual draws a translucent modal screen over the screen beneath by rendering that whole screen
again and tinting every segment, on every frame the dialog draws and whenever anything
beneath changes (under a watcher's batches: the results, the header, the note). Measured in
the running browser at 10k notes, that made each dialog appear 3-5x later than on a plain
background. `Backdropped` keeps the look (the browser dimmed behind the dialog) but takes the
picture once per dialog and size, tinting each distinct style once; changes beneath show when
the dialog closes.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.color import Color
from textual.css.styles import RulesMap
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual, VisualType

TINTS_KEPT = 4096  # (tint, style) blends kept between dialogs: a screen has a few hundred
# Textual's blend of each distinct style under a tint, shared by every dialog's backdrop: a
# dialog opened after another blends only the styles the screen beneath gained meanwhile.
_tinted_styles: dict[tuple[Color, RichStyle | None], RichStyle] = {}


class Backdrop(Visual):
    """The strips of a screen tinted by a colour, taken once per size."""

    def __init__(self, below: Screen[Any], tint: Color) -> None:
        self.below = below
        self.tint = tint
        self._size: tuple[int, int | None, int, int] | None = None
        self._strips: list[Strip] = []

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        key = (width, height, self.below.size.width, self.below.size.height)
        if self._size != key:
            shown = self.below._compositor.render_strips()  # what the screen beneath last drew
            self._strips = [self._tinted(strip).crop_extend(0, width, None) for strip in shown]
            # Kept once the screen beneath is laid out at its size (after a resize it is laid
            # out after this one, and its new layout draws this one again).
            self._size = key if len(shown) == self.below.size.height else None
            self._strips = self._strips[:height] if height is not None else self._strips
        return self._strips

    def _tinted(self, strip: Strip) -> Strip:
        styles, tint = _tinted_styles, self.tint
        if len(styles) > TINTS_KEPT:
            styles.clear()
        out = []
        for text, style, control in strip:
            if control:
                out.append(Segment(text, style, control))
                continue
            tinted = styles.get((tint, style))
            if tinted is None:
                # Textual's own blend, once per distinct style.
                sample = next(iter(BackgroundScreen.process_segments([Segment(" ", style)], tint)))
                tinted = styles[tint, style] = sample.style or RichStyle()
            out.append(Segment(text, tinted))
        return Strip(out, strip.cell_length)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self.below.size.height


class Backdropped(Screen[Any]):
    """Mixed into a modal screen, after its Textual class (Textual takes a class's CSS along
    the first base): its translucent background is the picture `Backdrop` takes of the screen
    beneath, not a re-render of that screen."""

    _backdrop: Backdrop | None = None

    def render(self) -> VisualType:  # type: ignore[override]  # Textual takes a Visual here
        background = self.styles.background
        stack = self.app.screen_stack
        below = stack[stack.index(self) - 1] if self in stack and stack.index(self) > 0 else None
        if below is None or background.a >= 1:
            return super().render()
        if self._backdrop is None or self._backdrop.below is not below:
            self._backdrop = Backdrop(below, background)
        return self._backdrop

    def retake_backdrop(self) -> None:
        """Take the screen beneath again at the next frame: a dialog kept between openings
        opens over what the screen shows now."""
        self._backdrop = None
