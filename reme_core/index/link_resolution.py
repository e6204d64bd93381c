"""Turn what a link says into a workspace path.

ReMe's own rule is literal paths (`[[X]]` is path `X`). Vaults written in Obsidian link by
note name, alias or partial path instead, so `link_resolution: obsidian` resolves those the
way Obsidian does, deterministically, and can follow file changes without a rebuild.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping

_DRIVE_RE = re.compile(r"[A-Za-z]:[\\/]")


def normalize_target(source_path: str, raw: str, relative: bool) -> str | None:
    """POSIX-normalise a link target; None when it is empty, absolute or leaves the workspace.

    `relative=True` (Markdown links, `./` wikilinks) resolves against the linking file's folder.
    """
    raw = raw.strip()
    if not raw or raw.startswith(("/", "\\")) or _DRIVE_RE.match(raw):
        return None
    if relative:
        raw = posixpath.join(posixpath.dirname(source_path), raw)
    path = posixpath.normpath(raw)
    if path in (".", "..") or path.startswith("../"):
        return None
    return path


def _folder_parts(path: str) -> list[str]:
    return path.split("/")[:-1]


def _shared_folders(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class ObsidianResolver:
    """Resolve link targets the way Obsidian does, over a set of known workspace paths.

    Order: an existing path; the path with `.md`; a file whose name (or `.md` stem) matches,
    case-insensitively, or whose path ends with a partial path like `folder/Note`; a file with
    that frontmatter alias. Several candidates: the one sharing the most folders with the
    linking file, then the shortest path, then the first in sort order.
    """

    def __init__(
        self,
        paths: Iterable[str],
        aliases: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        self._paths: set[str] = set()
        self._by_lower_path: dict[str, set[str]] = {}
        self._by_name: dict[str, set[str]] = {}
        self._by_alias: dict[str, set[str]] = {}
        self._aliases_of: dict[str, tuple[str, ...]] = {}
        aliases = aliases or {}
        for path in paths:
            self.add(path, aliases.get(path, ()))

    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __len__(self) -> int:
        return len(self._paths)

    def add(self, path: str, aliases: Iterable[object] = ()) -> None:
        """Add a file (or replace its aliases when it is already known)."""
        if path in self._paths:
            self.remove(path)
        self._paths.add(path)
        lower = path.lower()
        self._by_lower_path.setdefault(lower, set()).add(path)
        for key in self._name_keys(lower):
            self._by_name.setdefault(key, set()).add(path)
        # Callers pass `models.aliases_of`; strings only here too, so no entry is ever "none".
        keys = tuple(dict.fromkeys(a.strip().lower() for a in aliases if isinstance(a, str)))
        keys = tuple(k for k in keys if k)
        self._aliases_of[path] = keys
        for key in keys:
            self._by_alias.setdefault(key, set()).add(path)

    def remove(self, path: str) -> None:
        """Forget a file; unknown paths are ignored."""
        if path not in self._paths:
            return
        self._paths.discard(path)
        lower = path.lower()
        _discard(self._by_lower_path, lower, path)
        for key in self._name_keys(lower):
            _discard(self._by_name, key, path)
        for key in self._aliases_of.pop(path, ()):
            _discard(self._by_alias, key, path)

    def resolve(self, source_path: str, raw_target: str) -> str | None:
        """The file `raw_target` (a link target without its `#anchor`) means, or None.

        `./` and `../` targets are taken relative to the linking file, as in Obsidian.
        """
        candidates = self.candidates(source_path, raw_target)
        if len(candidates) <= 1:
            return next(iter(candidates), None)
        source_folders = _folder_parts(source_path)
        return min(
            candidates,
            key=lambda p: (-_shared_folders(source_folders, _folder_parts(p)), len(p), p),
        )

    def candidates(self, source_path: str, raw_target: str) -> set[str]:
        """Every file `raw_target` could mean, before the tie-break: one file means the
        written target is unambiguous (what a rename needs to keep a short link short)."""
        relative = raw_target.lstrip().startswith(("./", "../"))
        target = normalize_target(source_path, raw_target, relative)
        if target is None:
            return set()
        for exact in (target, target + ".md"):
            if exact in self._paths:
                return {exact}
        lower = target.lower()
        candidates = self._by_lower_path.get(lower, set()) | self._by_lower_path.get(
            lower + ".md", set()
        )
        if not candidates:
            name = lower.rsplit("/", 1)[-1]
            named = self._by_name.get(name, set())
            if "/" in lower:
                suffixes = ("/" + lower, "/" + lower + ".md")
                candidates = {p for p in named if p.lower().endswith(suffixes)}
            else:
                candidates = set(named)
        return candidates or set(self._by_alias.get(lower, set()))

    @staticmethod
    def _name_keys(lower_path: str) -> tuple[str, ...]:
        """Lower-case names a file answers to: its file name, and its stem for a note."""
        name = lower_path.rsplit("/", 1)[-1]
        if name.endswith(".md") and len(name) > 3:
            return (name, name[:-3])
        return (name,)


def _discard(index: dict[str, set[str]], key: str, path: str) -> None:
    bucket = index.get(key)
    if bucket is not None:
        bucket.discard(path)
        if not bucket:
            del index[key]
