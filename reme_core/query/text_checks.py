"""What a hit's text must hold after ranking: phrases, excluded words, `line:` groups.

A phrase is also found in the note's names and property values (a quoted alias or a
`description:` phrase finds its note, whose body may never say it), as are `line:` groups
(each value is a line of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reme_core.parse.note_names import name_text, property_text

if TYPE_CHECKING:
    from reme_core.index.node_table import NodeTable


@dataclass(frozen=True, slots=True)
class TextChecks:
    """What a hit's text must hold after ranking: each phrase (in the chunk, or in its
    note's names and property values: a quoted alias finds its note), no excluded word, and
    each `line:` group's words on one line (of the chunk or of those values), no
    excluded group's."""

    phrases: Sequence[str] = ()
    exclude_terms: Sequence[str] = ()
    lines: Sequence[Sequence[str]] = ()
    exclude_lines: Sequence[Sequence[str]] = ()

    def __bool__(self) -> bool:
        return bool(self.phrases or self.exclude_terms or self.lines or self.exclude_lines)

    def passes(self, text: str, note_text: Callable[[], str]) -> bool:
        """Whether a chunk's ``text`` passes; ``note_text`` gives its note's field texts
        (asked for only when the chunk alone does not decide)."""
        lowered = text.lower()
        if any(t.lower() in lowered for t in self.exclude_terms):
            return False
        fields: str | None = None
        for phrase in self.phrases:
            if phrase.lower() not in lowered:
                fields = note_text().lower() if fields is None else fields
                if phrase.lower() not in fields:
                    return False
        if not (self.lines or self.exclude_lines):
            return True
        fields = note_text().lower() if fields is None else fields
        rows = [*lowered.split("\n"), *fields.split("\n")]
        if any(_on_one_line(rows, group) for group in self.exclude_lines):
            return False
        return all(_on_one_line(rows, group) for group in self.lines)


def _on_one_line(rows: list[str], group: Sequence[str]) -> bool:
    words = [w.lower() for w in group]
    return any(all(w in row for w in words) for row in rows)


def note_fields_text(nodes: NodeTable, path: str) -> str:
    """A note's names and property values, one per line (the texts of its two fields)."""
    frontmatter = nodes.frontmatter(path)
    return f"{name_text(path, frontmatter)}\n{property_text(path, frontmatter)}"
