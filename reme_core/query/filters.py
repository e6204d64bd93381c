"""A search's filters (dates, path prefixes, tags, properties, file names): what they admit,
applied before ranking so that `limit` counts only eligible chunks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from reme_core.dates import NO_DATE, date_ordinal
from reme_core.errors import RemeError

if TYPE_CHECKING:
    from reme_core.index.memory_index import MemoryIndex


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Restrictions applied before ranking so `limit` counts only eligible chunks.

    ``strict_dates``: a date filter drops undated notes (None: `search.strict_date_filter`
    in memory mode; in a vault it always does; `Workspace.search` decides).
    """

    start_date: str | None = None
    end_date: str | None = None
    paths: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    exclude_paths: tuple[str, ...] = ()
    strict_dates: bool | None = None
    exclude_tags: tuple[str, ...] = ()
    properties: tuple[tuple[str, str | None], ...] = ()  # `[prop]`, `[prop:value]`: all hold
    exclude_properties: tuple[tuple[str, str | None], ...] = ()
    files: tuple[str, ...] = ()  # `file:x`: the file name holds each
    exclude_files: tuple[str, ...] = ()

    def lists(self) -> bool:
        """Whether the filters alone name notes to list (`path:`, `tag:`, dates, `[prop]`,
        `file:`: not only exclusions)."""
        return bool(
            self.paths
            or self.tags
            or self.start_date
            or self.end_date
            or self.properties
            or self.files
        )

    def active(self) -> bool:
        return bool(
            self.lists()
            or self.exclude_paths
            or self.exclude_tags
            or self.exclude_properties
            or self.exclude_files
        )


def file_mask(index: MemoryIndex, filters: SearchFilters) -> np.ndarray:
    """Boolean mask over file slots of the files the filters admit."""
    mask = index.live_slots().copy()
    if filters.start_date or filters.end_date:
        strict = bool(filters.strict_dates)
        mask &= index.files.date_mask(filters.start_date, filters.end_date, strict)
    if filters.paths:
        mask &= index.files.prefix_mask(filters.paths)
    if filters.exclude_paths:
        mask &= ~index.files.prefix_mask(filters.exclude_paths)
    if filters.tags:
        mask &= index.tag_slots({t.lower().lstrip("#") for t in filters.tags})
    if filters.exclude_tags:
        mask &= ~index.tag_slots({t.lower().lstrip("#") for t in filters.exclude_tags})
    for name, value in filters.properties:
        mask &= index.property_slots(name, value)
    for name, value in filters.exclude_properties:
        mask &= ~index.property_slots(name, value)
    if filters.files or filters.exclude_files:
        mask &= _name_mask(index.files.paths, filters.files, filters.exclude_files)
    return mask


def _name_mask(paths: Sequence[str], wanted: Sequence[str], unwanted: Sequence[str]) -> np.ndarray:
    """Bool per file slot: its file name holds every ``wanted`` text and no ``unwanted`` one
    (case-insensitive), as Obsidian's `file:` finds."""
    want = [w.lower() for w in wanted]
    avoid = [w.lower() for w in unwanted]

    def admits(path: str) -> bool:
        name = path[path.rfind("/") + 1 :].lower()
        return all(w in name for w in want) and not any(w in name for w in avoid)

    return np.fromiter(map(admits, paths), dtype=bool, count=len(paths))


def validate_date(value: str | None, name: str) -> None:
    """Refuse a date that is not `YYYY-MM-DD` with a message naming the option."""
    if value and date_ordinal(value) == NO_DATE:
        raise RemeError(f"{name}: expected a date as YYYY-MM-DD, got {value!r}")
