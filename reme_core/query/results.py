"""What a search answers: hits, their scores and text, and the linked notes of each (SPEC §8).

Dataclasses with `to_dict` for the JSON of the CLI and the MCP server, and the text block
of a hit as `reme-tui search` prints it.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any


class SearchOutcome(enum.Enum):
    """What a search came to, for the words a front end says when it has no hits: ranked
    hits (or none), no words to search for, or the notes its filters alone listed."""

    HITS = "hits"
    NO_WORDS = "no_words"
    NO_RESULTS = "no_results"
    LISTED = "listed"
    NONE_LISTED = "none_listed"


@dataclass(slots=True)
class Neighbour:
    """A linked note as link expansion shows it."""

    path: str
    name: str = ""
    description: str = ""
    anchors: list[str] = field(default_factory=list)
    dangling: bool = False
    indexed: bool = True


@dataclass(slots=True)
class SearchHit:
    """One returned chunk with the signals behind its score."""

    path: str
    start_line: int
    end_line: int
    text: str
    score: float
    keyword_score: float | None = None
    vector_score: float | None = None
    matched_terms: list[str] = field(default_factory=list)
    chunk_id: str = ""
    name_score: float | None = None
    """The note's name-field part of `score` (on its best chunk), when its names matched."""
    property_score: float | None = None
    """Its property-field part, when its property values matched (`description`, ...)."""
    more: int = 0
    """With `group`: how many other chunks of the same note matched."""
    body: str = field(default="", repr=False)
    """The exact source lines `start_line..end_line` (`text` minus skeleton and fence)."""


@dataclass(slots=True)
class SearchResult:
    """Hits, their neighbours, counts, and what the search came to (`outcome`; `matched`:
    how many notes the filters listed, of which `results` holds up to the limit)."""

    query: str
    results: list[SearchHit] = field(default_factory=list)
    link_expansion: dict[str, dict[str, list[Neighbour]]] = field(default_factory=dict)
    counts: dict[str, Any] = field(default_factory=dict)
    outcome: SearchOutcome = SearchOutcome.HITS
    matched: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The structured result (`--json` adds the sentence its outcome reads as)."""
        return {
            "query": self.query,
            "results": [_hit_dict(h) for h in self.results],
            "link_expansion": {
                path: {d: [asdict(n) for n in ns] for d, ns in dirs.items()}
                for path, dirs in self.link_expansion.items()
            },
            "counts": self.counts,
        }


def _hit_dict(hit: SearchHit) -> dict[str, Any]:
    """A hit for `--json`: `text` already holds the body, so it is not repeated."""
    data = asdict(hit)
    del data["body"]
    return data
