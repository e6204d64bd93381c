"""The search box's query syntax, parsed into a `SearchRequest` (`ParsedQuery.request`).

`"a phrase"`, `-word` (or `-"a phrase"`), `path:daily/`, `-path:session/`, `tag:x` (`tag:a`
also takes nested `a/b`), `-tag:x`, `after:2026-06-01` and `before:2026-06-20` (both
inclusive), `term*`; everything else is words. Filters without words list the notes they
admit, by name, or last modified first with `sort:mtime`. A filter with an empty value
(`path:` while still typing) is ignored rather than refused, and the word still being typed
(no space after it yet) matches as a prefix.

Obsidian's operators too: `[prop]` (notes that have the property), `[prop:value]` (its value
holds `value`; `[prop:null]`: the property is empty), `file:x` (the file name holds `x`),
`line:(a b)` / `line:word` (the words on one line); each negated with `-`. Not supported:
`OR`, parentheses for grouping, `/regex/`, `content:`, `block:`, `section:`, `task:`,
`task-todo:`, `task-done:`, `match-case:`, `ignore-case:` (`UNSUPPORTED_OPERATORS` says so in help).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reme_core.query.options import SearchOptions
    from reme_core.query.request import SearchRequest

_TOKEN_RE = re.compile(r'(-?)(?:(\w+):)?(?:"([^"]*)"?|(\S+))')
_FILTERS = ("path", "tag", "after", "before", "sort", "file", "line")
# `[prop]`, `[prop:value]`, `[prop:"a value"]` (Obsidian's property search), and
# `line:(a "b c")`; each may be negated with `-`. Found before the words, and blanked out.
_PROPERTY_RE = re.compile(r'(?<!\S)(-?)\[([^\[\]:"]+)(?::[ \t]*(?:"([^"\]]*)"?|([^\]]*)))?\]')
_LINE_RE = re.compile(r"(?<!\S)(-?)line:\(([^)]*)\)?", re.IGNORECASE)
_LINE_ITEM_RE = re.compile(r'"([^"]*)"?|(\S+)')
UNSUPPORTED_OPERATORS = (
    "OR, ( ) grouping, /regex/, content:, block:, section:, task:, task-todo:, "
    "task-done:, match-case:, ignore-case:"
)


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
    sort: str | None = None
    """`sort:name` / `sort:mtime` (None: not given, by name)."""
    properties: list[tuple[str, str | None]] = field(default_factory=list)
    """`[prop]` (value None) and `[prop:value]`."""
    exclude_properties: list[tuple[str, str | None]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    exclude_files: list[str] = field(default_factory=list)
    lines: list[list[str]] = field(default_factory=list)
    """`line:(a b)`: words (or phrases) that must stand on one line."""
    exclude_lines: list[list[str]] = field(default_factory=list)
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
        on_lines = [item for group in self.lines for item in group]
        return [*(w.rstrip("*") for w in self.words), *self.phrases, *on_lines]

    def is_empty(self) -> bool:
        """True when there is nothing to search for (filters alone list their notes)."""
        listing = self.paths or self.tags or self.start_date or self.end_date
        obsidian = self.properties or self.files or self.lines
        return not (self.words or self.phrases or listing or obsidian)

    def request(
        self, options: SearchOptions | None = None, *, strict_dates: bool | None = None
    ) -> SearchRequest:
        """The search this line asks for. ``options``: the caller's (limit, grouping...);
        its ``order`` wins over the line's `sort:` when set. ``strict_dates``: see
        `SearchFilters`."""
        # Imported here: the CLI reads the query line before it needs numpy (the filters').
        from reme_core.query.filters import SearchFilters
        from reme_core.query.options import SearchOptions
        from reme_core.query.request import SearchRequest

        options = options or SearchOptions()
        if options.order is None and self.sort is not None:
            options = dataclasses.replace(options, order=self.sort)
        filters = SearchFilters(
            start_date=self.start_date,
            end_date=self.end_date,
            paths=tuple(self.paths),
            tags=tuple(self.tags),
            exclude_paths=tuple(self.exclude_paths),
            strict_dates=strict_dates,
            exclude_tags=tuple(self.exclude_tags),
            properties=tuple(self.properties),
            exclude_properties=tuple(self.exclude_properties),
            files=tuple(self.files),
            exclude_files=tuple(self.exclude_files),
        )
        return SearchRequest(
            text=self.text,
            phrases=tuple(self.phrases),
            excludes=tuple(self.exclude_terms),
            lines=tuple(tuple(group) for group in self.lines),
            exclude_lines=tuple(tuple(group) for group in self.exclude_lines),
            filters=filters,
            options=options,
        )


def parse_query(line: str, *, typing: bool = True) -> ParsedQuery:
    """Split a query line into words, phrases, exclusions and filters. ``typing``: the line
    may still be being typed (a search box), so a last word without a space after it
    matches as a prefix; False for a finished query (the CLI, an agent, a program)."""
    parsed = ParsedQuery()
    line = _blanked(_PROPERTY_RE, line, lambda m: _property(parsed, m))
    line = _blanked(_LINE_RE, line, lambda m: _line_group(parsed, bool(m[1]), m[2]))
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
            parsed.typing = typing and match.end() == len(line)
            continue
        parsed.typing = False
    return parsed


def _blanked(pattern: re.Pattern[str], line: str, take: Callable[[re.Match[str]], None]) -> str:
    """`line` with each match of `pattern` handed to `take` and blanked out (spaces keep
    the columns: the word at the end is still the one being typed)."""

    def blank(m: re.Match[str]) -> str:
        take(m)
        return " " * len(m[0])

    return pattern.sub(blank, line)


def _property(parsed: ParsedQuery, m: re.Match[str]) -> None:
    name = m[2].strip()
    if not name:
        return
    value = m[3] if m[3] is not None else m[4]
    value = value.strip() if value is not None else None
    (parsed.exclude_properties if m[1] else parsed.properties).append((name, value or None))


def _line_group(parsed: ParsedQuery, negated: bool, inner: str) -> None:
    items = [quoted or word for quoted, word in _LINE_ITEM_RE.findall(inner)]
    group = [item.strip() for item in items if item.strip()]
    if group:
        (parsed.exclude_lines if negated else parsed.lines).append(group)


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
    elif key == "file":
        (parsed.exclude_files if negated else parsed.files).append(value)
    elif key == "line":
        (parsed.exclude_lines if negated else parsed.lines).append([value])
