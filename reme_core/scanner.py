"""Which files belong to the index: memory layers or a whole vault, minus ignored paths."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from reme_core.config import Config
from reme_core.paths import METADATA_DIR, is_ignored, is_ignored_child

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
        parts = top.split("/") if top else []
        if parts[:1] == [METADATA_DIR] or any(p.startswith(".") for p in parts):
            continue  # is_ignored would refuse every path below it
        if start.is_dir():
            _walk(str(start), top, real_root, scope.suffixes, found, seen_dirs)
    return found


def _inside(real_root: Path, path: str) -> bool:
    try:
        real = Path(path).resolve()
    except (OSError, RuntimeError):
        return False
    return real == real_root or real_root in real.parents


def _walk(
    folder: str,
    rel: str,
    real_root: Path,
    suffixes: tuple[str, ...],
    found: dict[str, FileStat],
    seen_dirs: set[tuple[int, int]],
) -> None:
    """One folder, then its subfolders depth-first, in directory order.

    Plain strings and `DirEntry` data (the type from the directory listing, one `stat` per
    kept file): the walk of 50k files in 7k folders is most of the start-up diff.
    """
    try:
        info = os.stat(folder)
        key = (info.st_dev, info.st_ino)
        if key in seen_dirs:
            return
        seen_dirs.add(key)
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    # `rel` is not ignored and lies inside one of the scope's folders, so for the entries
    # below only their own name and suffix need testing (what `scope.covers` would add).
    prefix = f"{rel}/" if rel else ""
    for entry in entries:
        name = entry.name
        if is_ignored_child(rel, name):
            continue
        try:
            if entry.is_symlink() and not _inside(real_root, entry.path):
                continue
            if entry.is_dir():
                _walk(entry.path, prefix + name, real_root, suffixes, found, seen_dirs)
            elif name.endswith(suffixes) and entry.is_file():
                st = entry.stat()
                found[prefix + name] = FileStat(st.st_mtime, st.st_size)
        except OSError:
            continue
