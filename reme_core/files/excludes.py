"""Paths a vault's owner keeps out: its `.gitignore` and `reme.yaml`'s `exclude:` patterns.

Both use gitignore's pattern language (pathspec's `GitIgnoreSpec`, not a home-made matcher),
so `drafts/`, `*.excalidraw.md`, `/Templates` and `!keep.md` mean what they mean to git.
Only the vault's top-level `.gitignore` is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

GITIGNORE = ".gitignore"
_MAX_GITIGNORE_BYTES = 1 << 20


class Excludes:
    """A gitignore-style matcher over workspace-relative POSIX paths."""

    __slots__ = ("_spec", "patterns")

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        # Compiled on the first match: a warm open walks nothing before its first screen,
        # and pathspec's import (~0.1 s) waits for the walk after it.
        self._spec: GitIgnoreSpec | None = None

    @classmethod
    def for_workspace(cls, root: Path, patterns: Sequence[str], gitignore: bool) -> Excludes | None:
        """The workspace's rules (the `.gitignore` first, then `exclude:`); None when there are
        none, so a walk pays nothing for them."""
        lines: list[str] = []
        if gitignore:
            lines += _read_gitignore(root / GITIGNORE)
        lines += list(patterns)
        if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
            return None
        return cls(lines)

    def excludes(self, relpath: str, is_dir: bool = False) -> bool:
        """Whether a file (or, with ``is_dir``, a folder and all below it) is kept out."""
        if self._spec is None:
            from pathspec import GitIgnoreSpec  # here: a workspace without excludes never loads it

            self._spec = GitIgnoreSpec.from_lines(self.patterns)
        return self._spec.match_file(relpath + "/" if is_dir else relpath)


def _read_gitignore(path: Path) -> list[str]:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_GITIGNORE_BYTES:
            return []
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
