"""Command palette actions of the browser (the theme switch comes from Textual's own provider)."""

from __future__ import annotations

from collections.abc import Callable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from reme_tui.app.host import Host

# (title, help, action name: the main screen's, or the app's with an "app." prefix)
COMMANDS: list[tuple[str, str, str]] = [
    ("Optimize index", "Compact tombstones and vocabulary; shows before → after", "optimize"),
    ("Rebuild index", "Drop derived state and re-read every file (with progress)", "rebuild"),
    ("Toggle vectors", "Turn vector recall on or off (when available)", "toggle_vectors"),
    ("Open note…", "Quick switcher: fuzzy by path, name or description", "switcher"),
    ("Rename / move note…", "Move the open note; rewrites the links it would break", "move_note"),
    ("Delete note…", "Moves the note to .trash/ after showing the links to it", "delete_note"),
    ("Undo", "Revert the last delete or move (links included); again for the one before", "undo"),
    ("New note…", "A note with name and description in the current folder", "new_note"),
    ("Tags…", "Every tag with its count; Enter lists its notes, Enter opens one", "tags"),
    (
        "Copy path or link…",
        "The note's path, a [[wikilink]], a Markdown link or the hit's lines",
        "copy",
    ),
    ("Toggle links pane", "Show or hide the links pane (hidden when narrow)", "toggle_links"),
    ("Toggle rendered Markdown", "Source lines with numbers ↔ rendered Markdown", "markdown"),
    ("Toggle traverse view", "Direct links ↔ everything within two links", "traverse"),
    ("Edit note in $EDITOR", "Open the current note at the current line", "edit"),
    ("Sync with disk now", "Apply file changes the watcher has not seen yet", "sync"),
    (
        "Open settings file",
        "Theme, keymap, pane defaults (settings.yaml); applied on save",
        "app.open_settings",
    ),
]


class RemeCommands(Provider):
    """Index maintenance and view toggles."""

    def _runner(self, action: str) -> Callable[[], object]:
        """The action's method on the browser's main screen (under any dialog), or the app's."""
        namespace, _, name = action.rpartition(".")
        main = next((s for s in self.app.screen_stack if isinstance(s, Host)), None)
        target = main if namespace != "app" and main is not None else self.app
        return getattr(target, f"action_{name}")

    async def discover(self) -> Hits:
        for title, help_text, action in COMMANDS:
            yield DiscoveryHit(title, self._runner(action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, action in COMMANDS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(title),
                    self._runner(action),
                    text=title,
                    help=help_text,
                )
