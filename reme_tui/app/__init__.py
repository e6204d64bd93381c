"""The Textual browser: the app, its actions (notes, upkeep) and its palette commands."""

from reme_tui.app.browser import RemeApp

__all__ = ["RemeApp"]
