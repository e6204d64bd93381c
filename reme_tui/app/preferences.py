"""App mixin: the user's settings (theme, keymap, pane and reader defaults) applied at start and
the theme saved when it changes; the workspace's state (last query, recent notes) kept for the
next session; a palette action to edit the settings file."""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import Any

from textual.app import SuspendNotSupported
from textual.binding import Binding

from reme_tui.settings import ensure_settings_file, load_settings, save_setting
from reme_tui.state import WorkspaceState, load_state


def binding_ids(*classes: type) -> set[str]:
    """The ids a keymap may name: those of the given classes' own `BINDINGS`."""
    return {
        b.id
        for cls in classes
        for b in getattr(cls, "BINDINGS", [])
        if isinstance(b, Binding) and b.id
    }


class Preferences:
    """Mixed into RemeApp (which provides root, reader, neighbours, notify, theme, ...)."""

    app_state: WorkspaceState
    _saved_theme: str | None
    _links_choice: bool | None  # None: the pane follows the terminal width

    def keymap_classes(self) -> tuple[type, ...]:
        """Classes whose bindings a keymap may remap (RemeApp adds its widgets and screens)."""
        return (type(self),)

    def apply_settings(self: Any, first: bool = True) -> None:
        """Read the settings file and apply it; each problem is one warning naming file, line
        and key. On the first call the workspace state is read and the theme watched."""
        settings = load_settings(
            binding_ids=binding_ids(*self.keymap_classes()), themes=self.available_themes
        )
        self.settings_file = settings.path
        for problem in settings.problems:
            self.notify(problem, title="Settings", severity="warning", timeout=10)
        self._saved_theme = settings.theme
        if settings.theme and settings.theme != self.theme:
            self.theme = settings.theme
        self.set_keymap(settings.keymap)
        if settings.links_pane != "auto":
            self._links_choice = settings.links_pane == "show"
            self.neighbours.display = self._links_choice
        if first:
            self.reader.markdown_mode = settings.reader_mode == "rendered"
            self.app_state = load_state(self.root)
            self.watch(self, "theme", self._theme_changed, init=False)

    def _theme_changed(self: Any, theme: str) -> None:
        """Keep the chosen theme for the next session."""
        if theme == self._saved_theme:
            return
        try:
            save_setting(self.settings_file, "theme", theme)
        except OSError as exc:
            self.notify(f"{self.settings_file}: cannot save the theme ({exc.strerror})")
            return
        self._saved_theme = theme

    def action_open_settings(self: Any) -> None:
        """Edit the settings file in $VISUAL/$EDITOR, then apply it."""
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            path = ensure_settings_file(self.settings_file)
            with self.suspend():
                subprocess.run([*shlex.split(editor), str(path)], check=False)
        except SuspendNotSupported:
            self.notify(
                f"Edit {self.settings_file} from another shell; it applies at the next start.",
                title="Settings",
                timeout=8,
            )
            return
        except OSError as exc:
            self.notify(f"Cannot open {self.settings_file} with {editor!r}: {exc}")
            return
        self.apply_settings(first=False)

    def remember_query(self, line: str) -> None:
        """The query typed last, restored in the search box next time."""
        self.app_state.last_query = line
