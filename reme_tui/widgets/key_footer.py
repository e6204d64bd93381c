"""The footer of keys, rebuilt only when the keys it shows change."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

Shown = tuple[tuple[str, str, str, bool, str], ...]


class KeyFooter(Footer):
    """Textual's footer, whose keys are rebuilt only when what it shows changes.

    A focus move announces the screen's bindings again, and the stock footer then rebuilds
    every key widget (each restyled twice as it mounts): a Tab cost a quarter of a second of
    CPU, though the keys shown were the same. Here the announcements of one refresh share one
    look at the bindings, and the keys are rebuilt only when that look differs from the last;
    each key is made already in the footer's style, so mounting it restyles nothing.
    """

    def __init__(self) -> None:
        super().__init__()
        self._look_queued = False
        self._shown: Shown | None = None

    def bindings_changed(self, screen: Screen) -> None:
        if not self._look_queued:
            self._look_queued = True
            self.call_after_refresh(self._look, screen)

    def _look(self, screen: Screen) -> None:
        self._look_queued = False  # an announcement from now on gets a look of its own
        shown = tuple(
            (b.key, b.action, b.description, enabled, tooltip)
            for _node, b, enabled, tooltip in screen.active_bindings.values()
            if b.show
        )
        if shown == self._shown:
            return
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._shown = shown  # the stock footer rebuilds the keys only in this case
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            setting = _compact_setting(widget)
            # A key bound to the footer's style takes it before it mounts (the palette's own
            # key is not bound, and keeps its default).
            if setting is not None and not widget.has_class("-command-palette"):
                widget.set_reactive(setting, self.compact)
            yield widget


def _compact_setting(widget: Widget) -> Reactive[bool] | None:
    """A footer key's own `compact` setting (bound to the footer's), if the widget has one."""
    setting = getattr(type(widget), "compact", None)
    return setting if isinstance(setting, Reactive) else None
