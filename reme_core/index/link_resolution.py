"""Turn what a link says into a workspace path.

ReMe's own rule is literal paths (`[[X]]` is path `X`). Vaults written in Obsidian link by
note name or partial path instead, so `link_resolution: obsidian` resolves those the way
Obsidian does, deterministically, and can follow file changes without a rebuild. Never by a
frontmatter alias: Obsidian leaves `[[Alias]]` unresolved (aliases serve search, the switcher
and link completion; SPEC §4). `LinkFinder` is the one order (a note by its literal path, a
note by Obsidian's rule, then any other file) that the graph, the reader, rename and delete
all go by.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Container, Iterable

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
    case-insensitively, or whose path ends with a partial path like `folder/Note`. Several
    candidates: the one sharing the most folders with the linking file, then the shortest
    path, then the first in sort order. Aliases play no part (see the module's docstring).
    """

    def __init__(self, paths: Iterable[str]) -> None:
        self._paths: set[str] = set()
        self._by_lower_path: dict[str, set[str]] = {}
        self._by_name: dict[str, set[str]] = {}
        for path in paths:
            self.add(path)

    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __len__(self) -> int:
        return len(self._paths)

    def add(self, path: str) -> None:
        """Add a file (a known one stays as it is)."""
        if path in self._paths:
            return
        self._paths.add(path)
        lower = path.lower()
        self._by_lower_path.setdefault(lower, set()).add(path)
        for key in self._name_keys(lower):
            self._by_name.setdefault(key, set()).add(path)

    def remove(self, path: str) -> None:
        """Forget a file; unknown paths are ignored."""
        if path not in self._paths:
            return
        self._paths.discard(path)
        lower = path.lower()
        _discard(self._by_lower_path, lower, path)
        for key in self._name_keys(lower):
            _discard(self._by_name, key, path)

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
        return candidates

    @staticmethod
    def _name_keys(lower_path: str) -> tuple[str, ...]:
        """Lower-case names a file answers to: its file name, and its stem for a note."""
        name = lower_path.rsplit("/", 1)[-1]
        if name.endswith(".md") and len(name) > 3:
            return (name, name[:-3])
        return (name,)


class LinkFinder:
    """Which file a link written in a vault finds: the one rule of the graph (and so the
    reader and the links pane), rename and delete.

    A note at the link's literal path; else a note by Obsidian's rule (`ObsidianResolver`);
    else another file (an attachment) by the same rule or at the literal path. ``others``
    gives the resolver of the files that are not notes, asked for only when the notes did
    not answer (listing a vault's files costs a walk); None: no other file is known.
    """

    def __init__(
        self,
        notes: Container[str],
        resolver: ObsidianResolver,
        others: Callable[[], ObsidianResolver | None],
    ) -> None:
        self.notes, self.resolver, self._others = notes, resolver, others

    def note(self, source: str, literal: str | None, raw: str) -> str | None:
        """The note the link finds, or None. ``literal`` is the parser's target (a wikilink's
        path as written, a Markdown destination relative to ``source``), ``raw`` as written."""
        if literal is not None and literal in self.notes:
            return literal
        return self.resolver.resolve(source, raw)

    def find(self, source: str, literal: str | None, raw: str) -> str | None:
        """The file the link finds, a note first; None when none does (it dangles)."""
        found = self.note(source, literal, raw)
        if found is not None:
            return found
        others = self._others()
        if others is None:
            return None
        return others.resolve(source, raw) or (literal if literal in others else None)


def _discard(index: dict[str, set[str]], key: str, path: str) -> None:
    bucket = index.get(key)
    if bucket is not None:
        bucket.discard(path)
        if not bucket:
            del index[key]
