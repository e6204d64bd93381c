"""The footer shows the focused pane's keys, and rebuilds its keys only when they change."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from reme_tui.app.browser import RemeApp
from tests.helpers import settle


def shown_actions(app: RemeApp) -> list[str]:
    """What the screen's bindings say the footer should show, in order."""
    seen: list[str] = []
    for _node, binding, _enabled, _tip in app.screen.active_bindings.values():
        if binding.show and binding.action not in seen:
            seen.append(binding.action)
    return seen


async def test_focus_moves_show_each_panes_keys_and_rebuild_only_on_change(
    indexed_demo: Path,
) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press(*"retrieval")
        await settle(pilot)
        footer = app.screen.query_one(Footer)
        rebuilt = kept = 0
        for _ in range(12):
            before_keys = list(footer.query(FooterKey))
            before_shown = shown_actions(app)
            await pilot.press("tab")
            await settle(pilot)
            keys = list(footer.query(FooterKey))
            actions = [k.action for k in keys if k.action != "command_palette"]  # always last
            assert actions == shown_actions(app), app.focused
            if shown_actions(app) == before_shown:
                assert keys == before_keys, "same keys shown, yet the footer rebuilt them"
                kept += 1
            else:
                rebuilt += 1
        assert rebuilt and kept, (rebuilt, kept)  # both cases happened in the walk
