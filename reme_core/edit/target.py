"""What the edit functions need of a workspace, as a protocol the facade satisfies (so the
edit modules never import it), and the scope rule they share."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from reme_core.indexing.live_index import HoldsIndex

if TYPE_CHECKING:
    from reme_core.files.scanner import Scope
    from reme_core.indexing.indexer import BatchReport, Changes
    from reme_core.parse.settings import ParseSettings


class EditTarget(HoldsIndex, Protocol):
    """A workspace's files, settings and index, and the one way to tell it what changed."""

    root: Path
    mode: str  # "memory" or "vault"
    settings: ParseSettings
    warnings: list[str]
    watch_scope: Scope
    rebuild_scope: Scope

    @property
    def state_dir(self) -> Path: ...

    @property
    def write_lock(self) -> threading.RLock: ...

    def apply(self, changes: Changes) -> BatchReport: ...


def in_scope(ws: EditTarget, rel: str) -> bool:
    """Whether a fresh reindex would index this path."""
    return ws.watch_scope.covers(rel) or ws.rebuild_scope.covers(rel)
