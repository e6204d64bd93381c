"""The start-up diff's walk, started before a program imports and loads the index.

A cold `reme-tui search` spends its first few hundred milliseconds importing numpy and the
index modules, then loading the index; the walk of the workspace's folders needs none of
that. Started first (this module imports only the configuration and the scanner), the walk
runs in a forked child on the other core while the rest happens, and `Workspace.open`
collects it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from reme_core.config import load_config
from reme_core.errors import RemeError
from reme_core.files.scan_ahead import ScanAhead
from reme_core.files.scanner import scopes_for


def walk_ahead(
    path: str | os.PathLike[str], overrides: dict[str, Any] | None = None
) -> ScanAhead | None:
    """Start walking the folder `Workspace.open(path, overrides)` will open; None when it
    cannot be (not a folder, a configuration error: the open reports those)."""
    root = Path(path).expanduser()
    try:
        if not root.is_dir():
            return None
        root = root.resolve()
        _, scope, _ = scopes_for(root, load_config(root, overrides))
    except (OSError, RemeError):
        return None
    return ScanAhead(root, scope)
