"""A search's filters (dates, path prefixes, tags): what they admit, applied before ranking so
that `limit` counts only eligible chunks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from reme_core.dates import NO_DATE, date_ordinal
from reme_core.errors import RemeError

if TYPE_CHECKING:
    from reme_core.index.memory_index import MemoryIndex


@dataclass(slots=True)
class SearchFilters:
    """Restrictions applied before ranking so `limit` counts only eligible chunks."""

    start_date: str | None = None
    end_date: str | None = None
    paths: Sequence[str] = ()
    tags: Sequence[str] = ()
    exclude_paths: Sequence[str] = ()
    strict_dates: bool = False
    exclude_tags: Sequence[str] = ()

    @classmethod
    def of(
        cls,
        strict_dates: bool,
        start_date: str | None,
        end_date: str | None,
        path: str | Sequence[str] | None,
        tags: Sequence[str],
        exclude_paths: Sequence[str],
        exclude_tags: Sequence[str],
    ) -> SearchFilters:
        """The filters of a search's arguments (`path`: one prefix or several;
        `strict_dates`: a date filter drops undated notes)."""
        paths = [path] if isinstance(path, str) else list(path or ())
        return cls(
            start_date,
            end_date,
            paths,
            list(tags),
            list(exclude_paths),
            strict_dates,
            list(exclude_tags),
        )

    def lists(self) -> bool:
        """Whether the filters alone name notes to list (`path:`, `tag:`, dates: not only
        exclusions)."""
        return bool(self.paths or self.tags or self.start_date or self.end_date)

    def active(self) -> bool:
        return bool(
            self.start_date
            or self.end_date
            or self.paths
            or self.tags
            or self.exclude_paths
            or self.exclude_tags
        )


def file_mask(index: MemoryIndex, filters: SearchFilters) -> np.ndarray:
    """Boolean mask over file slots of the files the filters admit."""
    mask = index.live_slots().copy()
    if filters.start_date or filters.end_date:
        mask &= index.files.date_mask(filters.start_date, filters.end_date, filters.strict_dates)
    if filters.paths:
        mask &= index.files.prefix_mask(filters.paths)
    if filters.exclude_paths:
        mask &= ~index.files.prefix_mask(filters.exclude_paths)
    if filters.tags:
        mask &= index.tag_slots({t.lower().lstrip("#") for t in filters.tags})
    if filters.exclude_tags:
        mask &= ~index.tag_slots({t.lower().lstrip("#") for t in filters.exclude_tags})
    return mask


def validate_date(value: str | None, name: str) -> None:
    """Refuse a date that is not `YYYY-MM-DD` with a message naming the option."""
    if value and date_ordinal(value) == NO_DATE:
        raise RemeError(f"{name}: expected a date as YYYY-MM-DD, got {value!r}")
