"""The search box's query syntax, mapped onto `Workspace.search` keyword arguments.

`"a phrase"`, `-word` (or `-"a phrase"`), `path:daily/`, `-path:session/`, `tag:x` (`tag:a`
also takes nested `a/b`), `-tag:x`, `after:2026-06-01` and `before:2026-06-20` (both
inclusive), `term*`; everything else is words. Filters without words list the notes they
admit, by name, or last modified first with `sort:mtime`. A filter with an empty value
(`path:` while still typing) is ignored rather than refused, and the word still being typed
(no space after it yet) matches as a prefix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_TOKEN_RE = re.compile(r'(-?)(?:(\w+):)?(?:"([^"]*)"?|(\S+))')
_FILTERS = ("path", "tag", "after", "before", "sort")


@dataclass(slots=True)
class ParsedQuery:
    """The pieces of one query line."""

    words: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    exclude_terms: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    exclude_paths: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    exclude_tags: list[str] = field(default_factory=list)
    start_date: str | None = None
    end_date: str | None = None
    sort: str = "name"
    typing: bool = False
    """The last word is still being typed: it matches terms that start with it."""

    @property
    def text(self) -> str:
        """The free words, as the ranking query (`word*` for the one being typed)."""
        words = list(self.words)
        if self.typing and words and not words[-1].endswith("*"):
            words[-1] += "*"
        return " ".join(words)

    @property
    def highlight_terms(self) -> list[str]:
        """What the result list should mark besides the index's matched terms."""
        return [*(w.rstrip("*") for w in self.words), *self.phrases]

    def is_empty(self) -> bool:
        """True when there is nothing to search for (filters alone list their notes)."""
        listing = self.paths or self.tags or self.start_date or self.end_date
        return not (self.words or self.phrases or listing)

    def search_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `Workspace.search` (besides the query text)."""
        return {
            "phrases": tuple(self.phrases),
            "exclude_terms": tuple(self.exclude_terms),
            "path": list(self.paths) or None,
            "exclude_paths": tuple(self.exclude_paths),
            "tags": tuple(self.tags),
            "exclude_tags": tuple(self.exclude_tags),
            "start_date": self.start_date,
            "end_date": self.end_date,
            "sort": self.sort,
        }


def parse_query(line: str) -> ParsedQuery:
    """Split a query line into words, phrases, exclusions and filters."""
    parsed = ParsedQuery()
    for match in _TOKEN_RE.finditer(line):
        negated, key, quoted, bare = match.groups()
        is_phrase = quoted is not None
        value = quoted if is_phrase else bare or ""
        key_l = (key or "").lower()
        if key and key_l not in _FILTERS:
            # `word:thing` that is not a filter is ordinary text (e.g. `related:` or a URL).
            value, key_l = f"{key}:{value}", ""
        if key_l:
            _apply_filter(parsed, key_l, value.strip(), bool(negated))
        elif not value.strip():
            continue
        elif negated:
            parsed.exclude_terms.append(value.strip())
        elif is_phrase:
            parsed.phrases.append(value.strip())
        else:
            parsed.words.append(value)
            parsed.typing = match.end() == len(line)
            continue
        parsed.typing = False
    return parsed


def _apply_filter(parsed: ParsedQuery, key: str, value: str, negated: bool) -> None:
    if not value:
        return
    if key == "path":
        (parsed.exclude_paths if negated else parsed.paths).append(value.lstrip("/"))
    elif key == "tag":
        (parsed.exclude_tags if negated else parsed.tags).append(value.lstrip("#"))
    elif key == "after":
        parsed.start_date = value
    elif key == "before":
        parsed.end_date = value
    elif key == "sort":
        parsed.sort = value.lower()
