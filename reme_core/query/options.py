"""How a search ranks and what it returns, its arguments resolved against the settings."""

from __future__ import annotations

from dataclasses import dataclass

from reme_core.config import SearchSettings
from reme_core.errors import RemeError

ORDERS = ("name", "mtime")  # a listing's order: by path, or last modified first


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """`Workspace.search`'s ranking and output arguments, each None replaced by its setting."""

    limit: int
    min_score: float
    vector_weight: float
    expand_links: bool
    max_links_per_direction: int
    group: bool = False
    order: str = "name"  # a listing (filters without words): see ORDERS

    @classmethod
    def of(
        cls,
        settings: SearchSettings,
        limit: int | None = None,
        min_score: float | None = None,
        vector_weight: float | None = None,
        expand_links: bool | None = None,
        max_links_per_direction: int | None = None,
        group: bool = False,
        order: str = "name",
    ) -> SearchOptions:
        """The options of a search's arguments (None: the setting)."""
        if order not in ORDERS:
            raise RemeError(f"sort: expected one of {', '.join(ORDERS)}, got {order!r}")
        return cls(
            max(1, int(settings.limit if limit is None else limit)),
            settings.min_score if min_score is None else min_score,
            settings.vector_weight if vector_weight is None else vector_weight,
            settings.expand_links if expand_links is None else expand_links,
            max_links_per_direction or settings.max_links_per_direction,
            group,
            order,
        )
