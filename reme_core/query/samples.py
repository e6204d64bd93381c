"""Real filter values of an open workspace, for a search box's examples: a top folder that
holds notes and the dates its notes span (the demo's `path:daily/` means nothing elsewhere)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

import numpy as np

from reme_core.dates import NO_DATE

if TYPE_CHECKING:
    from reme_core.index.memory_index import MemoryIndex


@dataclass(frozen=True, slots=True)
class FilterSamples:
    """Values `path:`, `after:` and `before:` would find something with; None when the
    workspace has no such value (no note in a folder, no dated note)."""

    folder: str | None = None  # the top folder holding the most notes, e.g. "en"
    first_date: str | None = None  # the earliest note date, YYYY-MM-DD
    last_date: str | None = None  # the latest


def filter_samples(index: MemoryIndex) -> FilterSamples:
    """The samples of the indexed notes (the caller holds the index lock)."""
    files = index.files
    paths = [files.path(slot) for slot in np.flatnonzero(index.live_slots()).tolist()]
    folders = Counter(p.split("/", 1)[0] for p in paths if "/" in p)
    # the most notes first, then by name: the same sample for the same notes
    folder = min(folders.items(), key=lambda kv: (-kv[1], kv[0]))[0] if folders else None
    dates = files.dates_of(paths)
    dated = dates[dates != NO_DATE]
    if not len(dated):
        return FilterSamples(folder)
    first, last = (date.fromordinal(int(d)).isoformat() for d in (dated.min(), dated.max()))
    return FilterSamples(folder, first, last)
