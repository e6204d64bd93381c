"""The `reme-tui` command line: the browser's launcher and the scripted commands."""

from reme_tui.cli.program import main

__all__ = ["main"]
