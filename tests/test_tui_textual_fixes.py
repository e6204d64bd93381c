"""The browser's work-arounds for Textual bugs (`reme_tui.app.textual_fixes`), on the real app."""

from __future__ import annotations

import gc
from pathlib import Path

from textual._styles_cache import StylesCache
from textual.widget import Widget

from reme_tui.app.browser import RemeApp
from reme_tui.app.textual_fixes import unpin_styles_caches
from reme_tui.widgets.reader.note_view import NoteView
from tests.helpers import settle

SIZE = (100, 30)


def unowned_styles_caches() -> int:
    """`StylesCache`s alive (after a full collection) that no live widget owns."""
    gc.collect()
    objects = gc.get_objects()
    owned = {id(o._styles_cache) for o in objects if isinstance(o, Widget)}
    return sum(1 for o in objects if isinstance(o, StylesCache) and id(o) not in owned)


async def test_dropped_widgets_leave_no_rendered_lines_behind(indexed_demo: Path) -> None:
    """Textual #6665: its colour cache kept the last 1,024 widgets' `StylesCache`s (and their
    rendered lines) alive after the widgets were gone. Searches that rebuild the results,
    dialogs opened and closed, a note opened: no widget gone keeps its lines."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for query in ("memory", "bm25 idf", "daily"):
            app.main.search_pane.query_one("#query").focus()
            await pilot.press("ctrl+a", "backspace", *query)
            await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        app.query_one(NoteView).focus()  # the note is open: the reader's keys
        for key in ("o", "B", "n", "ctrl+p"):
            await pilot.press(key)
            await settle(pilot)
            assert len(app.screen_stack) == 2, key  # the dialog is up, its widgets drawn
            await pilot.press("escape")
            await settle(pilot)
        assert len(app.screen_stack) == 1
        assert unowned_styles_caches() == 0


def test_the_fix_applies_once_and_keeps_textuals_answers() -> None:
    assert unpin_styles_caches()
    fixed = StylesCache.get_inner_outer
    assert unpin_styles_caches()
    assert StylesCache.get_inner_outer is fixed, "a second call changes nothing"
    from textual.color import Color

    base, tint = Color(10, 20, 30), Color(200, 0, 0, 0.5)
    inner, outer = StylesCache().get_inner_outer(base, tint)
    assert (inner.background, outer.background) == (base + tint, base)
