"""Folders an edit makes for a file it writes, and removes again when the edit is undone."""

from __future__ import annotations

import contextlib
import os
import posixpath
from pathlib import Path


def make_parents(root: Path, rel: str) -> list[Path]:
    """Create the missing folders of `rel` under `root`; returns them, outermost first.

    A failure halfway removes the folders made so far before it raises.
    """
    made: list[Path] = []
    folder = root
    try:
        for part in rel.split("/")[:-1]:
            folder = folder / part
            if not folder.is_dir():
                folder.mkdir()
                made.append(folder)
    except OSError:
        remove_dirs(made)
        raise
    return made


def remove_dirs(made: list[Path]) -> None:
    """Remove folders made by `make_parents`, innermost first, where they are still empty."""
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()


def missing_folders(root: Path, rel: str) -> list[str]:
    """The folders of `rel` that do not exist yet, innermost first: what putting a file
    there makes, and what its undo removes again once empty."""
    out = []
    folder = posixpath.dirname(rel)
    while folder and not os.path.lexists(root / folder):
        out.append(folder)
        folder = posixpath.dirname(folder)
    return out
