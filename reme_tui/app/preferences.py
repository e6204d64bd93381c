"""The user's settings (theme, keymap, pane and reader defaults) applied at start, the theme
saved when it changes, and the palette action to edit the settings file.

A controller of `RemeApp`: settings are app-wide, the pane defaults are handed to the main
screen.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import cast

from textual.app import App, SuspendNotSupported
from textual.binding import Binding

from reme_tui.app.host import Browser
from reme_tui.settings import ensure_settings_file, load_settings, save_setting, settings_path
from reme_tui.text import notices


def binding_ids(*classes: type) -> set[str]:
    """The ids a keymap may name: those of the given classes' own `BINDINGS`."""
    return {
        b.id
        for cls in classes
        for b in getattr(cls, "BINDINGS", [])
        if isinstance(b, Binding) and b.id
    }


class Preferences:
    """Reads settings.yaml into the app and its main screen; keeps the theme chosen."""

    def __init__(self, app: App[None]) -> None:
        self.app = app
        self.browser = cast("Browser", app)
        self.settings_file: Path = settings_path()
        self._saved_theme: str | None = None

    def apply(self, *, first: bool = True) -> None:
        """Read the settings file and apply it; each problem is one warning naming file, line
        and key. From the first call on, a theme the user picks is saved."""
        app = self.app
        settings = load_settings(
            binding_ids=binding_ids(*self.browser.keymap_classes()), themes=app.available_themes
        )
        self.settings_file = settings.path
        for problem in settings.problems:
            app.notify(problem, title="Settings", severity="warning", timeout=10)
        self._saved_theme = settings.theme
        if settings.theme and settings.theme != app.theme:
            app.theme = settings.theme
        app.set_keymap(settings.keymap)
        self.browser.main.apply_settings(settings, first=first)
        if first:
            app.watch(app, "theme", self._theme_changed, init=False)

    def _theme_changed(self, theme: str) -> None:
        """Keep the chosen theme for the next session."""
        if theme == self._saved_theme:
            return
        try:
            save_setting(self.settings_file, "theme", theme)
        except OSError as exc:
            self.app.notify(notices.cannot_save_theme(self.settings_file, exc.strerror))
            return
        self._saved_theme = theme

    def open_settings(self) -> None:
        """Edit the settings file in $VISUAL/$EDITOR, then apply it."""
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            path = ensure_settings_file(self.settings_file)
            with self.app.suspend():
                subprocess.run([*shlex.split(editor), str(path)], check=False)
        except SuspendNotSupported:
            self.app.notify(
                notices.edit_settings_elsewhere(self.settings_file),
                title="Settings",
                timeout=8,
            )
            return
        except OSError as exc:
            self.app.notify(notices.cannot_open_with(self.settings_file, editor, exc))
            return
        self.apply(first=False)
