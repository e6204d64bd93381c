"""Which workspace a program run in some folder means, found the way git and zk find theirs.

From the current folder upwards, the nearest folder that is a workspace: it holds derived
state, a `reme.yaml`, a memory layer (`daily/`, `digest/`, `resource/`), ReMe's own state
under `metadata/` or an Obsidian vault's `.obsidian/`. A `.reme/` folder in the current one
is ReMe's default workspace (SPEC §13).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reme_core.config import CONFIG_FILE, MEMORY_LAYERS
from reme_core.files.paths import METADATA_DIR, VAULT_STATE_DIR
from reme_core.files.workspace_mode import OBSIDIAN_DIR, REME_STATE_DIRS

REME_DEFAULT_DIR = ".reme"
DB_FILE = "index.sqlite"


@dataclass(frozen=True, slots=True)
class Discovered:
    """The workspace found for a start folder, and how."""

    path: Path
    how: str  # "here", "reme-default", "above" or "none" (nothing found: the start folder)


def has_index(folder: Path) -> bool:
    """Whether a folder holds a built index of ours (either mode's state folder)."""
    return any((folder / d / DB_FILE).is_file() for d in (METADATA_DIR, VAULT_STATE_DIR))


def is_workspace(folder: Path) -> bool:
    """Whether a folder marks itself as a workspace (see the module docstring)."""
    if has_index(folder) or (folder / CONFIG_FILE).is_file():
        return True
    if any((folder / d).is_dir() for d in (*MEMORY_LAYERS, OBSIDIAN_DIR, VAULT_STATE_DIR)):
        return True
    return any((folder / METADATA_DIR / d).is_dir() for d in REME_STATE_DIRS)


def discover(start: Path) -> Discovered:
    """The workspace for a program started in `start`."""
    start = start.expanduser().resolve()
    if is_workspace(start):
        return Discovered(start, "here")
    if (start / REME_DEFAULT_DIR).is_dir():
        return Discovered(start / REME_DEFAULT_DIR, "reme-default")
    for folder in start.parents:
        if folder.parent == folder:
            break  # never the file-system root
        if is_workspace(folder):
            return Discovered(folder, "above")
    return Discovered(start, "none")


def enclosing_index(folder: Path) -> Path | None:
    """The nearest folder above `folder` with an index of its own, when `folder` has none:
    opening `folder` would then make a second, nested index."""
    folder = folder.expanduser().resolve()
    if has_index(folder):
        return None
    for above in folder.parents:
        if above.parent == above:
            break
        if has_index(above):
            return above
    return None
