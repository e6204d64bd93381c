"""The keys-and-help panel (Textual's), its table of keys drawn once per set of keys and width.

Textual's `HelpPanel` draws its table of keys with Rich on every measure and every frame:
its width, its height (twice) and each of the three frames that opening the panel takes
(it splits the screen, then its keys panel rebuilds for the screen's bindings), some 30-45 ms
of the opening at 10k-50k notes, and as much again at each later opening. `KeysHelpPanel`
looks the same; its table's lines are kept by what the table shows (the keys, their
descriptions and styles) and the width, so only a change of keys or width draws it again.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, RichVisual
from textual.widget import Widget
from textual.widgets import HelpPanel, KeyPanel, Markdown
from textual.widgets._key_panel import BindingsTable

KEPT = 16  # drawn tables kept (a few sets of keys, each at a few widths)
_drawn: dict[Hashable, Any] = {}


def _kept(key: Hashable, make: Any) -> Any:
    """`make()`, or what it gave for `key` before (a small table, emptied when full)."""
    if key not in _drawn:
        if len(_drawn) >= KEPT:
            _drawn.clear()
        _drawn[key] = make()
    return _drawn[key]


def _shown(table: Table) -> Hashable:
    """What a table of keys shows: its cells with their styles, its sections and borders."""
    cells = tuple(
        (c.plain, c.style, tuple(c.spans), c.end) if isinstance(c, Text) else str(c)
        for column in table.columns
        for c in column.cells
    )
    sections = tuple(row.end_section for row in table.rows)
    return (cells, sections, table.box, table.border_style)


class KeysVisual(RichVisual):
    """The table of keys, its measures and lines kept by what it shows."""

    def __init__(self, widget: Widget, table: Table) -> None:
        super().__init__(widget, table)
        self.shown = _shown(table)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        key = ("width", self.shown, container_width)
        return int(
            _kept(key, lambda: super(KeysVisual, self).get_optimal_width(rules, container_width))
        )

    def get_height(self, rules: RulesMap, width: int) -> int:
        key = ("height", self.shown, width)
        return int(_kept(key, lambda: super(KeysVisual, self).get_height(rules, width)))

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        if options.selection is not None:  # a selection is drawn into the lines: not kept
            return super().render_strips(width, height, style, options)
        key = ("lines", self.shown, width, height, style.rich_style)
        return list(
            _kept(key, lambda: super(KeysVisual, self).render_strips(width, height, style, options))
        )


class KeysTable(BindingsTable):
    """Textual's table of the screen's keys, drawn through `KeysVisual`."""

    shown: Hashable = None  # what the last drawn table showed

    def render(self) -> KeysVisual:  # type: ignore[override]  # a Visual: Textual takes it
        visual = KeysVisual(self, self.render_bindings_table())
        self.shown = visual.shown
        return visual


class KeysPanel(KeyPanel):
    """Textual's keys panel with the kept table, rebuilt only when its keys change.

    The stock panel rebuilds (and the screen lays out again) on every announcement of the
    screen's bindings, one of them right after the panel mounts, with the same keys."""

    def compose(self) -> ComposeResult:
        yield KeysTable(shrink=True, expand=False)

    async def recompose(self) -> None:
        tables = self.query(KeysTable)
        if tables and tables.first().shown == _shown(tables.first().render_bindings_table()):
            return
        await super().recompose()


class KeysHelpPanel(HelpPanel):
    """Textual's help panel (the focused widget's help over the keys), with the kept table."""

    def compose(self) -> ComposeResult:
        yield Markdown(id="widget-help")
        yield KeysPanel(id="keys-help")
