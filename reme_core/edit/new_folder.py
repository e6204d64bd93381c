"""A new, empty folder of the workspace: where the browser's files tree puts notes to come."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reme_core.edit.file_ops import check_new_path
from reme_core.edit.folders import make_parents
from reme_core.errors import RemeError

if TYPE_CHECKING:
    from reme_core.ports import EditIndex


def make_folder(ws: EditIndex, path: str) -> str:
    """Make the folder `path` (and the missing ones above it); its normalised path.

    A new note's path rules apply (`check_new_path`): no escape, no path the index ignores, no
    character a wikilink cannot hold, nothing that exists already.
    """
    with ws.write_lock:
        rel = check_new_path(ws, path.strip().strip("/"))
        try:
            make_parents(ws.root, f"{rel}/")
        except OSError as exc:
            raise RemeError(f"{rel}: the folder cannot be made ({exc.strerror})") from None
    return rel
