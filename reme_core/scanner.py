"""Which files belong to the index: memory layers or a whole vault, minus ignored paths."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from reme_core.config import Config
from reme_core.paths import is_ignored

WATCH_LAYERS = ("daily", "digest")
REINDEX_LAYERS = ("daily", "digest", "resource")


@dataclass(frozen=True, slots=True)
class FileStat:
    """What the start-up diff compares: modification time and size."""

    mtime: float
    size: int


@dataclass(frozen=True, slots=True)
class Scope:
    """The folders and suffixes a scan covers (`""` as a folder means the whole root)."""

    dirs: tuple[str, ...]
    suffixes: tuple[str, ...]

    def covers(self, relpath: str) -> bool:
        """Whether a workspace-relative path is inside this scope."""
        if is_ignored(relpath) or not relpath.endswith(self.suffixes):
            return False
        return any(d == "" or relpath == d or relpath.startswith(d + "/") for d in self.dirs)


def scopes_for(root: Path, config: Config) -> tuple[str, Scope, Scope]:
    """(mode, live/start-up scope, rebuild scope) for a workspace (SPEC §1)."""
    mode = config.resolved_mode(root)
    if mode == "memory":
        watch = Scope(tuple(config.watch_dirs or WATCH_LAYERS), tuple(config.watch_suffixes))
        rebuild = Scope(
            tuple(config.reindex_dirs or REINDEX_LAYERS), tuple(config.reindex_suffixes)
        )
    else:
        watch = Scope(tuple(config.watch_dirs or ("",)), tuple(config.watch_suffixes))
        rebuild = Scope(tuple(config.reindex_dirs or ("",)), tuple(config.watch_suffixes))
    return mode, watch, rebuild


def scan(root: Path, scope: Scope) -> dict[str, FileStat]:
    """Walk the scope's folders; follow symlinks only while their real path stays inside."""
    real_root = root.resolve()
    found: dict[str, FileStat] = {}
    seen_dirs: set[tuple[int, int]] = set()
    for top in sorted(set(scope.dirs)):
        start = root / top if top else root
        if start.is_dir():
            _walk(start, top, real_root, scope, found, seen_dirs)
    return found


def _inside(real_root: Path, path: Path) -> bool:
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return False
    return real == real_root or real_root in real.parents


def _walk(
    folder: Path,
    rel: str,
    real_root: Path,
    scope: Scope,
    found: dict[str, FileStat],
    seen_dirs: set[tuple[int, int]],
) -> None:
    try:
        info = folder.stat()
        key = (info.st_dev, info.st_ino)
        if key in seen_dirs:
            return
        seen_dirs.add(key)
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        child_rel = f"{rel}/{entry.name}" if rel else entry.name
        if is_ignored(child_rel):
            continue
        try:
            is_link = entry.is_symlink()
            if is_link and not _inside(real_root, Path(entry.path)):
                continue
            if entry.is_dir():
                _walk(Path(entry.path), child_rel, real_root, scope, found, seen_dirs)
            elif entry.is_file() and scope.covers(child_rel):
                st = entry.stat()
                found[child_rel] = FileStat(st.st_mtime, st.st_size)
        except OSError:
            continue
