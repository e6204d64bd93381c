"""How a search ranks and what it returns: asked for (`SearchOptions`, each None its setting),
then resolved against the settings (`ResolvedOptions`, what the pipeline reads)."""

from __future__ import annotations

from dataclasses import dataclass

from reme_core.config import SearchSettings
from reme_core.errors import RemeError

ORDERS = ("name", "mtime")  # a listing's order: by path, or last modified first


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """A search's ranking and output options; None: the setting (`search:` in reme.yaml).

    ``group``: one hit per note (its best chunk; `SearchHit.more` counts the others), as the
    browser shows them; ReMe's chunk list is the default. ``order``: how filters without
    words (which list the notes they admit) order them, "name" (by path) or "mtime" (last
    modified first); None: by name.
    """

    limit: int | None = None
    min_score: float | None = None
    vector_weight: float | None = None
    expand_links: bool | None = None
    max_links_per_direction: int | None = None
    group: bool = False
    order: str | None = None

    def resolved(self, settings: SearchSettings) -> ResolvedOptions:
        """Every None replaced by its setting; an unknown order refused."""
        order = self.order or "name"
        if order not in ORDERS:
            raise RemeError(f"sort: expected one of {', '.join(ORDERS)}, got {order!r}")
        return ResolvedOptions(
            max(1, int(settings.limit if self.limit is None else self.limit)),
            settings.min_score if self.min_score is None else self.min_score,
            settings.vector_weight if self.vector_weight is None else self.vector_weight,
            settings.expand_links if self.expand_links is None else self.expand_links,
            self.max_links_per_direction or settings.max_links_per_direction,
            self.group,
            order,
        )


@dataclass(frozen=True, slots=True)
class ResolvedOptions:
    """`SearchOptions` with every value decided: what `run_search` reads."""

    limit: int
    min_score: float
    vector_weight: float
    expand_links: bool
    max_links_per_direction: int
    group: bool = False
    order: str = "name"  # a listing (filters without words): see ORDERS
