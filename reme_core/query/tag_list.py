"""Every tag of the indexed notes with the notes that have it, as a Tags view lists them.

A tag's notes are the ones `tag:x` finds: those tagged `x` or a tag nested below it
(`#a/b` counts for `a` too, and `a` is listed even when no note writes it alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from reme_core.models import note_tags
from reme_core.ports import read_index

if TYPE_CHECKING:
    from reme_core.ports import Facade


@dataclass(frozen=True, slots=True)
class TagCount:
    """One tag (as first written), and the notes `tag:<tag>` finds, sorted."""

    tag: str
    paths: tuple[str, ...]

    @property
    def count(self) -> int:
        """How many notes have the tag (or one nested below it)."""
        return len(self.paths)


def list_tags(workspace: Facade) -> list[TagCount]:
    """Every tag of the workspace, the most used first (then by name, case-insensitively)."""
    ws = read_index(workspace)
    with ws.lock:
        nodes = ws.index.nodes
        tagged = [(p, note_tags(nodes.frontmatter(p), nodes.inline_tags(p))) for p in nodes]
    spelling: dict[str, str] = {}
    paths: dict[str, set[str]] = {}
    for path, tags in tagged:
        for tag in tags:
            parts = tag.split("/")
            for depth in range(1, len(parts) + 1):  # `a/b/c` counts for `a`, `a/b`, `a/b/c`
                written = "/".join(parts[:depth])
                key = written.lower()
                spelling.setdefault(key, written)
                paths.setdefault(key, set()).add(path)
    found = [TagCount(spelling[key], tuple(sorted(ps))) for key, ps in paths.items()]
    found.sort(key=lambda t: (-t.count, t.tag.lower()))
    return found
