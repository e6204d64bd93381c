"""Row types and busy-retry helpers of the store, kept apart so the SQLite layer stays one concept.

Re-exported from `reme_core.store.database`, where callers import them.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from reme_core.errors import RemeError
from reme_core.parse.parsed_columns import ParsedColumns
from reme_core.text.json_text import json_text


class StoreError(RemeError):
    """The database is missing, corrupt or of another schema version: rebuild from the files."""


T = TypeVar("T")


_IN_BATCH = 500  # values per `IN (...)` list, well under SQLite's limit on bound variables


def select_in(
    conn: sqlite3.Connection, sql: str, values: Sequence[Any], before: Sequence[Any] = ()
) -> Iterator[Any]:
    """Rows of ``sql`` for every value, its ``IN ({marks})`` list bound 500 values at a time.

    ``before`` are the parameters bound ahead of the list (the same for every statement).
    """
    for start in range(0, len(values), _IN_BATCH):
        part = list(values[start : start + _IN_BATCH])
        yield from conn.execute(sql.format(marks=",".join("?" * len(part))), [*before, *part])


def is_busy(exc: BaseException) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED: another process holds a lock; retry, never rebuild."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def retry_busy(fn: Callable[[], T], attempts: int = 60, step: float = 0.01) -> T:
    """Run `fn`, retrying busy errors SQLite returns without waiting (e.g. WAL recovery):
    the one busy-retry loop, pausing ``step`` more each time (at most 0.25 s)."""
    for attempt in range(attempts):
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or attempt == attempts - 1:
                raise
            time.sleep(min(0.25, step * (attempt + 1)))
    raise AssertionError("unreachable")


@dataclass(slots=True)
class FileRow:
    """A stored file as the start-up diff and the graph need it."""

    id: int
    path: str
    mtime: float
    size: int
    hash: str
    frontmatter: dict[str, Any]
    warnings: list[str]
    origin: str
    tags: list[str] = field(default_factory=list)  # the body's inline tags


@dataclass(slots=True)
class ChunkArrays:
    """All chunks as parallel arrays plus a CSR of their term ids (rows in rowid order)."""

    rowids: np.ndarray
    file_ids: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    doc_ptr: np.ndarray
    term_ids: np.ndarray
    tfs: np.ndarray


@dataclass(slots=True)
class BatchWrite:
    """Files to upsert together: their parses (as columns), origins, and all their chunks'
    term counts as one CSR.

    Chunks are in file order; chunk ``i`` owns ``term_ids[doc_ptr[i]:doc_ptr[i + 1]]``.
    Each file's frontmatter, warnings and tags are encoded once (`json_text`), for its row
    and for a rebuild's snapshot.
    """

    parsed: ParsedColumns
    origins: list[str]
    doc_ptr: np.ndarray
    term_ids: np.ndarray
    tfs: np.ndarray
    frontmatter_json: list[str] = field(init=False)
    warnings_json: list[str] = field(init=False)
    tags_json: list[str] = field(init=False)

    def __post_init__(self) -> None:
        parsed = self.parsed
        self.frontmatter_json = list(map(json_text, parsed.frontmatter))
        self.warnings_json = list(map(json_text, parsed.warnings))
        self.tags_json = list(map(json_text, parsed.tags))
