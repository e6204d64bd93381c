"""`python -m reme_tui` is the same as `reme-tui`."""

from reme_tui.cli.program import main

main()
