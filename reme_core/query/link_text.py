"""The text of a link to a note, as a person pastes it elsewhere in the workspace.

With literal resolution (memory mode) a wikilink is the workspace-relative path. With
Obsidian's, it is the shortest form that names only that note from anywhere: the file name
(`.md` left out) when no other note has it, else the path from the root ("shortest path when
possible", Obsidian's default). A Markdown link is relative to the root, spaces escaped.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from urllib.parse import quote


def _without_md(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


def wikilink_to(path: str, paths: Iterable[str], *, obsidian: bool) -> str:
    """`[[…]]` that leads to `path`: its path (literal), or its name when that is unique
    among `paths` (the workspace's files, compared without case as Obsidian does)."""
    if not obsidian:
        return f"[[{path}]]"
    name = posixpath.basename(path)
    key = name.lower()
    same = sum(1 for other in paths if posixpath.basename(other).lower() == key)
    return f"[[{_without_md(name) if same <= 1 else _without_md(path)}]]"


def markdown_link_to(path: str, label: str) -> str:
    """`[label](path)`, the path percent-escaped where Markdown needs it (spaces, brackets)."""
    shown = label.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return f"[{shown}]({quote(path, safe='/')})"
