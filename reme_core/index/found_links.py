"""What Obsidian's link resolution found, kept with the snapshot so a warm open resolves nothing.

Resolving every link that does not name a note by its literal path (`LinkFinder.find`) and
walking the whole vault for the attachments it may name were most of a warm open (Pokerole:
16k resolutions, an index of 5k names and a walk, before the first screen). A resolution
depends only on the link, the set of notes and the set of other files; the snapshot holds the
notes, so `FoundLinks` keeps each link's found target (a column beside the literal one) and
the attachments they were found among, compared with a walk after the first screen
(`MemoryIndex.attachments_differ`).

Like all derived state it is checked when read (`resolved`): a found target other than the
literal one must be a note or one of the attachments, and attachments must be
workspace-relative text.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass

import numpy as np

from reme_core.index.link_columns import LinkColumns
from reme_core.index.stored_text import check_relative, pack_json, unpack_json


@dataclass(slots=True)
class FoundLinks:
    """Per link the string id of the file it finds (into the link strings, then `extra`:
    found paths no link string names), and the attachments (the vault's other files) they
    were found among: None when no link needed them."""

    target: np.ndarray  # int32, one per link
    extra: list[str]
    attachments: list[str] | None

    @classmethod
    def of(
        cls, links: LinkColumns, resolved: LinkColumns, attachments: list[str] | None
    ) -> FoundLinks:
        """From the literal ``links`` and the same links ``resolved`` (their strings extended)."""
        return cls(resolved.target, list(resolved.strings[len(links.strings) :]), attachments)

    def head(self) -> np.ndarray:
        """The snapshot's text member (the target column is a member of its own)."""
        return pack_json({"extra": self.extra, "attachments": self.attachments})

    @classmethod
    def unpack(cls, target: np.ndarray, head: np.ndarray) -> FoundLinks | None:
        """The stored value, or None when it is not one this program writes."""
        try:
            value = unpack_json(head)
        except ValueError:
            return None
        if not isinstance(value, dict):
            return None
        extra, attachments = value.get("extra"), value.get("attachments")
        if not isinstance(extra, list) or not isinstance(attachments, list | None):
            return None
        try:
            check_relative(extra)
            check_relative(attachments or [])
        except ValueError:
            return None
        return cls(target, extra, attachments)

    def resolved(self, links: LinkColumns, notes: Container[str]) -> LinkColumns | None:
        """``links`` with their found targets, or None when those cannot stand (then the
        links are resolved again): vectorised, a Python step per distinct found target."""
        strings: Sequence[str] = links.strings
        n = len(strings) + len(self.extra)
        target = self.target
        if len(target) != len(links) or (len(target) and not 0 <= target.min() <= target.max() < n):
            return None
        moved = target != links.target
        if moved.any():
            others = set(self.attachments or ())

            def name(i: int) -> str:
                return strings[i] if i < len(strings) else self.extra[i - len(strings)]

            for i in set(target[moved].tolist()):  # (np.unique would import numpy.ma)
                path = name(i)
                if path not in notes and path not in others:
                    return None
        if self.extra:
            strings = [*strings, *self.extra]
        return LinkColumns(
            strings,
            links.source,
            np.asarray(target, dtype=links.target.dtype),
            links.anchor,
            links.alias,
            links.raw,
            links.line,
            links.embed,
        )
