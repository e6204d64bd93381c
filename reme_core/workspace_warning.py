"""What a workspace has to warn about, as data: its index rebuilt or kept in memory, state
entries removed, files left out, parsing fallen back to one process. `ws.warnings` holds
them; `reme_tui.text.opening` says each in one line (the CLI's stderr, the browser's
toasts). A leaf: every layer that warns imports it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

WarningKind = Literal[
    "state_not_folder",  # path: the state folder; detail: "symlink" or "file"
    "waited_for_build",  # another process was building the index
    "settings_changed",  # the index was built with other settings: rebuilt
    "mostly_missing",  # path: the database; count: the files it lists, most gone: rebuilt
    "damaged",  # path: the database; detail: what is wrong with it: rebuilt
    "disk_full",  # the index could not be written: kept in memory
    "unwritable",  # path: the state folder; detail: the OS's reason: kept in memory
    "index_moved",  # path: the old folder; detail: the new one (a vault's metadata/)
    "entry_removed",  # path: a state entry; detail: what it was instead (never followed)
    "not_indexed",  # path: a file; detail: why (a name not UTF-8, too deep)
    "parsing_here",  # detail: why the parse pool stopped
]


@dataclass(frozen=True, slots=True)
class WorkspaceWarning:
    """One warning: its kind and the path, words of a cause and count it names."""

    kind: WarningKind
    path: str = ""
    detail: str = ""
    count: int = 0


Warn = Callable[[WorkspaceWarning], None]
