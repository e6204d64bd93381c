"""SearchRequest: one search as a value, built once (by `ParsedQuery.request` or by hand) and
taken whole by `Workspace.search`; the only form a search has between the box and the index."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from reme_core.query.filters import SearchFilters
from reme_core.query.options import SearchOptions
from reme_core.query.text_checks import TextChecks


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """What to rank (``text``), what each hit's text must hold (``phrases``, ``lines``) or
    must not (``excludes``, ``exclude_lines``), which notes may answer (``filters``) and how
    the answer is shaped (``options``, each None its setting)."""

    text: str = ""
    phrases: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    lines: tuple[tuple[str, ...], ...] = ()
    """`line:(a b)`: words (or phrases) that must stand on one line."""
    exclude_lines: tuple[tuple[str, ...], ...] = ()
    filters: SearchFilters = field(default_factory=SearchFilters)
    options: SearchOptions = field(default_factory=SearchOptions)

    @property
    def ranking_text(self) -> str:
        """The words ranked: the free words, else the phrases' (a query of phrases alone)."""
        return self.text or " ".join(self.phrases)

    @property
    def checks(self) -> TextChecks:
        """The after-ranking checks of a hit's text."""
        return TextChecks(self.phrases, self.excludes, self.lines, self.exclude_lines)

    def narrowed(
        self,
        start_date: str | None = None,
        end_date: str | None = None,
        paths: tuple[str, ...] = (),
        tags: tuple[str, ...] = (),
    ) -> SearchRequest:
        """The request with filters given beside its line (the CLI's flags, an agent's
        arguments): a date given here wins over the line's, paths and tags are added."""
        f = self.filters
        filters = dataclasses.replace(
            f,
            start_date=start_date or f.start_date,
            end_date=end_date or f.end_date,
            paths=(*paths, *f.paths),
            tags=(*tags, *f.tags),
        )
        return dataclasses.replace(self, filters=filters)
