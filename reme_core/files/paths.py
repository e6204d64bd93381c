"""Workspace-relative paths: the only kind reme_core accepts from a caller, checked here."""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Iterable
from pathlib import Path

from reme_core.errors import PathRefused, RemeError
from reme_core.files.text_decode import UNDECODABLE_NAME, shown_name, undecodable

METADATA_DIR = "metadata"  # derived state in memory mode (ReMe's layer)
VAULT_STATE_DIR = ".reme-tui"  # derived state in vault mode: hidden, like .obsidian/
# Editor temp files: *~, *.swp, *.swo, *.swx, *.tmp, #*# and vim's 4913 probe (SPEC §1), as
# string tests (the walk tests every name; a regex per name was a tenth of it).
TEMP_ENDINGS = ("~", ".swp", ".swo", ".swx", ".tmp")
CASELESS = os.path.normcase("A") == "a"  # Windows: names compare case-insensitively
# Folders nest at most this deep: the walk leaves deeper ones out (with a warning), and a
# path that needs more is refused, so no walk, write or move works without bound.
MAX_DEPTH = 100
TOO_DEEP = f"more than {MAX_DEPTH} folders deep"


def shortened(path: str, keep: int = 60) -> str:
    """A path fit for a one-line message (a refused path may be thousands of characters)."""
    return path if len(path) <= keep else f"{path[:keep]}…"


def is_temp_name(name: str) -> bool:
    """Whether a file name is an editor's temp file."""
    if CASELESS:
        name = name.lower()
    return (
        name.endswith(TEMP_ENDINGS)
        or (len(name) > 1 and name[0] == "#" and name[-1] == "#")
        or name == "4913"
    )


def state_dir_name(mode: str) -> str:
    """The derived-state folder at the workspace root: ReMe's `metadata/` in memory mode, a
    hidden folder in a vault, where `metadata/` may well be the owner's notes (SPEC §13)."""
    return METADATA_DIR if mode == "memory" else VAULT_STATE_DIR


def is_ignored(relpath: str, state_dir: str = METADATA_DIR) -> bool:
    """True for derived state, dot-files and dot-folders, and editor temp files (SPEC §1)."""
    parts = relpath.split("/")
    if parts[0] == state_dir:
        return True
    if any(p.startswith(".") for p in parts):
        return True
    return is_temp_name(parts[-1])


def is_ignored_child(parent: str, name: str, state_dir: str = METADATA_DIR) -> bool:
    """``is_ignored(f"{parent}/{name}")`` for a ``parent`` (``""`` for the root) known not to
    be ignored: only the new name needs testing, as a walk descends."""
    if name.startswith(".") or (not parent and name == state_dir):
        return True
    return is_temp_name(name)


def normalize_relpath(path: str) -> str:
    """Normalise a caller's workspace-relative path; refuse absolute paths and `..` escapes."""
    if not isinstance(path, str) or not path.strip():
        raise PathRefused("empty path")
    if "\0" in path:
        raise PathRefused(f"{path!r}: path contains a NUL character")
    if undecodable(path):
        raise PathRefused(f"{shown_name(path)}: {UNDECODABLE_NAME}")
    candidate = path.replace("\\", "/") if os.sep == "\\" else path
    if candidate.startswith("/") or os.path.isabs(path) or (len(path) > 1 and path[1] == ":"):
        raise PathRefused(f"{path}: absolute paths are refused; give a workspace-relative path")
    norm = posixpath.normpath(candidate)
    if norm == ".." or norm.startswith("../"):
        raise PathRefused(f"{path}: escapes the workspace")
    if norm == ".":
        raise PathRefused(f"{path}: names the workspace itself, not a file")
    if norm.count("/") > MAX_DEPTH:
        raise PathRefused(f"{shortened(norm)}: {TOO_DEEP}; refused")
    return norm


def resolve_inside(root: Path, relpath: str) -> Path:
    """The real file for `relpath`, refusing symlinks whose real path leaves the workspace."""
    norm = normalize_relpath(relpath)
    real_root = root.resolve()
    try:
        target = (root / norm).resolve()
        looped = target.is_symlink()  # Python 3.13 leaves a link that leads back to itself
    except RuntimeError:  # Python < 3.13 raises for it
        looped = True
    except OSError as exc:
        raise PathRefused(f"{relpath}: cannot be resolved ({exc.strerror})") from None
    if looped:
        raise PathRefused(f"{relpath}: a symbolic link that loops back on itself")
    if target != real_root and real_root not in target.parents:
        raise PathRefused(f"{relpath}: resolves outside the workspace (symlink)")
    return root / norm


def regular_inside(root: Path, relpaths: Iterable[str]) -> list[str]:
    """The paths that name regular files inside the workspace, in order.

    Same answer as ``resolve_inside(root, p).is_file()`` per path, but each folder's real path
    is resolved once, and a file that is not itself a symlink costs one ``lstat``.
    """
    real_root = root.resolve()
    folder_ok: dict[str, bool] = {}
    out = []
    for rel in relpaths:
        try:
            norm = normalize_relpath(rel)
            folder = norm.rpartition("/")[0]
            ok = folder_ok.get(folder)
            if ok is None:
                real = (root / folder).resolve() if folder else real_root
                ok = folder_ok[folder] = real == real_root or real_root in real.parents
            if not ok:
                continue
            mode = os.lstat(root / norm).st_mode
            if stat.S_ISREG(mode) or (stat.S_ISLNK(mode) and resolve_inside(root, norm).is_file()):
                out.append(rel)
        except (OSError, RuntimeError, RemeError):
            continue
    return out
