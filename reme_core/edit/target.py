"""The scope rule the edit functions share (what they take of a workspace is
`reme_core.ports.EditIndex`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reme_core.ports import EditIndex


def in_scope(ws: EditIndex, rel: str) -> bool:
    """Whether a fresh reindex would index this path."""
    return ws.watch_scope.covers(rel) or ws.rebuild_scope.covers(rel)
