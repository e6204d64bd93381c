"""Which mode a workspace is in, and why (SPEC §1, §14): the one rule, returned as data.

In order: `mode:` in `reme.yaml` (or the caller's overrides) decides; else a folder with
`.obsidian/` is a vault, whatever other folders it holds (a lowercase `daily/` is a common
daily-notes folder); else a memory layer (`daily/`, `digest/`, `resource/`) or ReMe's own
derived state under `metadata/` makes a ReMe memory workspace; else a vault. The reason and
what the rule saw travel with the mode, so a program can say which mode it chose and why
(the words are the program's, not the core's).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from reme_core.config import MEMORY_LAYERS, Config
from reme_core.files.paths import METADATA_DIR

OBSIDIAN_DIR = ".obsidian"
# The folders ReMe's components keep their state in, under `metadata/` (ReMe's
# `component_metadata_path`): a user's own `metadata/` notes folder has none of these.
REME_STATE_DIRS = ("file_store", "file_catalog", "file_graph", "keyword_index", "embedding_store")
# What a ReMe workspace holds at its root besides the layers: nothing memory mode leaves out.
_REME_ROOT = (*MEMORY_LAYERS, "session", "mem_session", METADATA_DIR)
_OUTSIDE_SHOWN = 3  # the names of notes memory mode leaves out: the first few are enough


class ModeReason(StrEnum):
    """Why a workspace has its mode."""

    SETTING = "setting"  # `mode:` in reme.yaml (or the caller's overrides)
    OBSIDIAN = "obsidian"  # `.obsidian/` at the root: a vault whatever else it holds
    MEMORY_LAYERS = "memory-layers"  # daily/, digest/ or resource/, and no .obsidian/
    REME_STATE = "reme-state"  # ReMe's derived state in metadata/, and no .obsidian/
    PLAIN = "plain"  # none of these: a folder of notes, every one indexed


@dataclass(frozen=True, slots=True)
class WorkspaceMode:
    """A workspace's mode, the reason, and what the rule saw at the root."""

    mode: str  # "memory" or "vault"
    reason: ModeReason
    layers: tuple[str, ...] = ()  # the memory layer folders present
    reme_state: bool = False  # ReMe's own state under metadata/
    outside: tuple[str, ...] = ()  # in memory mode: top-level notes and folders left out
    more_outside: int = 0  # how many more of those than `outside` names


def choose_mode(root: Path, config: Config) -> WorkspaceMode:
    """The mode of the workspace at `root` (see the module docstring)."""
    layers = tuple(d for d in MEMORY_LAYERS if (root / d).is_dir())
    reme_state = any((root / METADATA_DIR / d).is_dir() for d in REME_STATE_DIRS)
    if config.mode in ("memory", "vault"):
        reason, mode = ModeReason.SETTING, config.mode
    elif (root / OBSIDIAN_DIR).is_dir():
        reason, mode = ModeReason.OBSIDIAN, "vault"
    elif layers:
        reason, mode = ModeReason.MEMORY_LAYERS, "memory"
    elif reme_state:
        reason, mode = ModeReason.REME_STATE, "memory"
    else:
        reason, mode = ModeReason.PLAIN, "vault"
    outside: list[str] = []
    if mode == "memory" and config.watch_dirs is None and config.reindex_dirs is None:
        outside = _left_out(root)
    shown = tuple(outside[:_OUTSIDE_SHOWN])
    return WorkspaceMode(mode, reason, layers, reme_state, shown, len(outside) - len(shown))


def _left_out(root: Path) -> list[str]:
    """Top-level Markdown notes and folders a memory workspace's layers do not cover (one
    listing of the root; folders are named with a slash), sorted."""
    names: list[str] = []
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith(".") or name in _REME_ROOT:
                    continue
                if entry.is_dir():
                    names.append(f"{name}/")
                elif name.endswith(".md"):
                    names.append(name)
    except OSError:
        return []
    return sorted(names)
